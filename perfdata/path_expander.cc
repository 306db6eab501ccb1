#include "perfdata/path_expander.h"

#include "perfdata/raw_counter.h"

namespace perfhive {

PathExpander::PathExpander(const SnapshotReader& snapshot, const TitleDatabase& english,
                           const TitleDatabase* localized)
    : snapshot_(snapshot), english_(english), localized_(localized) {}

std::string PathExpander::DisplayName(uint32_t index) const {
  if (std::optional<std::string_view> name = english_.Name(index)) return std::string(*name);
  return std::to_string(index);
}

bool PathExpander::NameMatches(const std::string& pattern, uint32_t index) const {
  if (std::optional<std::string_view> name = english_.Name(index);
      name && MatchesPattern(pattern, *name)) {
    return true;
  }
  if (localized_ != nullptr) {
    if (std::optional<std::string_view> name = localized_->Name(index);
        name && MatchesPattern(pattern, *name)) {
      return true;
    }
  }
  // An index in place of a name: "\238\6".
  return MatchesPattern(pattern, std::to_string(index)) && !HasWildcard(pattern);
}

std::vector<CounterMatch> PathExpander::Expand(const CounterPath& path) const {
  std::vector<CounterMatch> matches;
  std::string machine = snapshot_.system_name();
  if (!path.machine.empty() && !MatchesPattern(path.machine, machine)) return matches;
  bool any_wildcard = HasWildcard(path.object) || HasWildcard(path.counter) ||
                      (path.instance && HasWildcard(*path.instance)) ||
                      (path.parent && HasWildcard(*path.parent));
  CounterPath shown;
  shown.machine = EscapePattern(machine);
  for (ObjectView object : snapshot_.objects()) {
    if (!object.has_data() || !NameMatches(path.object, object.name_index())) continue;
    bool has_instances = object.has_instance_list();
    if (has_instances != path.instance.has_value()) continue;
    std::vector<CounterDefinitionView> counters(object.counters().begin(), object.counters().end());
    std::vector<size_t> selected;
    for (size_t c = 0; c < counters.size(); ++c) {
      if (!IsBaseType(counters[c].type()) && NameMatches(path.counter, counters[c].name_index())) {
        selected.push_back(c);
      }
    }
    if (selected.empty()) continue;
    std::vector<PdhInstanceName> names = NameInstances(snapshot_, object);
    shown.object = EscapePattern(DisplayName(object.name_index()));
    uint32_t position = 0;
    for (InstanceView instance : object.instances()) {
      const PdhInstanceName& name = names[position];
      uint32_t this_position = position++;
      if (has_instances) {
        // "(parent/name)" selects children only; "(name)" instances without a parent, except
        // that "(*)" selects every instance, as PDH expands it.
        bool parent_ok = path.parent
                             ? !name.parent.empty() && MatchesPattern(*path.parent, name.parent)
                             : name.parent.empty() || *path.instance == "*";
        if (!parent_ok || !MatchesPattern(*path.instance, name.name)) continue;
        // #Index: as given; without one, a plain name means the first (#0), a wildcard all.
        bool wild = HasWildcard(*path.instance);
        if (path.index ? name.duplicate != *path.index : (!wild && name.duplicate != 0)) continue;
        shown.parent = name.parent.empty() ? std::nullopt
                                           : std::optional<std::string>(EscapePattern(name.parent));
        shown.instance = EscapePattern(name.name);
        shown.index = name.duplicate != 0 ? std::optional<uint32_t>(name.duplicate) : std::nullopt;
      }
      for (size_t c : selected) {
        shown.counter = EscapePattern(DisplayName(counters[c].name_index()));
        CounterMatch match{
            FormatCounterPath(shown), object, counters[c], std::nullopt, instance, this_position};
        if (c + 1 < counters.size()) match.next = counters[c + 1];
        matches.push_back(std::move(match));
        if (!any_wildcard) return matches;
      }
    }
  }
  return matches;
}

}  // namespace perfhive
