// Computing every counter value between two consecutive ~1 MB snapshots (target: under 5 ms on
// one core): with the calculator alone, and with ComputeSnapshotValues's pairing by name.

#include <benchmark/benchmark.h>

#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_values.h"
#include "tests/bench/allocation_counter.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

// Two consecutive samples of the large snapshot; their bytes outlive the readers.
struct SnapshotPair {
  std::vector<uint8_t> older_bytes = testing::BuildLargeSnapshot(0);
  std::vector<uint8_t> newer_bytes = testing::BuildLargeSnapshot(1);
  SnapshotReader older = *SnapshotReader::Open(older_bytes);
  SnapshotReader newer = *SnapshotReader::Open(newer_bytes);
};

// ReadRawCounter and ComputeCounterValue alone, objects, instances and counters paired by
// position (the two samples have the same shape): the calculator's own cost, which must allocate
// nothing.
void BM_ReadAndComputeEveryValue(benchmark::State& state) {
  const SnapshotPair pair{};
  uint64_t values = 0, valid = 0;
  const uint64_t allocations_before = testing::AllocationCount();
  for (auto _ : state) {
    values = valid = 0;
    double sum = 0;
    auto old_object = pair.older.objects().begin();
    for (ObjectView object : pair.newer.objects()) {
      ObjectView before = *old_object++;
      auto old_instance = before.instances().begin();
      for (InstanceView instance : object.instances()) {
        InstanceView then = *old_instance++;
        auto old_definition = before.counters().begin();
        for (auto definition = object.counters().begin(); definition != object.counters().end();
             ++definition, ++old_definition) {
          RawCounter now = ReadRawCounter(pair.newer, object, definition, instance);
          RawCounter past = ReadRawCounter(pair.older, before, old_definition, then);
          CounterValue value = ComputeCounterValue(now, &past);
          ++values;
          if (IsSuccess(value.status)) {
            ++valid;
            sum += value.value;
          }
        }
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  const uint64_t allocations = testing::AllocationCount() - allocations_before;
  state.counters["values"] = static_cast<double>(values);
  state.counters["valid"] = static_cast<double>(valid);
  state.counters["allocs_per_pair"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ReadAndComputeEveryValue)->Unit(benchmark::kMillisecond);

void BM_ComputeEveryValueBetweenTwoSnapshots(benchmark::State& state) {
  const SnapshotPair pair{};
  uint64_t values = 0, valid = 0;
  for (auto _ : state) {
    values = valid = 0;
    ComputeSnapshotValues(&pair.older, pair.newer, {}, [&](const ComputedValue& v) {
      ++values;
      valid += IsSuccess(v.value.status);
    });
  }
  state.counters["values"] = static_cast<double>(values);
  state.counters["valid"] = static_cast<double>(valid);
}
BENCHMARK(BM_ComputeEveryValueBetweenTwoSnapshots)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive
