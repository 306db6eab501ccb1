#include "perfdata/path_expander.h"

#include <algorithm>

#include "perfdata/raw_counter.h"

namespace perfhive {
namespace {

// A path's patterns, decoded once, and what they imply for the instances it selects.
struct PathSelection {
  explicit PathSelection(const CounterPath& counter_path)
      : path(counter_path),
        object(path.object),
        counter(path.counter),
        instance(path.instance.value_or("")) {
    if (path.parent) parent.emplace(*path.parent);
    wants_instances = path.instance || path.parent || path.index || path.any_index;
    // Without a parent part a name selects instances without a parent, but "(*)" selects every
    // instance, children included, as PDH expands it.
    any_parent = !parent && instance.matches_everything();
    // Without #Index a plain name selects the first of its duplicates, a wildcard (or "#*") all.
    wild_instance = path.any_index || instance.has_wildcard() || (parent && parent->has_wildcard());
    wild = wild_instance || object.has_wildcard() || counter.has_wildcard() ||
           HasWildcard(path.machine);
  }

  // Whether the instance named `name` is selected, for an object with instances.
  bool SelectsInstance(const InstancePathName& name) const {
    bool parent_ok = parent ? !name.parent.empty() && parent->Matches(name.parent)
                            : name.parent.empty() || any_parent;
    if (!parent_ok || !instance.Matches(name.name)) return false;
    return path.index ? name.duplicate == *path.index : wild_instance || name.duplicate == 0;
  }

  const CounterPath& path;
  const NamePattern object;
  const NamePattern counter;
  const NamePattern instance;
  std::optional<NamePattern> parent;
  bool wants_instances = false;
  bool any_parent = false;
  bool wild_instance = false;
  bool wild = false;  // may select more than one counter
};

// Whether an object or counter of title `index` answers to `pattern` (written as `text`): by its
// English or local name, or by its decimal index.
// Either database may be missing (null).
bool IndexNameMatches(const NamePattern& pattern, std::string_view text, uint32_t index,
                      const TitleDatabase* english_titles, const TitleDatabase* localized_titles) {
  std::optional<std::string_view> english =
      english_titles != nullptr ? english_titles->Name(index) : std::nullopt;
  if (english && pattern.Matches(*english)) return true;
  std::optional<std::string_view> localized =
      localized_titles != nullptr ? localized_titles->Name(index) : std::nullopt;
  if (localized && pattern.Matches(*localized)) return true;
  // The decimal index stands in for a name ("\238(_Total)\6"), and is what a wildcard sees of
  // an index neither database names (it is also what DisplayName shows).
  if (!pattern.has_wildcard()) return text == std::to_string(index);
  return !english && !localized && pattern.Matches(std::to_string(index));
}

}  // namespace

CounterPath MakeCounterPath(std::string_view machine, std::string_view object,
                            const InstancePathName* instance, std::string_view counter) {
  CounterPath path;
  path.machine = EscapePattern(machine);
  path.object = EscapePattern(object);
  if (instance != nullptr) {
    if (!instance->parent.empty()) path.parent = EscapePattern(instance->parent);
    path.instance = EscapePattern(instance->name);
    if (instance->duplicate != 0) path.index = instance->duplicate;
  }
  path.counter = EscapePattern(counter);
  return path;
}

PathExpander::PathExpander(const SnapshotReader& snapshot, const TitleDatabase& english,
                           const TitleDatabase* localized)
    : snapshot_(snapshot), english_(english), localized_(localized) {}

std::string PathExpander::DisplayName(uint32_t index) const {
  if (std::optional<std::string_view> name = english_.Name(index)) return std::string(*name);
  return std::to_string(index);
}

bool PathExpander::NameMatches(const NamePattern& pattern, std::string_view text,
                               uint32_t index) const {
  return IndexNameMatches(pattern, text, index, &english_, localized_);
}

bool PathExpander::ObjectSelected(const ObjectView& object, const NamePattern& pattern,
                                  std::string_view text, bool wants_instances) const {
  return object.has_data() && object.has_instance_list() == wants_instances &&
         NameMatches(pattern, text, object.name_index());
}

std::vector<ObjectView> PathExpander::ObjectsSelected(const CounterPath& path) const {
  std::vector<ObjectView> objects;
  if (!path.machine.empty() && !MatchesPattern(path.machine, snapshot_.system_name())) {
    return objects;
  }
  const PathSelection selection(path);
  for (ObjectView object : snapshot_.objects()) {
    if (ObjectSelected(object, selection.object, path.object, selection.wants_instances)) {
      objects.push_back(object);
    }
  }
  return objects;
}

std::vector<CounterMatch> PathExpander::Expand(const CounterPath& path) const {
  std::vector<CounterMatch> matches;
  const std::string machine = snapshot_.system_name();
  if (!path.machine.empty() && !MatchesPattern(path.machine, machine)) return matches;
  const PathSelection selection(path);
  const bool wants_instances = selection.wants_instances, wild = selection.wild;

  struct Selected {
    CounterDefinitionView counter;
    std::optional<CounterDefinitionView> next;
    uint32_t position;
    std::string name;  // escaped, ready for the path
  };
  std::vector<Selected> selected;
  struct Chosen {
    InstanceView view;
    uint32_t position;
  };
  std::vector<Chosen> chosen;
  uint32_t object_position = 0;
  for (ObjectView object : snapshot_.objects()) {
    const uint32_t this_object = object_position++;
    if (!ObjectSelected(object, selection.object, path.object, wants_instances)) continue;
    selected.clear();
    uint32_t counter_position = 0;
    for (CounterDefinitionView counter : object.counters()) {
      if (!selected.empty() && selected.back().position + 1 == counter_position) {
        selected.back().next = counter;
      }
      if (!IsBaseType(counter.type()) &&
          NameMatches(selection.counter, path.counter, counter.name_index())) {
        selected.push_back({counter, std::nullopt, counter_position,
                            EscapePattern(DisplayName(counter.name_index()))});
      }
      ++counter_position;
    }
    if (selected.empty()) continue;
    const std::vector<InstancePathName> names = NameInstances(snapshot_, object);
    // The instances first, so that the matches are allocated at once: reallocating tens of
    // thousands of matches was a fifth of the time of a large expansion.
    chosen.clear();
    uint32_t instance_position = 0;
    for (InstanceView instance : object.instances()) {
      const InstancePathName& name = names[instance_position++];
      if (wants_instances && !selection.SelectsInstance(name)) continue;
      chosen.push_back({instance, instance_position - 1});
      if (!wild) break;
    }
    size_t wanted = matches.size() + chosen.size() * (wild ? selected.size() : 1);
    if (wanted > matches.capacity()) matches.reserve(std::max(wanted, 2 * matches.capacity()));
    const std::string object_name = DisplayName(object.name_index());
    for (const Chosen& instance : chosen) {
      // The counter comes last and as it is, so the path up to it is formatted once.
      const std::string prefix = FormatCounterPath(MakeCounterPath(
          machine, object_name, wants_instances ? &names[instance.position] : nullptr, ""));
      for (const Selected& counter : selected) {
        matches.push_back({prefix + counter.name, object, counter.counter, counter.next,
                           instance.view, this_object, counter.position, instance.position});
        if (!wild) return matches;
      }
    }
  }
  return matches;
}

ObjectNameFilter::ObjectNameFilter(std::span<const CounterPath> paths) {
  for (const CounterPath& path : paths) {
    objects_.emplace_back(NamePattern(path.object), path.object);
  }
}

bool ObjectNameFilter::Selects(uint32_t index, const TitleDatabase* english,
                               const TitleDatabase* localized) const {
  return std::any_of(objects_.begin(), objects_.end(), [&](const auto& object) {
    return IndexNameMatches(object.first, object.second, index, english, localized);
  });
}

}  // namespace perfhive
