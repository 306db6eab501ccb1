// Computing every counter value between two consecutive ~1 MB snapshots (target: under 5 ms on
// one core), and expanding \Thread(*/*)\* on one.

#include <benchmark/benchmark.h>

#include <vector>

#include "perfdata/counter_path.h"
#include "perfdata/path_expander.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/title_database.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

void BM_ComputeEveryValueBetweenTwoSnapshots(benchmark::State& state) {
  std::vector<uint8_t> a = testing::BuildLargeSnapshot(0), b = testing::BuildLargeSnapshot(1);
  SnapshotReader older = *SnapshotReader::Open(a);
  SnapshotReader newer = *SnapshotReader::Open(b);
  uint64_t values = 0, valid = 0;
  for (auto _ : state) {
    values = valid = 0;
    ComputeSnapshotValues(&older, newer, {}, [&](const ComputedValue& v) {
      ++values;
      valid += IsSuccess(v.value.status);
    });
  }
  state.counters["values"] = static_cast<double>(values);
  state.counters["valid"] = static_cast<double>(valid);
}
BENCHMARK(BM_ComputeEveryValueBetweenTwoSnapshots)->Unit(benchmark::kMillisecond);

void BM_ExpandThreadWildcards(benchmark::State& state) {
  std::vector<uint8_t> bytes = testing::BuildLargeSnapshot(0);
  SnapshotReader snapshot = *SnapshotReader::Open(bytes);
  TitleDatabase titles;
  for (auto [index, name] :
       std::initializer_list<std::pair<uint32_t, const char*>>{{230, "Process"},
                                                               {232, "Thread"},
                                                               {6, "% Processor Time"},
                                                               {142, "% User Time"},
                                                               {144, "% Privileged Time"},
                                                               {146, "Context Switches/sec"},
                                                               {684, "Elapsed Time"},
                                                               {694, "Priority Current"},
                                                               {682, "Priority Base"},
                                                               {706, "Start Address"},
                                                               {46, "Thread State"},
                                                               {336, "Thread Wait Reason"},
                                                               {784, "ID Process"},
                                                               {804, "ID Thread"}}) {
    titles.AddName(index, name);
  }
  CounterPath path = *ParseCounterPath("\\Thread(*/*)\\*");
  size_t matches = 0;
  for (auto _ : state) {
    PathExpander expander(snapshot, titles);
    matches = expander.Expand(path).size();
    benchmark::DoNotOptimize(matches);
  }
  state.counters["matches"] = static_cast<double>(matches);
}
BENCHMARK(BM_ExpandThreadWildcards)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive
