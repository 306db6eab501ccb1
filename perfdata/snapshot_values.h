// Computes every counter value of a snapshot against the previous one: pairs objects by index,
// instances by their PDH name (position first, when the instance lists line up, which is the
// common case and costs nothing), and counter definitions by index and type.

#ifndef PERFHIVE_PERFDATA_SNAPSHOT_VALUES_H_
#define PERFHIVE_PERFDATA_SNAPSHOT_VALUES_H_

#include <functional>

#include "perfdata/calculator.h"
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
};

// Calls `visit` for every counter of every instance of `newer`, in snapshot order, with its
// value against `older` (nullptr: the first sample).
void ComputeSnapshotValues(const SnapshotReader* older, const SnapshotReader& newer,
                           const FormatOptions& format,
                           const std::function<void(const ComputedValue&)>& visit);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_SNAPSHOT_VALUES_H_
