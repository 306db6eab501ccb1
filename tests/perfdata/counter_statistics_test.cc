// Statistics over runs of raw samples, computed by hand in the comments.

#include "perfdata/counter_statistics.h"

#include <gtest/gtest.h>

#include <vector>

#include "perfdata/winperf.h"
#include "tests/perfdata/raw_counter_test_util.h"

namespace perfhive {
namespace {

namespace wp = winperf;
using testing::WithBase;

// A sample at `seconds` on a 10 MHz block clock (the 100 ns clock reads the same).
RawCounter At(uint32_t type, uint64_t value, int64_t seconds, uint32_t size = 8) {
  RawCounter raw;
  raw.type = type;
  raw.size = size;
  raw.has_value = true;
  raw.value = value;
  raw.times = {seconds * 10'000'000, 10'000'000, seconds * 10'000'000, 0, 0};
  return raw;
}

TEST(CounterStatisticsTest, RateMeanIsOverTheWholeRunNotTheMeanOfIntervals) {
  // Bytes: 0 at t=0, 100 at t=1 (100/s), 400 at t=4 (300 in 3 s: 100/s), 1,400 at t=5
  // (1,000/s). Intervals: 100, 100, 1,000 → min 100, max 1,000; the mean of the intervals would
  // be 400, but the whole run is 1,400 bytes / 5 s = 280/s.
  std::vector<RawCounter> run = {At(wp::kCounterBulkCount, 0, 0), At(wp::kCounterBulkCount, 100, 1),
                                 At(wp::kCounterBulkCount, 400, 4),
                                 At(wp::kCounterBulkCount, 1400, 5)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.status, PdhStatus::kValidData);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.invalid, 0u);
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.max, 1000);
  EXPECT_DOUBLE_EQ(s.mean, 280);
}

TEST(CounterStatisticsTest, TimerMeanIsTheBusyShareOfTheWholeRun) {
  // % busy (PERF_100NSEC_TIMER): 9,000,000 of 10,000,000 in the first second (90%), then
  // 2,000,000 of 20,000,000 in the next two (10%). Whole run: 11,000,000 of 30,000,000 = 36.67%,
  // not (90 + 10) / 2 = 50%.
  std::vector<RawCounter> run = {At(wp::k100NsecTimer, 0, 0), At(wp::k100NsecTimer, 9'000'000, 1),
                                 At(wp::k100NsecTimer, 11'000'000, 3)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 2u);
  EXPECT_DOUBLE_EQ(s.min, 10);
  EXPECT_DOUBLE_EQ(s.max, 90);
  EXPECT_DOUBLE_EQ(s.mean, 100.0 * 11 / 30);
  // With the cap asked for, each value and the mean are capped: 25,000,000 of 10,000,000 (250%)
  // → 100.
  run.push_back(At(wp::k100NsecTimer, 36'000'000, 4));
  CounterStatistics capped = ComputeCounterStatistics(run, {.cap_100 = true});
  EXPECT_DOUBLE_EQ(capped.max, 100);
  // Whole run: 36,000,000 of 40,000,000 = 90%.
  EXPECT_DOUBLE_EQ(capped.mean, 90);
}

TEST(CounterStatisticsTest, AverageTimerMeanIsPerOperationOverTheRun) {
  // Avg. Disk sec/Read: 10,000,000 ticks (1 s) over 100 reads → 0.01 s; an idle interval (no
  // reads) → 0; 30,000,000 ticks over 100 reads → 0.03 s. Per read over the run:
  // 4 s / 200 reads = 0.02 s (the mean of the three values would be 0.0133).
  std::vector<RawCounter> run = {WithBase(At(wp::kAverageTimer, 0, 0, 4), 0),
                                 WithBase(At(wp::kAverageTimer, 10'000'000, 1, 4), 100),
                                 WithBase(At(wp::kAverageTimer, 10'000'000, 2, 4), 100),
                                 WithBase(At(wp::kAverageTimer, 40'000'000, 3, 4), 200)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.min, 0);
  EXPECT_DOUBLE_EQ(s.max, 0.03);
  EXPECT_DOUBLE_EQ(s.mean, 0.02);
}

TEST(CounterStatisticsTest, InstantaneousAndDeltaMeansAreArithmetic) {
  std::vector<RawCounter> run = {At(wp::kCounterLargeRawcount, 10, 0),
                                 At(wp::kCounterLargeRawcount, 30, 1),
                                 At(wp::kCounterLargeRawcount, 20, 7)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.min, 10);
  EXPECT_DOUBLE_EQ(s.max, 30);
  EXPECT_DOUBLE_EQ(s.mean, 20);  // (10 + 30 + 20) / 3
  // A delta divides by nothing: changes 10, 30 and 0 average 40 / 3 per interval (the summed
  // change, 40, is not a mean).
  std::vector<RawCounter> deltas = {
      At(wp::kCounterLargeDelta, 0, 0), At(wp::kCounterLargeDelta, 10, 1),
      At(wp::kCounterLargeDelta, 40, 2), At(wp::kCounterLargeDelta, 40, 3)};
  CounterStatistics d = ComputeCounterStatistics(deltas);
  EXPECT_EQ(d.count, 3u);
  EXPECT_DOUBLE_EQ(d.min, 0);
  EXPECT_DOUBLE_EQ(d.max, 30);
  EXPECT_DOUBLE_EQ(d.mean, 40.0 / 3);
}

TEST(CounterStatisticsTest, AResetOrAClockStepBackIsLeftOutOfEveryFigure) {
  // 0 → 50 in 1 s (50/s) → 10 (went backwards: left out) → 40 in 1 s (30/s). The valid intervals
  // hold 80 bytes in 2 s: mean 40/s. (First to last would read 40 bytes / 3 s across the reset.)
  std::vector<RawCounter> run = {At(wp::kCounterBulkCount, 0, 0), At(wp::kCounterBulkCount, 50, 1),
                                 At(wp::kCounterBulkCount, 10, 2),
                                 At(wp::kCounterBulkCount, 40, 3)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.status, PdhStatus::kValidData);
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.invalid, 1u);
  EXPECT_DOUBLE_EQ(s.min, 30);
  EXPECT_DOUBLE_EQ(s.max, 50);
  EXPECT_DOUBLE_EQ(s.mean, 40);
  // The clock stepping back from t=2 to t=1: 0 → 100 in 2 s (50/s), then left out, then
  // 150 → 250 from t=1 to t=3 (50/s): 200 bytes in 4 valid seconds, 50/s.
  run = {At(wp::kCounterBulkCount, 0, 0), At(wp::kCounterBulkCount, 100, 2),
         At(wp::kCounterBulkCount, 150, 1), At(wp::kCounterBulkCount, 250, 3)};
  CounterStatistics t = ComputeCounterStatistics(run);
  EXPECT_EQ(t.count, 2u);
  EXPECT_EQ(t.invalid, 1u);
  EXPECT_DOUBLE_EQ(t.mean, 50);
}

TEST(CounterStatisticsTest, A32BitCounterWrappingTwiceOverTheRunKeepsItsMean) {
  // PERF_COUNTER_COUNTER in 4 bytes, every 10 s: 0xF0000000 → 0x60000000 (wraps) → 0xD0000000
  // → 0x40000000 (wraps again). Each interval is 0x70000000 = 1,879,048,192 events in 10 s, so
  // every value and the mean are 187,904,819.2/s. First to last in 32 bits would see only
  // 0x50000000 in 30 s (44,739,242.67/s).
  std::vector<RawCounter> run = {
      At(wp::kCounterCounter, 0xF0000000, 0, 4), At(wp::kCounterCounter, 0x60000000, 10, 4),
      At(wp::kCounterCounter, 0xD0000000, 20, 4), At(wp::kCounterCounter, 0x40000000, 30, 4)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.min, 187'904'819.2);
  EXPECT_DOUBLE_EQ(s.max, 187'904'819.2);
  EXPECT_DOUBLE_EQ(s.mean, 187'904'819.2);
}

TEST(CounterStatisticsTest, ASampleOfAnotherCounterIsInvalid) {
  // 5, then a sample of another type (the definitions changed), then 7: mean 6 over two values.
  std::vector<RawCounter> run = {At(wp::kCounterLargeRawcount, 5, 0),
                                 At(wp::kCounterLargeRawcountHex, 1000, 1),
                                 At(wp::kCounterLargeRawcount, 7, 2)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.invalid, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 6);
  EXPECT_DOUBLE_EQ(s.max, 7);
}

TEST(CounterStatisticsTest, NothingValidIsInvalidData) {
  // One sample of a rate: no interval, nothing invalid either.
  std::vector<RawCounter> one = {At(wp::kCounterBulkCount, 5, 0)};
  CounterStatistics s = ComputeCounterStatistics(one);
  EXPECT_EQ(s.status, PdhStatus::kInvalidData);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.invalid, 0u);
  // Two samples at the same time: one invalid interval.
  std::vector<RawCounter> same = {At(wp::kCounterBulkCount, 5, 0), At(wp::kCounterBulkCount, 9, 0)};
  CounterStatistics t = ComputeCounterStatistics(same);
  EXPECT_EQ(t.status, PdhStatus::kInvalidData);
  EXPECT_EQ(t.invalid, 1u);
  EXPECT_EQ(ComputeCounterStatistics({}).count, 0u);
}

}  // namespace
}  // namespace perfhive
