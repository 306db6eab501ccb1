// CounterLayout: one counter of an object the Linux source writes, with the counter type
// Windows gives it. Each object keeps its counters in a table whose positions an enum names, so
// values are set by name: object.SetValue(instance, kUserTime, value).

#ifndef PERFHIVE_SOURCES_PROCFS_COUNTER_LAYOUT_H_
#define PERFHIVE_SOURCES_PROCFS_COUNTER_LAYOUT_H_

#include <cstdint>
#include <span>

#include "perfdata/snapshot_builder.h"

namespace perfhive {

struct CounterLayout {
  uint32_t index;  // title index; a base counter carries the index of the counter it serves,
                   // as Windows' PhysicalDisk does
  uint32_t type;
  uint32_t size = 0;  // 0: the type's nominal size
};

// Adds an object with these counters (in table order), its PerfTime `perf_time` at kSamplePerfFreq.
ObjectBuilder& AddObjectWithCounters(SnapshotBuilder& snapshot, uint32_t index, int64_t perf_time,
                                     std::span<const CounterLayout> counters);

// Adds more counters after those the object has; returns the position of the first.
uint32_t AddCounters(ObjectBuilder& object, std::span<const CounterLayout> counters);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_COUNTER_LAYOUT_H_
