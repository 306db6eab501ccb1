// HostSimulator on a hand-made layout whose models are known: 32-bit counts wrap as real ones do
// and the rate PDH computes across the wrap is still right; gauges wander around their value
// instead of growing; timers never count more time than passed.

#include "tests/bench/realistic_fleet/host_simulator.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_list.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;
namespace wp = winperf;

constexpr int64_t kFreq = 10'000'000;
constexpr double kEventsPerSecond = 5'000'000;
constexpr uint64_t kGaugeStart = 4096ull * 250'000;  // about 1 GB

// System with three counters: Context Switches/sec (4 bytes, 5 million a second, near the top of
// its range), Available Bytes (a gauge moving by pages), % Processor Time of a busy processor.
std::shared_ptr<const std::vector<MachineLayout>> Layout() {
  MachineLayout machine{.name = "synthetic",
                        .system_name = "SYNTHETIC",
                        .perf_time = 3600 * kFreq,
                        .perf_freq = kFreq,
                        .perf_time_100ns = 130'000'000'000'000'000,
                        .default_object = ti::kSystem,
                        .pair_seconds = 1};
  ObjectLayout system{.name_index = ti::kSystem, .no_instances = true};
  system.counters = {{.name_index = ti::kContextSwitchesPerSec, .type = wp::kCounterCounter},
                     {.name_index = ti::kAvailableBytes, .type = wp::kCounterLargeRawcount},
                     {.name_index = ti::kPercentProcessorTime, .type = wp::k100NsecTimer}};
  InstanceLayout only;
  only.values = {0xFFFF'0000, kGaugeStart, 0};
  only.models = {{.motion = Motion::kEvents, .cumulative = true, .rate = kEventsPerSecond},
                 {.motion = Motion::kGauge, .granularity = 4096, .rate = 4096 * 20},
                 {.motion = Motion::kBusyTime,
                  .clock = Clock::k100Ns,
                  .cumulative = true,
                  .granularity = 156'250,
                  .rate = 0.9}};
  system.instances.push_back(std::move(only));
  machine.objects.push_back(std::move(system));
  const std::map<uint32_t, std::string> names = {
      {1, "1847"}, {ti::kSystem, "System"}, {ti::kContextSwitchesPerSec, "Context Switches/sec"}};
  machine.titles = std::make_shared<const std::vector<uint8_t>>(EncodeTitleList(names));
  machine.names = std::make_shared<const std::map<uint32_t, std::string>>(names);
  return std::make_shared<const std::vector<MachineLayout>>(1, std::move(machine));
}

HostSimulator Host(double activity) {
  const FleetOptions options{.title_change_probability = 0};
  HostProfile profile{
      .name = "SYNTHETIC-000000", .activity = activity, .start_filetime = 134'000'000'000'000'000};
  return HostSimulator(Layout(), profile, options, 1);
}

// The counter at `position` in a sample.
RawCounter CounterOf(const std::vector<uint8_t>& sample, uint32_t position) {
  SnapshotReader reader = SnapshotReader::Open(sample).value();
  ObjectView object = *reader.objects().begin();
  auto definition = object.counters().begin();
  for (uint32_t i = 0; i < position; ++i) ++definition;
  return ReadRawCounter(reader, object, definition, *object.instances().begin());
}

// One step of a counter: its raw values before and after, and what PDH computes of them.
struct Step {
  RawCounter then, now;
  CounterValue value;
};
std::vector<Step> Steps(HostSimulator& host, uint32_t position, int count) {
  std::vector<Step> steps;
  RawCounter then = CounterOf(host.Next().snapshot, position);
  for (int k = 0; k < count; ++k) {
    const RawCounter now = CounterOf(host.Next().snapshot, position);
    steps.push_back({then, now, ComputeCounterValue(now, &then)});
    then = now;
  }
  return steps;
}

TEST(HostSimulatorTest, AThirtyTwoBitCountWrapsAndItsRateStaysRight) {
  HostSimulator host = Host(1);
  int wraps = 0;
  for (const Step& step : Steps(host, 0, 20)) {
    ASSERT_LE(step.now.value, 0xFFFF'FFFFu);
    wraps += step.now.value < step.then.value;
    ASSERT_TRUE(IsSuccess(step.value.status));
    // 50 million a sample wraps every 86 s; the rate is the host's, whatever its mood.
    EXPECT_GT(step.value.value, kEventsPerSecond / 10);
    EXPECT_LT(step.value.value, kEventsPerSecond * 10);
  }
  EXPECT_GE(wraps, 1);
}

TEST(HostSimulatorTest, GaugesWanderAroundTheirValue) {
  HostSimulator host = Host(1);
  uint64_t lowest = kGaugeStart, highest = kGaugeStart;
  for (int k = 0; k < 2000; ++k) {
    const uint64_t value = CounterOf(host.Next().snapshot, 1).value;
    EXPECT_EQ(value % 4096, 0u) << "whole pages";
    lowest = std::min(lowest, value);
    highest = std::max(highest, value);
  }
  EXPECT_LT(lowest, kGaugeStart);
  EXPECT_GT(highest, kGaugeStart);
  // Steps of about 260 KB every 10 s: a free random walk strays some 25 MB in five and a half
  // hours; pulled back towards its value, the gauge keeps within a few of its steady spread
  // (1.4 MB).
  EXPECT_LT(highest - kGaugeStart, 4096u * 3000);
  EXPECT_LT(kGaugeStart - lowest, 4096u * 3000);
}

TEST(HostSimulatorTest, ABusyTimerNeverCountsMoreThanPassed) {
  HostSimulator host = Host(3);
  double total = 0;
  for (const Step& step : Steps(host, 2, 50)) {
    ASSERT_TRUE(IsSuccess(step.value.status));
    EXPECT_GE(step.value.value, 0);
    EXPECT_LE(step.value.value, 100);
    EXPECT_EQ(step.now.value % 156'250, 0u) << "whole clock ticks";
    total += step.value.value;
  }
  // Three times as busy as 90% is as busy as can be.
  EXPECT_GT(total / 50, 95);
}

}  // namespace
}  // namespace perfhive::fleet
