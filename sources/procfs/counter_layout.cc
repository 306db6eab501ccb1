#include "sources/procfs/counter_layout.h"

#include "sources/procfs/sample_clock.h"

namespace perfhive {

ObjectBuilder& AddObjectWithCounters(SnapshotBuilder& snapshot, uint32_t index, int64_t perf_time,
                                     std::span<const CounterLayout> counters) {
  ObjectBuilder& object = snapshot.AddObject(index);
  object.set_perf_time(perf_time).set_perf_freq(kSamplePerfFreq).set_default_counter(0);
  AddCounters(object, counters);
  return object;
}

uint32_t AddCounters(ObjectBuilder& object, std::span<const CounterLayout> counters) {
  uint32_t first = object.num_counters();
  for (const CounterLayout& counter : counters) {
    object.AddCounter(
        CounterSpec{.name_index = counter.index, .type = counter.type, .size = counter.size});
  }
  return first;
}

}  // namespace perfhive
