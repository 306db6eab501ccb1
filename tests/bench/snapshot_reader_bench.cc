// Walking every value of a ~1 MB snapshot: Open() (which checks every structure) and then every
// object, instance and counter value. Target: at least 1 GB/s on one core, no allocation.

#include <benchmark/benchmark.h>

#include <vector>

#include "perfdata/snapshot_reader.h"
#include "tests/bench/allocation_counter.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

void BM_OpenAndWalkEveryValue(benchmark::State& state) {
  std::vector<uint8_t> bytes = testing::BuildLargeSnapshot(0);
  uint64_t values = 0;
  uint64_t allocations_before = testing::AllocationCount();
  for (auto _ : state) {
    Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
    if (!reader.ok()) state.SkipWithError(reader.error().c_str());
    uint64_t sum = 0;
    values = 0;
    for (ObjectView object : reader->objects()) {
      for (InstanceView instance : object.instances()) {
        CounterBlockView block = instance.counters();
        sum += instance.raw_name().size();
        for (CounterDefinitionView counter : object.counters()) {
          sum += block.Value(counter).value_or(0);
          ++values;
        }
      }
    }
    benchmark::DoNotOptimize(sum);
  }
  uint64_t allocations = testing::AllocationCount() - allocations_before;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
  state.counters["snapshot_bytes"] = static_cast<double>(bytes.size());
  state.counters["values"] = static_cast<double>(values);
  state.counters["allocs_per_walk"] =
      static_cast<double>(allocations) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_OpenAndWalkEveryValue)->Unit(benchmark::kMicrosecond);

void BM_OpenOnly(benchmark::State& state) {
  std::vector<uint8_t> bytes = testing::BuildLargeSnapshot(0);
  for (auto _ : state) {
    Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
    benchmark::DoNotOptimize(reader.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_OpenOnly)->Unit(benchmark::kMicrosecond);

void BM_BuildLargeSnapshot(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(testing::BuildLargeSnapshot(1));
}
BENCHMARK(BM_BuildLargeSnapshot)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perfhive
