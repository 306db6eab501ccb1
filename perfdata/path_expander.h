// PathExpander: resolves a counter path with wildcards against one snapshot and its host's
// title database, like PdhExpandCounterPath. Names are resolved in scope: object names among the
// objects present, counter names among that object's own definitions (names repeat across
// indexes), in English or in the host's own language.

#ifndef PERFHIVE_PERFDATA_PATH_EXPANDER_H_
#define PERFHIVE_PERFDATA_PATH_EXPANDER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfdata/counter_path.h"
#include "perfdata/instance_names.h"
#include "perfdata/name_pattern.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"

namespace perfhive {

// One concrete counter a path selects, with what is needed to read its value directly.
struct CounterMatch {
  std::string path;  // the full path, names resolved: \\HOST\Process(svchost#2)\ID Process
  ObjectView object;
  CounterDefinitionView counter;
  std::optional<CounterDefinitionView> next;  // the definition after it: a base, perhaps
  InstanceView instance;
  uint32_t object_position = 0;    // among the snapshot's objects, from 0
  uint32_t counter_position = 0;   // among the object's counter definitions, from 0
  uint32_t instance_position = 0;  // among the object's instances, from 0
};

// The concrete path of one counter from its names (not patterns): every name is escaped so the
// formatted path parses back to exactly these names. `instance` is null for an object without
// instances; an empty `machine` leaves the machine out.
CounterPath MakeCounterPath(std::string_view machine, std::string_view object,
                            const InstancePathName* instance, std::string_view counter);

class PathExpander {
 public:
  // `localized` (optional) is the host's own language; English names always work. Both
  // databases and the snapshot must outlive the expander.
  PathExpander(const SnapshotReader& snapshot, const TitleDatabase& english,
               const TitleDatabase* localized = nullptr);

  // Every counter the path selects, in snapshot order (object, then instance, then counter).
  // Base counters are never selected. A path without a wildcard selects at most one counter.
  std::vector<CounterMatch> Expand(const CounterPath& path) const;

  // The objects whose name and kind the path's object part selects, whatever their counters
  // and instances: what Expand looks into.
  std::vector<ObjectView> ObjectsSelected(const CounterPath& path) const;

  // The name shown for an object or counter index: English, else the index in decimal.
  std::string DisplayName(uint32_t index) const;

 private:
  bool NameMatches(const NamePattern& pattern, std::string_view text, uint32_t index) const;
  // Whether Expand looks into `object` for a path with this object part.
  bool ObjectSelected(const ObjectView& object, const NamePattern& pattern, std::string_view text,
                      bool wants_instances) const;

  const SnapshotReader& snapshot_;
  const TitleDatabase& english_;
  const TitleDatabase* localized_;
};

// The object parts of some paths, decoded once: whether an object, by title index and whatever
// its kind, may be one a path selects. A read that knows this before it opens a snapshot (the
// store's partial restore) needs only those objects.
class ObjectNameFilter {
 public:
  explicit ObjectNameFilter(std::span<const CounterPath> paths);

  // Either database may be null (a host without one): names are then decimal indexes, as the
  // expander shows them.
  bool Selects(uint32_t index, const TitleDatabase* english,
               const TitleDatabase* localized = nullptr) const;

 private:
  std::vector<std::pair<NamePattern, std::string>> objects_;  // each pattern and its text
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_PATH_EXPANDER_H_
