#include "query/empty_answers.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "perfdata/display_text.h"
#include "perfdata/instance_names.h"
#include "perfdata/name_distance.h"
#include "perfdata/name_pattern.h"
#include "perfdata/path_expander.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/time_text.h"
#include "query/browse.h"

namespace perfhive::query {
namespace {

std::string Quoted(std::string_view name) { return "\"" + std::string(name) + "\""; }

// A sample of the host, opened, with the objects of interest in it.
struct Found {
  const HostSample* sample;
  SnapshotReader reader;
  std::vector<ObjectView> objects;
};

// The newest of `samples` holding objects that `names` selects by name (whatever their kind) and
// `wanted` accepts, with those objects. Samples that cannot be read are passed over: the query
// has warned of them. `any_read` (optional) tells whether any sample could be read.
std::optional<Found> Newest(std::span<const HostSample> samples, const ObjectNameFilter& names,
                            const std::function<bool(const ObjectView&)>& wanted,
                            bool* any_read = nullptr) {
  for (auto it = samples.rbegin(); it != samples.rend(); ++it) {
    if (!it->bytes) continue;
    Result<SnapshotReader> reader = SnapshotReader::Open(*it->bytes);
    if (!reader.ok()) continue;
    if (any_read != nullptr) *any_read = true;
    Found found{&*it, *reader, {}};
    for (ObjectView object : reader->objects()) {
      if (object.has_data() && wanted(object) &&
          names.Selects(object.name_index(), it->english.get(), it->localized.get())) {
        found.objects.push_back(object);
      }
    }
    if (!found.objects.empty()) return found;
  }
  return std::nullopt;
}

// Names of the same things in English and in the host's language, for suggestions.
struct NameLists {
  std::vector<std::string> english, localized;

  // The names the sample's databases give title `index`; unnamed indexes are not suggested.
  void Add(const HostSample& sample, uint32_t index) {
    if (sample.english) {
      if (std::optional<std::string_view> name = sample.english->Name(index)) {
        english.emplace_back(*name);
      }
    }
    if (sample.localized) {
      if (std::optional<std::string_view> name = sample.localized->Name(index)) {
        localized.emplace_back(*name);
      }
    }
  }
};

// The names `written` may be a typo of, in the language whose closest name is closer (English on
// a tie): a path written in German is answered with German names. None for a pattern with a
// wildcard, whose distance to a name means nothing.
std::vector<std::string> Suggest(std::string_view written, const NameLists& names) {
  if (HasWildcard(written)) return {};
  std::vector<std::string> english = CloseNames(written, names.english);
  std::vector<std::string> localized = CloseNames(written, names.localized);
  if (localized.empty() || (!english.empty() && NameDistance(written, english[0]) <=
                                                    NameDistance(written, localized[0]))) {
    return english;
  }
  return localized;
}

// "; did you mean "A", "B" or "C"?", or `otherwise` without a close name.
std::string DidYouMean(const std::vector<std::string>& names, const std::string& otherwise) {
  if (names.empty()) return otherwise;
  std::string text = "; did you mean ";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += Quoted(names[i]);
  }
  return text + "?";
}

// The name a browsing command takes for the object (English, else local, else its index).
std::string BrowseName(const Found& found) {
  return Titles{found.sample->english.get(), found.sample->localized.get()}.Name(
      found.objects.front().name_index());
}

std::string UnknownObject(std::string_view host, const CounterPath& path, const HostSample* whole) {
  NameLists names;
  if (whole != nullptr && whole->bytes) {
    if (Result<SnapshotReader> reader = SnapshotReader::Open(*whole->bytes); reader.ok()) {
      for (ObjectView object : reader->objects()) {
        if (object.has_data()) names.Add(*whole, object.name_index());
      }
    }
  }
  return "no object " + Quoted(path.object) + " on " + std::string(host) +
         DidYouMean(Suggest(path.object, names),
                    "; `perfhive objects \\\\" + std::string(host) + "` lists them");
}

std::string UnknownCounter(std::string_view host, const CounterPath& path, const Found& found) {
  NameLists names;
  for (const ObjectView& object : found.objects) {
    for (CounterDefinitionView counter : object.counters()) {
      if (!IsBaseType(counter.type())) names.Add(*found.sample, counter.name_index());
    }
  }
  return "no counter " + Quoted(path.counter) + " in " + Quoted(path.object) + " on " +
         std::string(host) +
         DidYouMean(Suggest(path.counter, names), "; `perfhive counters \\\\" + std::string(host) +
                                                      "\\" + BrowseName(found) + "` lists them");
}

std::string UnknownInstance(std::string_view host, const CounterPath& path, const Found& found) {
  const InstancePathName written{path.parent.value_or(""), path.instance.value_or(""),
                                 path.index.value_or(0)};
  const std::string text = written.ToString() + (path.any_index ? "#*" : "");
  NameLists names;  // instance names are in no language: all count as English
  if (!HasWildcard(text)) {
    for (const ObjectView& object : found.objects) {
      for (const InstancePathName& name : NameInstances(found.reader, object)) {
        names.english.push_back(name.ToString());
      }
    }
  }
  return "no instance of " + Quoted(path.object) + " on " + std::string(host) + " matches " +
         Quoted(text) +
         DidYouMean(Suggest(text, names), "; `perfhive instances \\\\" + std::string(host) + "\\" +
                                              BrowseName(found) + "` lists them");
}

}  // namespace

std::string ExplainNothingSelected(std::string_view host, std::span<const HostSample> samples,
                                   const CounterPath& path, std::string_view written,
                                   const std::function<const HostSample*()>& whole) {
  const std::string head = std::string(written) + ": ";
  const ObjectNameFilter object_names(std::span(&path, 1));
  bool any_read = false;
  std::optional<Found> named = Newest(
      samples, object_names, [](const ObjectView&) { return true; }, &any_read);
  if (!named) {
    // Read samples hold what the paths name: an object in none of them is in none of the host's.
    if (!any_read) return head + "no sample of " + std::string(host) + " in the range can be read";
    return head + UnknownObject(host, path, whole());
  }
  const bool wants_instances = path.instance || path.parent || path.index || path.any_index;
  std::erase_if(named->objects, [&](const ObjectView& object) {
    return object.has_instance_list() != wants_instances;
  });
  if (named->objects.empty()) {
    return head + Quoted(path.object) + " on " + std::string(host) +
           (wants_instances ? " is an object without instances: leave out \"(...)\""
                            : " has instances: add one, e.g. " + Quoted(path.object + "(*)"));
  }
  // Counter names answer as object names do (English, local or decimal): the same filter.
  CounterPath counter_only;
  counter_only.object = path.counter;
  const ObjectNameFilter counter_names(std::span(&counter_only, 1));
  const bool has_counter =
      std::any_of(named->objects.begin(), named->objects.end(), [&](const ObjectView& object) {
        for (CounterDefinitionView counter : object.counters()) {
          if (!IsBaseType(counter.type()) &&
              counter_names.Selects(counter.name_index(), named->sample->english.get(),
                                    named->sample->localized.get())) {
            return true;
          }
        }
        return false;
      });
  if (!has_counter) return head + UnknownCounter(host, path, *named);
  // So the instance part selected none: only a path with one gets here, since an object without
  // instances has the one instance every path without an instance part selects. The instances
  // present are those of the newest sample that has any, over the whole range.
  std::optional<Found> with_instances =
      Newest(samples, object_names, [&](const ObjectView& object) {
        return object.has_instance_list() && object.num_instances() > 0;
      });
  if (!with_instances) {
    return head + Quoted(path.object) + " on " + std::string(host) +
           " had no instances in the range";
  }
  return head + UnknownInstance(host, path, *with_instances);
}

std::string NoSampleInRange(std::string_view host, int64_t from_ns, int64_t to_ns,
                            std::optional<int64_t> nearest_ns) {
  std::string text = std::string(host) + " has no sample";
  if (from_ns > 0 && to_ns < INT64_MAX) {
    text += " from " + FormatRfc3339(from_ns) + " to " + FormatRfc3339(to_ns);
  } else if (from_ns > 0) {
    text += " since " + FormatRfc3339(from_ns);
  } else if (to_ns < INT64_MAX) {
    text += " up to " + FormatRfc3339(to_ns);
  } else {
    text += " stored";
  }
  if (!nearest_ns) return text;
  return text + "; the nearest is at " + FormatRfc3339(*nearest_ns) + " (`perfhive snapshots \\\\" +
         std::string(host) + "` lists the stored times)";
}

std::string KnownHosts(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return "; the server has no hosts yet";
  std::string known;
  size_t named = 0;
  for (const std::string& host : hosts) {
    if (known.size() > 200) break;
    known += (known.empty() ? "" : ", ") + TruncateUtf8(host, 64);
    ++named;
  }
  if (named < hosts.size()) known += ", ... (" + std::to_string(hosts.size()) + " in all)";
  return "; known hosts: " + known;
}

}  // namespace perfhive::query
