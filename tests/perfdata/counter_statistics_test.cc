// Statistics over runs of raw samples, computed by hand.

#include "perfdata/counter_statistics.h"

#include <gtest/gtest.h>

#include <vector>

#include "perfdata/winperf.h"

namespace perfhive {
namespace {

namespace wp = winperf;

RawCounter At(uint32_t type, uint64_t value, int64_t seconds) {
  RawCounter raw;
  raw.type = type;
  raw.size = 8;
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
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.max, 1000);
  EXPECT_DOUBLE_EQ(s.mean, 280);
}

TEST(CounterStatisticsTest, InstantaneousMeanIsArithmetic) {
  std::vector<RawCounter> run = {At(wp::kCounterLargeRawcount, 10, 0),
                                 At(wp::kCounterLargeRawcount, 30, 1),
                                 At(wp::kCounterLargeRawcount, 20, 7)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.min, 10);
  EXPECT_DOUBLE_EQ(s.max, 30);
  EXPECT_DOUBLE_EQ(s.mean, 20);
}

TEST(CounterStatisticsTest, AResetIsLeftOutAndTheMeanFallsBackToTheValidIntervals) {
  // 0 → 50 (50/s) → 10 (went backwards: left out) → 40 (30/s). Whole run 0 → 40 would read 10/s
  // across the reset; the mean of the valid intervals is 40.
  std::vector<RawCounter> run = {At(wp::kCounterBulkCount, 0, 0), At(wp::kCounterBulkCount, 50, 1),
                                 At(wp::kCounterBulkCount, 10, 2),
                                 At(wp::kCounterBulkCount, 40, 3)};
  CounterStatistics s = ComputeCounterStatistics(run);
  EXPECT_EQ(s.count, 2u);
  EXPECT_DOUBLE_EQ(s.min, 30);
  EXPECT_DOUBLE_EQ(s.max, 50);
  // 0 → 40 is still forward, so the whole-run value is used: 40 bytes / 3 s.
  EXPECT_DOUBLE_EQ(s.mean, 40.0 / 3);
  // With the last sample below the first, the whole run is invalid: the mean of the valid
  // intervals. 20 → 50 (30/s) → 10 (backwards) → 15 (5/s): (30 + 5) / 2 = 17.5.
  run = {At(wp::kCounterBulkCount, 20, 0), At(wp::kCounterBulkCount, 50, 1),
         At(wp::kCounterBulkCount, 10, 2), At(wp::kCounterBulkCount, 15, 3)};
  CounterStatistics t = ComputeCounterStatistics(run);
  EXPECT_EQ(t.count, 2u);
  EXPECT_DOUBLE_EQ(t.mean, 17.5);
}

TEST(CounterStatisticsTest, NothingValidIsInvalidData) {
  std::vector<RawCounter> one = {At(wp::kCounterBulkCount, 5, 0)};
  EXPECT_EQ(ComputeCounterStatistics(one).status, PdhStatus::kInvalidData);
  EXPECT_EQ(ComputeCounterStatistics({}).count, 0u);
}

}  // namespace
}  // namespace perfhive
