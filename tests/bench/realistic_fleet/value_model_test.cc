// ModelCounter on hand-made pairs: what each kind of counter is read as.

#include "tests/bench/realistic_fleet/value_model.h"

#include <gtest/gtest.h>

#include "perfdata/winperf.h"

namespace perfhive::fleet {
namespace {

namespace wp = winperf;

// Two samples 2 s apart: PerfTime at 10 MHz, PerfTime100nSec a FILETIME, no object clock.
const SampleClocks kOlder{
    .tick = 50'000'000, .tick_freq = 10'000'000, .ns100 = 130'000'000'000'000'000};
const SampleClocks kNewer{
    .tick = 70'000'000, .tick_freq = 10'000'000, .ns100 = 130'000'000'020'000'000};
constexpr double kSeconds = 2;

ValueModel Model(uint32_t type, uint32_t size, uint64_t older, uint64_t newer,
                 const CounterPair* next = nullptr) {
  return ModelCounter({.type = type, .size = size, .older = older, .newer = newer}, nullptr, next,
                      0, kOlder, kNewer, kSeconds);
}

TEST(ValueModelTest, ACountThatDidNotMoveStaysPut) {
  const ValueModel model = Model(wp::kCounterCounter, 4, 1234, 1234);
  EXPECT_EQ(model.motion, Motion::kConstant);
  EXPECT_TRUE(model.cumulative);
}

TEST(ValueModelTest, ACountMovesAtItsRateAndAThirtyTwoBitOneWraps) {
  const ValueModel model = Model(wp::kCounterCounter, 4, 0xFFFF'FFF0, 0x10);
  EXPECT_EQ(model.motion, Motion::kEvents);
  EXPECT_DOUBLE_EQ(model.rate, 0x20 / kSeconds);
}

TEST(ValueModelTest, ByteCountsMoveInTheirLumps) {
  const ValueModel model = Model(wp::kCounterBulkCount, 8, 4096 * 1000, 4096 * 1003);
  EXPECT_EQ(model.motion, Motion::kEvents);
  EXPECT_EQ(model.granularity, 4096u);
  EXPECT_EQ(Model(wp::kCounterBulkCount, 8, 1001, 1003).granularity, 1u);
}

TEST(ValueModelTest, TimersAccumulateTheirShareOfTheirClock) {
  // 0.5 s of 2 s on the 100 ns clock: 25% busy.
  const ValueModel busy = Model(wp::k100NsecTimer, 8, 1'000'000, 6'000'000);
  EXPECT_EQ(busy.motion, Motion::kBusyTime);
  EXPECT_EQ(busy.clock, Clock::k100Ns);
  EXPECT_DOUBLE_EQ(busy.rate, 0.25);
  // An inverse timer counts idle time: 1.5 s idle of 2 s is 25% busy.
  const ValueModel idle = Model(wp::k100NsecTimerInv, 8, 1'000'000, 16'000'000);
  EXPECT_EQ(idle.motion, Motion::kIdleTime);
  EXPECT_DOUBLE_EQ(idle.rate, 0.25);
  // More than the clock advanced (a real disk's % Idle Time) is held at 100%.
  EXPECT_DOUBLE_EQ(Model(wp::k100NsecTimer, 8, 0, 30'000'000).rate, 1.0);
  // A tick timer's share is of PerfTime.
  const ValueModel ticks = Model(wp::kCounterTimer, 8, 0, 10'000'000);
  EXPECT_EQ(ticks.clock, Clock::kTick);
  EXPECT_DOUBLE_EQ(ticks.rate, 0.5);
}

TEST(ValueModelTest, PrecisionTimersFollowTheirTimestampBase) {
  const CounterPair base{.type = wp::kLargeRawBase,
                         .size = 8,
                         .older = 130'000'000'000'000'000,
                         .newer = 130'000'000'020'000'000};
  const ValueModel timer = Model(wp::kPrecision100NsTimer, 8, 0, 2'000'000, &base);
  EXPECT_EQ(timer.motion, Motion::kBusyTime);
  EXPECT_DOUBLE_EQ(timer.rate, 0.1);
  const CounterPair timer_pair{.type = wp::kPrecision100NsTimer, .size = 8, .newer = 2'000'000};
  const ValueModel stamp = ModelCounter(base, &timer_pair, nullptr, 1, kOlder, kNewer, kSeconds);
  EXPECT_EQ(stamp.motion, Motion::kClock);
  EXPECT_EQ(stamp.clock, Clock::k100Ns);
  EXPECT_EQ(stamp.offset, 0);
  // Read off one sample only, a timestamp is still recognised.
  EXPECT_EQ(ModelCounter(base, &timer_pair, nullptr, 1, kOlder, kOlder, 0).motion, Motion::kClock);
}

TEST(ValueModelTest, AveragesGrowByTheirAmountPerEventOfTheBase) {
  const CounterPair base{.type = wp::kAverageBase, .size = 4, .older = 100, .newer = 110};
  const ValueModel average = Model(wp::kAverageBulk, 8, 10'000, 15'120, &base);
  EXPECT_EQ(average.motion, Motion::kPerEvent);
  EXPECT_EQ(average.partner, 1u);
  EXPECT_DOUBLE_EQ(average.rate, 512);
  // No event between the samples: the lifetime average.
  const CounterPair still{.type = wp::kAverageBase, .size = 4, .older = 100, .newer = 100};
  EXPECT_DOUBLE_EQ(Model(wp::kAverageBulk, 8, 10'000, 10'000, &still).rate, 100);
  // The base itself counts events.
  const CounterPair numerator{.type = wp::kAverageBulk, .size = 8, .older = 10'000};
  const ValueModel count = ModelCounter(base, &numerator, nullptr, 1, kOlder, kNewer, kSeconds);
  EXPECT_EQ(count.motion, Motion::kEvents);
  EXPECT_TRUE(count.cumulative);
}

TEST(ValueModelTest, GaugesWanderAndFractionsStayUnderTheirBase) {
  const ValueModel gauge = Model(wp::kCounterLargeRawcount, 8, 4096 * 501, 4096 * 503);
  EXPECT_EQ(gauge.motion, Motion::kGauge);
  EXPECT_FALSE(gauge.cumulative);
  EXPECT_EQ(gauge.granularity, 4096u);
  const CounterPair base{.type = wp::kRawBase, .size = 4, .older = 1000, .newer = 1000};
  const ValueModel fraction = Model(wp::kRawFraction, 4, 300, 310, &base);
  EXPECT_EQ(fraction.motion, Motion::kGauge);
  EXPECT_EQ(fraction.partner, 1u);
  // A fraction's base is a level too, whatever its size flag: a host with another uptime keeps it.
  const CounterPair numerator{.type = wp::kLargeRawFraction, .size = 8, .older = 10'240};
  const CounterPair large_base{
      .type = wp::kLargeRawBase, .size = 8, .older = 10'240, .newer = 10'240};
  EXPECT_FALSE(
      ModelCounter(large_base, &numerator, nullptr, 1, kOlder, kNewer, kSeconds).cumulative);
}

TEST(ValueModelTest, StartTimesAreKeptAsAnAge) {
  const ValueModel started = Model(wp::kElapsedTime, 8, 50'000'000 - 30'000'000, 20'000'000);
  EXPECT_EQ(started.motion, Motion::kStartTime);
  EXPECT_EQ(started.clock, Clock::kTick);
  EXPECT_EQ(started.offset, 30'000'000);
}

TEST(ValueModelTest, TextHasNoMotion) {
  EXPECT_EQ(Model(wp::kCounterText, 16, 0, 0).motion, Motion::kConstant);
}

}  // namespace
}  // namespace perfhive::fleet
