// SelectionPlan: where the counters a query selected lie in one sample, kept so that the next
// samples of the host, as long as their layout is the same, are read at those offsets instead of
// being expanded again. Expanding costs names (matching, instance naming, path text, identity
// keys) for every sample; over an hour of one host the layout rarely moves (the same objects,
// counter definitions, instances and identities at the same byte offsets), so one expansion
// serves thousands of samples and only the values are read from each.

#ifndef PERFHIVE_QUERY_SELECTION_PLAN_H_
#define PERFHIVE_QUERY_SELECTION_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "perfdata/path_expander.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"

namespace perfhive::query {

class SelectionPlan {
 public:
  // One counter of one instance the paths selected, by byte offsets, and the series it feeds.
  struct Entry {
    size_t series = 0;
    uint32_t object = 0;
    uint32_t counter = 0;
    std::optional<uint32_t> next;  // the definition after the counter (a base, perhaps)
    std::optional<uint32_t> instance_definition;
    uint32_t block = 0;
  };

  // Starts a plan over `snapshot`, whose names come from these databases (null: none). The
  // snapshot's bytes must outlive the plan.
  void Begin(const SnapshotReader& snapshot, const TitleDatabase* english,
             const TitleDatabase* localized);
  void Add(size_t series, const CounterMatch& match);
  // An object the paths looked into: the plan fits only where it is the same, so instances that
  // appear in it are expanded, not missed.
  void Watch(const ObjectView& object);
  // Ends Begin's plan. A plan over an object whose instances name parents is not kept: their
  // names depend on another object's instances.
  void Seal();
  void Clear() { usable_ = false; }

  // Whether `snapshot` (with these databases) has the layout the plan was made on, so entries()
  // read the same counters of the same instances there.
  bool Fits(const SnapshotReader& snapshot, const TitleDatabase* english,
            const TitleDatabase* localized) const;
  const std::vector<Entry>& entries() const { return entries_; }

  // The views of an entry in a snapshot the plan fits.
  static ObjectView ObjectOf(const SnapshotReader& snapshot, const Entry& entry);
  static CounterDefinitionView CounterOf(const SnapshotReader& snapshot, const Entry& entry);
  static std::optional<CounterDefinitionView> NextOf(const SnapshotReader& snapshot,
                                                     const Entry& entry);
  static InstanceView InstanceOf(const SnapshotReader& snapshot, const Entry& entry);

 private:
  // What decides which objects a path matches: their title index and kind, in order.
  struct ObjectKey {
    uint32_t name_index = 0;
    bool has_data = false;
    bool has_instance_list = false;
    bool operator==(const ObjectKey&) const = default;
  };
  static std::vector<ObjectKey> KeysOf(const SnapshotReader& snapshot);
  // Whether the object at `offset` has the same header, definitions, instance definitions
  // (names included) and identity values in both snapshots.
  static bool SameObject(const SnapshotReader& made_on, const SnapshotReader& snapshot,
                         uint32_t offset);

  bool usable_ = false;
  std::optional<SnapshotReader> made_on_;
  const TitleDatabase* english_ = nullptr;
  const TitleDatabase* localized_ = nullptr;
  std::vector<ObjectKey> objects_;
  std::vector<uint32_t> used_objects_;  // offsets of the watched objects, each once
  std::vector<Entry> entries_;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_SELECTION_PLAN_H_
