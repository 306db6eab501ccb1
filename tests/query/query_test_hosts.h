// Builder-made hosts for the query tests: processes with duplicate names and processors, one
// sample a second, with the values each test computes by hand.

#ifndef PERFHIVE_TESTS_QUERY_QUERY_TEST_HOSTS_H_
#define PERFHIVE_TESTS_QUERY_QUERY_TEST_HOSTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "query/host_samples.h"

namespace perfhive::query::testing {

// 2026-11-22T10:00:00Z.
inline constexpr int64_t kStartNs = 1'795'341'600LL * 1'000'000'000;
inline constexpr int64_t kSecondNs = 1'000'000'000;
inline constexpr int64_t kTicksPerSecond = 10'000'000;  // PerfFreq and 100 ns units

struct TestProcess {
  std::string name;
  uint64_t pid;
  uint64_t start;      // Elapsed Time's raw value: the start in object ticks
  uint64_t cpu_100ns;  // % Processor Time's raw value
};

inline std::shared_ptr<const TitleDatabase> EnglishTitles() {
  auto titles = std::make_shared<TitleDatabase>();
  titles->AddName(title_index::kProcess, "Process");
  titles->AddName(title_index::kProcessor, "Processor");
  titles->AddName(title_index::kPercentProcessorTime, "% Processor Time");
  titles->AddHelp(title_index::kPercentProcessorTime + 1, "Busy time.");
  titles->AddName(title_index::kElapsedTime, "Elapsed Time");
  titles->AddName(title_index::kIdProcess, "ID Process");
  titles->AddName(title_index::kInterruptsPerSec, "Interrupts/sec");
  return titles;
}

// Sample `second` (0, 1, ...): block and object clocks at `second` seconds after boot.
inline SnapshotBuilder HostAt(int second) {
  SnapshotBuilder builder;
  const int64_t ticks = (1000 + second) * kTicksPerSecond;
  builder.set_system_name("WINHOST").set_perf_time(ticks).set_perf_freq(kTicksPerSecond);
  builder.set_perf_time_100ns(ticks);
  return builder;
}

inline void AddProcesses(SnapshotBuilder& builder, int second,
                         const std::vector<TestProcess>& processes) {
  ObjectBuilder& object = builder.AddObject(title_index::kProcess);
  object.set_perf_time((1000 + second) * kTicksPerSecond).set_perf_freq(kTicksPerSecond);
  uint32_t cpu = object.AddCounter({title_index::kPercentProcessorTime, winperf::k100NsecTimer});
  uint32_t elapsed = object.AddCounter({title_index::kElapsedTime, winperf::kElapsedTime});
  uint32_t pid = object.AddCounter({title_index::kIdProcess, winperf::kCounterRawcount});
  for (const TestProcess& process : processes) {
    uint32_t i = object.AddInstance(process.name);
    object.SetValue(i, cpu, process.cpu_100ns);
    object.SetValue(i, elapsed, process.start);
    object.SetValue(i, pid, process.pid);
  }
}

// Processors "0", "1": % Processor Time (PERF_100NSEC_TIMER_INV, the raw value is idle time)
// and Interrupts/sec.
inline void AddProcessors(SnapshotBuilder& builder, const std::vector<uint64_t>& idle_100ns,
                          const std::vector<uint64_t>& interrupts) {
  ObjectBuilder& object = builder.AddObject(title_index::kProcessor);
  uint32_t cpu = object.AddCounter({title_index::kPercentProcessorTime, winperf::k100NsecTimerInv});
  uint32_t irq = object.AddCounter({title_index::kInterruptsPerSec, winperf::kCounterCounter});
  for (size_t n = 0; n < idle_100ns.size(); ++n) {
    uint32_t i = object.AddInstance(std::to_string(n));
    object.SetValue(i, cpu, idle_100ns[n]);
    object.SetValue(i, irq, interrupts[n]);
  }
}

inline HostSample SampleOf(const SnapshotBuilder& builder, int second,
                           std::shared_ptr<const TitleDatabase> english,
                           std::shared_ptr<const TitleDatabase> localized = nullptr) {
  return {kStartNs + second * kSecondNs,
          std::make_shared<const std::vector<uint8_t>>(builder.Build()), std::move(english),
          std::move(localized)};
}

}  // namespace perfhive::query::testing

#endif  // PERFHIVE_TESTS_QUERY_QUERY_TEST_HOSTS_H_
