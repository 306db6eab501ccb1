// Every counter type with values computed by hand (the arithmetic is in the comments), and the
// cases without a value: first sample, zero or negative time, counters going backwards, 32-bit
// wrap, missing base, mismatched sizes.

#include "perfdata/calculator.h"

#include <gtest/gtest.h>

#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

namespace wp = winperf;

// A sample at block time `tb` ticks (PerfFreq 10 MHz), 100ns time `t100`, object time `to`
// (object frequency 1 MHz).
RawCounter Sample(uint32_t type, uint64_t value, int64_t tb = 0, int64_t t100 = 0, int64_t to = 0,
                  uint32_t size = 0) {
  RawCounter raw;
  raw.type = type;
  raw.size = size != 0 ? size : ((type & wp::kSizeMask) == wp::kSizeLarge ? 8 : 4);
  raw.has_value = true;
  raw.value = value;
  raw.times = {tb, 10'000'000, t100, to, 1'000'000};
  return raw;
}

RawCounter WithBase(RawCounter raw, uint64_t base, uint32_t base_size = 4) {
  raw.has_base = true;
  raw.base = base;
  raw.base_size = base_size;
  return raw;
}

RawCounter WithCount(RawCounter raw, uint64_t count) {
  raw.has_multi_count = true;
  raw.multi_count = count;
  return raw;
}

void ExpectValue(const CounterValue& v, double expected) {
  EXPECT_EQ(v.status, PdhStatus::kValidData) << PdhStatusName(v.status);
  EXPECT_DOUBLE_EQ(v.value, expected);
}

TEST(CalculatorTest, RawCountsAreTheValue) {
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterRawcount, 42), nullptr), 42);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterLargeRawcount, 1ull << 40), nullptr),
              1099511627776.0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterRawcountHex, 0xFF), nullptr), 255);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterLargeRawcountHex, 0x100), nullptr), 256);
}

TEST(CalculatorTest, RatesPerSecondUseTheBlockTimeAndFrequency) {
  // 500 events in 2 s (20,000,000 ticks at 10 MHz) = 250/s.
  for (uint32_t type : {wp::kCounterCounter, wp::kCounterBulkCount, wp::kSampleCounter}) {
    RawCounter older = Sample(type, 1000, 10'000'000);
    RawCounter newer = Sample(type, 1500, 30'000'000);
    ExpectValue(ComputeCounterValue(newer, &older), 250);
  }
}

TEST(CalculatorTest, FirstSampleOfATwoSampleTypeIsInvalidData) {
  CounterValue v = ComputeCounterValue(Sample(wp::kCounterCounter, 5, 100), nullptr);
  EXPECT_EQ(v.status, PdhStatus::kInvalidData);
  EXPECT_EQ(PdhStatusName(v.status), "PDH_CSTATUS_INVALID_DATA");
}

TEST(CalculatorTest, ZeroAndNegativeTimeDeltasAreStatuses) {
  RawCounter older = Sample(wp::kCounterCounter, 5, 100);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterCounter, 9, 100), &older).status,
            PdhStatus::kInvalidData);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterCounter, 9, 50), &older).status,
            PdhStatus::kNegativeTimebase);
}

TEST(CalculatorTest, A64BitCounterGoingBackwardsIsNegativeValue) {
  RawCounter older = Sample(wp::kCounterBulkCount, 1000, 0);
  CounterValue v = ComputeCounterValue(Sample(wp::kCounterBulkCount, 10, 10'000'000), &older);
  EXPECT_EQ(v.status, PdhStatus::kNegativeValue);
  EXPECT_EQ(PdhStatusName(v.status), "PDH_CALC_NEGATIVE_VALUE");
}

TEST(CalculatorTest, A32BitCounterThatWrappedOnceIsComputedInItsWidth) {
  // 0xFFFFFF00 → 0x100: 0x200 = 512 events in 1 s.
  RawCounter older = Sample(wp::kCounterCounter, 0xFFFFFF00, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterCounter, 0x100, 10'000'000), &older), 512);
  // A DWORD counter stored in 8 bytes (Samba) is computed in 8 bytes: no wrap to assume.
  RawCounter older8 = Sample(wp::kCounterCounter, 0xFFFFFF00, 0, 0, 0, 8);
  EXPECT_EQ(
      ComputeCounterValue(Sample(wp::kCounterCounter, 0x100, 10'000'000, 0, 0, 8), &older8).status,
      PdhStatus::kNegativeValue);
}

TEST(CalculatorTest, A32BitBaseThatWrappedStillGivesAFraction) {
  // PERF_SAMPLE_FRACTION: base 0xFFFFFFF0 → 0x10 is 0x20 = 32 samples, 8 hits: 25%. Without the
  // wrap handling the base difference would be negative or huge (the >100% CPU of other tools).
  RawCounter older = WithBase(Sample(wp::kSampleFraction, 100), 0xFFFFFFF0);
  RawCounter newer = WithBase(Sample(wp::kSampleFraction, 108), 0x10);
  ExpectValue(ComputeCounterValue(newer, &older), 25);
}

TEST(CalculatorTest, TimersUseTheirOwnTimeBase) {
  // PERF_COUNTER_TIMER: 2,500,000 busy ticks of 10,000,000 → 25%.
  RawCounter t0 = Sample(wp::kCounterTimer, 1'000'000, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterTimer, 3'500'000, 10'000'000), &t0), 25);
  // PERF_COUNTER_TIMER_INV: 7,500,000 idle ticks of 10,000,000 → 100·(1 − 0.75) = 25%.
  RawCounter i0 = Sample(wp::kCounterTimerInv, 0, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterTimerInv, 7'500'000, 10'000'000), &i0), 25);
  // PERF_100NSEC_TIMER over PerfTime100nSec (block ticks ignored): 4e6 of 1e7 → 40%.
  RawCounter n0 = Sample(wp::k100NsecTimer, 0, 0, 1'000'000'000);
  ExpectValue(ComputeCounterValue(Sample(wp::k100NsecTimer, 4'000'000, 999, 1'010'000'000), &n0),
              40);
  // PERF_100NSEC_TIMER_INV: idle 9e6 of 1e7 → 10%.
  RawCounter v0 = Sample(wp::k100NsecTimerInv, 0, 0, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::k100NsecTimerInv, 9'000'000, 0, 10'000'000), &v0), 10);
  // PERF_OBJ_TIME_TIMER over the object's time: 300 of 1,000 → 30%.
  RawCounter o0 = Sample(wp::kObjTimeTimer, 0, 0, 0, 5'000);
  ExpectValue(ComputeCounterValue(Sample(wp::kObjTimeTimer, 300, 0, 0, 6'000), &o0), 30);
}

TEST(CalculatorTest, PercentagesAreNotCappedUnlessAsked) {
  // A process using 2.5 cores: 25,000,000 of 10,000,000 → 250%.
  RawCounter p0 = Sample(wp::k100NsecTimer, 0, 0, 0);
  RawCounter p1 = Sample(wp::k100NsecTimer, 25'000'000, 0, 10'000'000);
  ExpectValue(ComputeCounterValue(p1, &p0), 250);
  ExpectValue(ComputeCounterValue(p1, &p0, {.cap_100 = true}), 100);
}

TEST(CalculatorTest, InverseTimerJitterIsClampedAtZero) {
  // Idle 10,000,100 of 10,000,000 (the clock read a hair early): 0%, not −0.001%.
  RawCounter i0 = Sample(wp::k100NsecTimerInv, 0, 0, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::k100NsecTimerInv, 10'000'100, 0, 10'000'000), &i0), 0);
}

TEST(CalculatorTest, MultiTimers) {
  // PERF_100NSEC_MULTI_TIMER: 30,000,000 busy of 10,000,000 across 4 items → 100·3/4 = 75%.
  RawCounter m0 = WithCount(Sample(wp::k100NsecMultiTimer, 0, 0, 0), 4);
  RawCounter m1 = WithCount(Sample(wp::k100NsecMultiTimer, 30'000'000, 0, 10'000'000), 4);
  ExpectValue(ComputeCounterValue(m1, &m0), 75);
  // PERF_100NSEC_MULTI_TIMER_INV: idle 30,000,000 of 10,000,000 over 4 → 100·(4 − 3) = 100%.
  RawCounter n0 = WithCount(Sample(wp::k100NsecMultiTimerInv, 0, 0, 0), 4);
  RawCounter n1 = WithCount(Sample(wp::k100NsecMultiTimerInv, 30'000'000, 0, 10'000'000), 4);
  ExpectValue(ComputeCounterValue(n1, &n0), 100);
  // PERF_COUNTER_MULTI_TIMER over block ticks: 10,000,000 of 10,000,000 across 2 → 50%.
  RawCounter c0 = WithCount(Sample(wp::kCounterMultiTimer, 0, 0), 2);
  RawCounter c1 = WithCount(Sample(wp::kCounterMultiTimer, 10'000'000, 10'000'000), 2);
  ExpectValue(ComputeCounterValue(c1, &c0), 50);
  // PERF_COUNTER_MULTI_TIMER_INV: idle 15,000,000 of 10,000,000 across 2 → 100·(2 − 1.5) = 50%.
  RawCounter d0 = WithCount(Sample(wp::kCounterMultiTimerInv, 0, 0), 2);
  RawCounter d1 = WithCount(Sample(wp::kCounterMultiTimerInv, 15'000'000, 10'000'000), 2);
  ExpectValue(ComputeCounterValue(d1, &d0), 50);
  // No count, no value; a zero count is a zero denominator.
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterMultiTimer, 1, 1), &c0).status,
            PdhStatus::kInvalidData);
  RawCounter z1 = WithCount(Sample(wp::kCounterMultiTimer, 10, 10), 0);
  EXPECT_EQ(ComputeCounterValue(z1, &c0).status, PdhStatus::kNegativeDenominator);
}

TEST(CalculatorTest, QueueLengths) {
  // PERF_COUNTER_QUEUELEN_TYPE: queue-length·ticks 30,000,000 over 10,000,000 ticks → 3.
  for (uint32_t type : {wp::kCounterQueueLen, wp::kCounterLargeQueueLen}) {
    RawCounter q0 = Sample(type, 0, 0);
    ExpectValue(ComputeCounterValue(Sample(type, 30'000'000, 10'000'000), &q0), 3);
  }
  // 100 ns: 5,000,000 over 10,000,000 → 0.5.
  RawCounter h0 = Sample(wp::kCounter100NsQueueLen, 0, 0, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounter100NsQueueLen, 5'000'000, 0, 10'000'000), &h0),
              0.5);
  // Object time: 2,000 over 1,000 → 2.
  RawCounter o0 = Sample(wp::kCounterObjTimeQueueLen, 0, 0, 0, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterObjTimeQueueLen, 2'000, 0, 0, 1'000), &o0), 2);
}

TEST(CalculatorTest, FractionsAndAverages) {
  // PERF_RAW_FRACTION: 25 of 200 → 12.5%, one sample; PERF_LARGE_RAW_FRACTION likewise.
  ExpectValue(ComputeCounterValue(WithBase(Sample(wp::kRawFraction, 25), 200), nullptr), 12.5);
  ExpectValue(ComputeCounterValue(
                  WithBase(Sample(wp::kLargeRawFraction, 1ull << 33), 1ull << 35, 8), nullptr),
              25);
  // A zero base (an empty volume) is 0%, as Performance Monitor shows it.
  ExpectValue(ComputeCounterValue(WithBase(Sample(wp::kRawFraction, 0), 0), nullptr), 0);
  // PERF_AVERAGE_TIMER: 5,000,000 ticks over 100 operations at 10 MHz → 0.5 s / 100 = 5 ms.
  RawCounter a0 = WithBase(Sample(wp::kAverageTimer, 1'000'000, 0), 50);
  RawCounter a1 = WithBase(Sample(wp::kAverageTimer, 6'000'000, 10'000'000), 150);
  ExpectValue(ComputeCounterValue(a1, &a0), 0.005);
  // No operations in the interval: 0, not a division by zero.
  ExpectValue(ComputeCounterValue(a0, &a0), 0);
  // PERF_AVERAGE_BULK: 819,200 bytes over 200 transfers → 4,096 bytes.
  RawCounter b0 = WithBase(Sample(wp::kAverageBulk, 0), 0);
  RawCounter b1 = WithBase(Sample(wp::kAverageBulk, 819'200), 200);
  ExpectValue(ComputeCounterValue(b1, &b0), 4096);
  // PERF_SAMPLE_FRACTION: 30 of 60 samples → 50%.
  RawCounter s0 = WithBase(Sample(wp::kSampleFraction, 10), 40);
  RawCounter s1 = WithBase(Sample(wp::kSampleFraction, 40), 100);
  ExpectValue(ComputeCounterValue(s1, &s0), 50);
}

TEST(CalculatorTest, MissingBaseIsInvalidData) {
  CounterValue v = ComputeCounterValue(Sample(wp::kRawFraction, 25), nullptr);
  EXPECT_EQ(v.status, PdhStatus::kInvalidData);
  RawCounter a0 = Sample(wp::kAverageTimer, 0);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kAverageTimer, 10, 10), &a0).status,
            PdhStatus::kInvalidData);
}

TEST(CalculatorTest, PrecisionTimersUseTheirTimestampBase) {
  // PERF_PRECISION_100NS_TIMER with a FILETIME base: 2,000,000 busy of 10,000,000 → 20%.
  RawCounter p0 =
      WithBase(Sample(wp::kPrecision100NsTimer, 129'203'443'492'420), 133'692'341'756'361'838, 8);
  RawCounter p1 =
      WithBase(Sample(wp::kPrecision100NsTimer, 129'203'445'492'420), 133'692'341'766'361'838, 8);
  ExpectValue(ComputeCounterValue(p1, &p0), 20);
  for (uint32_t type : {wp::kPrecisionSystemTimer, wp::kPrecisionObjectTimer}) {
    RawCounter q0 = WithBase(Sample(type, 0), 1000, 8);
    RawCounter q1 = WithBase(Sample(type, 50), 1200, 8);
    ExpectValue(ComputeCounterValue(q1, &q0), 25);  // 50 of 200
  }
  // The timestamp going backwards: a negative denominator.
  RawCounter back = WithBase(Sample(wp::kPrecisionSystemTimer, 60), 900, 8);
  RawCounter q0 = WithBase(Sample(wp::kPrecisionSystemTimer, 0), 1000, 8);
  EXPECT_EQ(ComputeCounterValue(back, &q0).status, PdhStatus::kNegativeDenominator);
}

TEST(CalculatorTest, ElapsedTimeUsesTheObjectClock) {
  // Started at object time 1,000,000 (1 MHz), now 61,000,000 → 60 s.
  ExpectValue(ComputeCounterValue(Sample(wp::kElapsedTime, 1'000'000, 0, 0, 61'000'000), nullptr),
              60);
  // A producer without object times (Samba): the block's clock, 10 MHz: 5e7 ticks → 5 s.
  RawCounter samba = Sample(wp::kElapsedTime, 50'000'000, 100'000'000);
  samba.times.object_freq = 0;
  ExpectValue(ComputeCounterValue(samba, nullptr), 5);
  // A start in the future: negative.
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kElapsedTime, 100, 0, 0, 50), nullptr).status,
            PdhStatus::kNegativeValue);
}

TEST(CalculatorTest, DeltasAreTheDifference) {
  RawCounter d0 = Sample(wp::kCounterDelta, 0xFFFFFFFE);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterDelta, 3), &d0), 5);  // wrapped once
  RawCounter l0 = Sample(wp::kCounterLargeDelta, 100);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterLargeDelta, 350), &l0), 250);
}

TEST(CalculatorTest, TextNoDataHistogramAndBasesHaveNoValue) {
  for (uint32_t type : {wp::kCounterText, wp::kCounterNodata, wp::kCounterHistogramType,
                        wp::kAverageBase, wp::kRawBase, wp::kLargeRawBase, wp::kCounterMultiBase}) {
    EXPECT_EQ(ComputeCounterValue(Sample(type, 1), nullptr).status, PdhStatus::kNoData) << type;
  }
}

TEST(CalculatorTest, MismatchedSamplesAreInvalid) {
  RawCounter older = Sample(wp::kCounterCounter, 1, 0);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterBulkCount, 2, 10), &older).status,
            PdhStatus::kInvalidData);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterCounter, 2, 10, 0, 0, 8), &older).status,
            PdhStatus::kInvalidData);
}

TEST(CalculatorTest, ScaleAndTimes1000) {
  // DefaultScale −3 (shown ×0.001): 5,000 → 5; NOSCALE keeps 5,000; ×1000 gives 5,000.
  RawCounter raw = Sample(wp::kCounterRawcount, 5000);
  raw.default_scale = -3;
  ExpectValue(ComputeCounterValue(raw, nullptr), 5);
  ExpectValue(ComputeCounterValue(raw, nullptr, {.no_scale = true}), 5000);
  ExpectValue(ComputeCounterValue(raw, nullptr, {.times_1000 = true}), 5000);
  CounterValue v = ComputeCounterValue(Sample(wp::kCounterRawcount, 7), nullptr);
  v.value = 7.9;
  EXPECT_EQ(v.AsLong(), 7);
  EXPECT_EQ(v.AsLarge(), 7);
}

TEST(RawCounterTest, ReadsBaseFromTheNextDefinitionAndMultiCountAfterTheValue) {
  SnapshotBuilder builder;
  ObjectBuilder& disk = builder.AddObject(234);
  uint32_t busy = disk.AddCounter({.name_index = 200, .type = wp::kPrecision100NsTimer});
  uint32_t stamp = disk.AddCounter({.name_index = 200, .type = wp::kPrecisionTimestamp});
  uint32_t multi = disk.AddCounter({.name_index = 300, .type = wp::k100NsecMultiTimer});
  uint32_t lonely = disk.AddCounter({.name_index = 408, .type = wp::kRawFraction});
  uint32_t i = disk.AddInstance("0 C:");
  disk.SetValue(i, busy, 77);
  disk.SetValue(i, stamp, 133'692'341'756'361'838);
  disk.SetValue(i, multi, 5);
  disk.SetMultiCount(i, multi, 8);
  disk.SetValue(i, lonely, 3);
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes);
  ASSERT_TRUE(snapshot.ok());
  ObjectView object = *snapshot->objects().begin();
  std::vector<CounterDefinitionView> defs(object.counters().begin(), object.counters().end());
  CounterBlockView block = (*object.instances().begin()).counters();
  SampleTimes times = SampleTimes::Of(*snapshot, object);

  RawCounter b = ReadRawCounter(times, defs[0], &defs[1], block);
  EXPECT_EQ(b.value, 77u);
  ASSERT_TRUE(b.has_base);
  EXPECT_EQ(b.base, 133'692'341'756'361'838u);
  EXPECT_EQ(b.base_size, 8u);
  RawCounter m = ReadRawCounter(times, defs[2], &defs[3], block);
  ASSERT_TRUE(m.has_multi_count);
  EXPECT_EQ(m.multi_count, 8u);
  RawCounter f = ReadRawCounter(times, defs[3], nullptr, block);  // last: no base follows
  EXPECT_FALSE(f.has_base);
  EXPECT_EQ(ComputeCounterValue(f, nullptr).status, PdhStatus::kInvalidData);
}

}  // namespace
}  // namespace perfhive
