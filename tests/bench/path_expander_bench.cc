// Naming instances and expanding wildcard paths on a ~1 MB snapshot (Thread 4,000 instances under
// Process 400): what `perfhive decode --path` pays before computing any value.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "perfdata/counter_path.h"
#include "perfdata/instance_names.h"
#include "perfdata/path_expander.h"
#include "perfdata/title_database.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

// A title database naming every object and counter of the snapshot: "Thread" and "Process" by
// their English names, the others "Title <index>".
TitleDatabase TitlesFor(const SnapshotReader& snapshot) {
  TitleDatabase titles;
  for (ObjectView object : snapshot.objects()) {
    titles.AddName(object.name_index(), "Title " + std::to_string(object.name_index()));
    for (CounterDefinitionView counter : object.counters()) {
      titles.AddName(counter.name_index(), "Title " + std::to_string(counter.name_index()));
    }
  }
  titles.AddName(230, "Process");
  titles.AddName(232, "Thread");
  return titles;
}

void BM_NameThreadInstances(benchmark::State& state) {
  std::vector<uint8_t> bytes = testing::BuildLargeSnapshot(0);
  SnapshotReader snapshot = *SnapshotReader::Open(bytes);
  ObjectView thread = *snapshot.FindObject(232);
  for (auto _ : state) {
    std::vector<InstancePathName> names = NameInstances(snapshot, thread);
    benchmark::DoNotOptimize(names.data());
  }
  state.counters["instances"] = thread.instances().size();
}
BENCHMARK(BM_NameThreadInstances)->Unit(benchmark::kMicrosecond);

void BM_NameEveryInstance(benchmark::State& state) {
  std::vector<uint8_t> bytes = testing::BuildLargeSnapshot(0);
  SnapshotReader snapshot = *SnapshotReader::Open(bytes);
  size_t instances = 0;
  for (auto _ : state) {
    instances = 0;
    for (ObjectView object : snapshot.objects()) {
      instances += NameInstances(snapshot, object).size();
    }
    benchmark::DoNotOptimize(instances);
  }
  state.counters["instances"] = static_cast<double>(instances);
}
BENCHMARK(BM_NameEveryInstance)->Unit(benchmark::kMicrosecond);

// Expands `pattern` on the large snapshot; reports how many counters it selected.
void ExpandOnLargeSnapshot(benchmark::State& state, const char* pattern) {
  std::vector<uint8_t> bytes = testing::BuildLargeSnapshot(0);
  SnapshotReader snapshot = *SnapshotReader::Open(bytes);
  TitleDatabase titles = TitlesFor(snapshot);
  CounterPath path = *ParseCounterPath(pattern);
  PathExpander expander(snapshot, titles);
  size_t matches = 0;
  for (auto _ : state) {
    matches = expander.Expand(path).size();
    benchmark::DoNotOptimize(matches);
  }
  state.counters["matches"] = static_cast<double>(matches);
}

void BM_ExpandEveryThreadCounter(benchmark::State& state) {
  ExpandOnLargeSnapshot(state, "\\Thread(*/*)\\*");
}
BENCHMARK(BM_ExpandEveryThreadCounter)->Unit(benchmark::kMillisecond);

void BM_ExpandThreadsOfSomeProcesses(benchmark::State& state) {
  ExpandOnLargeSnapshot(state, "\\Thread(svc*/*)\\Title 6");
}
BENCHMARK(BM_ExpandThreadsOfSomeProcesses)->Unit(benchmark::kMicrosecond);

void BM_ExpandOneExactPath(benchmark::State& state) {
  ExpandOnLargeSnapshot(state, "\\Thread(svchost/3#2)\\Title 6");
}
BENCHMARK(BM_ExpandOneExactPath)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perfhive
