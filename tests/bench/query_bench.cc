// The query library alone (no store, no network): issue 11's two read figures for one host.
// \Processor(*)\% Processor Time over an hour of one-second samples of an 8-CPU host, and one
// host's whole Process object at one point of the large snapshot.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "query/series_query.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

std::shared_ptr<const TitleDatabase> Titles(const std::vector<uint8_t>& bytes) {
  auto titles = std::make_shared<TitleDatabase>();
  SnapshotReader snapshot = *SnapshotReader::Open(bytes);
  for (ObjectView object : snapshot.objects()) {
    titles->AddName(object.name_index(), "Title " + std::to_string(object.name_index()));
    for (CounterDefinitionView counter : object.counters()) {
      titles->AddName(counter.name_index(), "Title " + std::to_string(counter.name_index()));
    }
  }
  titles->AddName(title_index::kProcess, "Process");
  titles->AddName(title_index::kProcessor, "Processor");
  titles->AddName(title_index::kPercentProcessorTime, "% Processor Time");
  return titles;
}

// An hour of an 8-CPU host: Processor (8 + _Total, 5 counters) and System, one sample a second.
const query::HostSamples& ProcessorHour() {
  static const query::HostSamples* host = [] {
    auto* samples = new query::HostSamples{"host001", {}};
    std::shared_ptr<const TitleDatabase> titles;
    for (int s = 0; s < 3600; ++s) {
      SnapshotBuilder builder;
      const int64_t ticks = (1000 + s) * 10'000'000LL;
      builder.set_system_name("HOST001").set_perf_time(ticks).set_perf_time_100ns(ticks);
      ObjectBuilder& cpu = builder.AddObject(title_index::kProcessor);
      const uint32_t counters[] = {
          cpu.AddCounter({title_index::kPercentProcessorTime, winperf::k100NsecTimerInv}),
          cpu.AddCounter({title_index::kPercentUserTime, winperf::k100NsecTimer}),
          cpu.AddCounter({title_index::kPercentPrivilegedTime, winperf::k100NsecTimer}),
          cpu.AddCounter({title_index::kInterruptsPerSec, winperf::kCounterCounter}),
          cpu.AddCounter({title_index::kPercentDpcTime, winperf::k100NsecTimer})};
      for (int n = 0; n <= 8; ++n) {
        uint32_t i = cpu.AddInstance(n == 8 ? "_Total" : std::to_string(n));
        for (uint32_t c : counters)
          cpu.SetValue(i, c, static_cast<uint64_t>(s) * (c + n + 1) * 1000);
      }
      ObjectBuilder& system = builder.AddObject(title_index::kSystem);
      system.set_no_instances();
      uint32_t processes = system.AddCounter({title_index::kProcesses});
      system.SetValue(0, processes, 120);
      auto bytes = std::make_shared<const std::vector<uint8_t>>(builder.Build());
      if (!titles) titles = Titles(*bytes);
      samples->samples.push_back({s * kSecondNs, bytes, titles, nullptr});
    }
    return samples;
  }();
  return *host;
}

void BM_ProcessorTimeOverOneHour(benchmark::State& state) {
  const query::HostSamples& host = ProcessorHour();
  std::vector<CounterPath> paths = {*ParseCounterPath("\\Processor(*)\\% Processor Time")};
  for (auto _ : state) {
    Result<query::QueryAnswer> answer = query::RunQuery(host, paths);
    benchmark::DoNotOptimize(answer->series.data());
  }
  state.counters["points"] = static_cast<double>(9 * 3600);
}
BENCHMARK(BM_ProcessorTimeOverOneHour)->Unit(benchmark::kMillisecond);

// Two consecutive large snapshots (Process: 400 instances, 28 counters): the values at the
// second.
void BM_WholeProcessObjectAtOnePoint(benchmark::State& state) {
  auto first = std::make_shared<const std::vector<uint8_t>>(testing::BuildLargeSnapshot(0));
  auto second = std::make_shared<const std::vector<uint8_t>>(testing::BuildLargeSnapshot(1));
  auto titles = Titles(*first);
  query::HostSamples host{"big",
                          {{0, first, titles, nullptr}, {kSecondNs, second, titles, nullptr}}};
  std::vector<CounterPath> paths = {*ParseCounterPath("\\Process(*)\\*")};
  size_t points = 0;
  for (auto _ : state) {
    Result<query::QueryAnswer> answer = query::RunQuery(host, paths);
    points = answer->num_points();
    benchmark::DoNotOptimize(answer->series.data());
  }
  state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_WholeProcessObjectAtOnePoint)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive
