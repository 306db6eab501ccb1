// Computes every counter value of a snapshot against the previous one: pairs objects by index,
// instances by their PDH name (position first, when the instance lists line up, which is the
// common case and costs nothing), and counter definitions by index and type.

#ifndef PERFHIVE_PERFDATA_SNAPSHOT_VALUES_H_
#define PERFHIVE_PERFDATA_SNAPSHOT_VALUES_H_

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/instance_names.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {

struct ComputedValue {
  ObjectView object;
  uint32_t instance_position;
  InstanceView instance;
  uint32_t counter_position;
  CounterDefinitionView counter;
  RawCounter raw;      // the newer sample
  CounterValue value;  // PDH_CSTATUS_INVALID_DATA for two-sample types without a previous sample
  bool paired;         // `older` has this instance and counter: `value` is against its sample
};

// One object of the newer snapshot and the same object (by index) of the older one, if it has
// it: what ComputeSnapshotValues walks, for callers that visit the values in another order.
// Instances are read and paired as they are asked for, so a caller that needs the first instance
// of each counter does not walk an object's thousands.
class PairedObject {
 public:
  PairedObject(const SnapshotReader* older, const SnapshotReader& newer, ObjectView object);

  ObjectView object() const { return object_; }
  const std::vector<CounterDefinitionView>& counters() const { return counters_; }
  uint32_t instance_count() const { return instance_count_; }

  // The value of counter definition `counter` (a position in counters()) of instance `instance`
  // (a position below instance_count()).
  ComputedValue Compute(uint32_t instance, uint32_t counter, const FormatOptions& format);

 private:
  // The newer object's instance at `position`, and the older's, read up to it on first use.
  const InstanceView& NewerInstance(uint32_t position);
  const InstanceView& OlderInstanceAt(uint32_t position);
  // The older instance with the identity of the newer one at `position`, if any.
  std::optional<InstanceView> OlderInstance(uint32_t position);

  const SnapshotReader* older_;
  const SnapshotReader& newer_;
  ObjectView object_;
  SampleTimes times_;
  std::vector<CounterDefinitionView> counters_;
  uint32_t instance_count_;
  InstanceRange::iterator next_instance_;
  std::vector<InstanceView> instances_;  // read so far
  // The older side, when `older` has the object.
  std::optional<ObjectView> older_object_;
  SampleTimes older_times_;
  std::vector<CounterDefinitionView> older_counters_;
  uint32_t older_instance_count_ = 0;
  InstanceRange::iterator next_older_instance_;
  std::vector<InstanceView> older_instances_;  // read so far
  std::vector<int> older_counter_;             // counter position → older position, or −1
  // Built only when positions disagree.
  std::unordered_map<std::string, uint32_t> older_by_name_;
  std::vector<InstancePathName> newer_names_;
  // Per newer instance: 0 not looked up yet, 1 none, 2 found (in paired_instances_); grown as
  // instances are asked for.
  std::vector<uint8_t> instance_looked_up_;
  std::vector<InstanceView> paired_instances_;
};

// Calls `visit` for every counter of every instance of `newer`, in snapshot order, with its
// value against `older` (nullptr: the first sample).
void ComputeSnapshotValues(const SnapshotReader* older, const SnapshotReader& newer,
                           const FormatOptions& format,
                           const std::function<void(const ComputedValue&)>& visit);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_SNAPSHOT_VALUES_H_
