// Every counter type with values computed by hand (the arithmetic is in the comments), and the
// cases without a value: first sample, zero or negative time, counters going backwards, 32-bit
// wrap of values and bases, missing base, mismatched sizes. Expected statuses and codes come
// from counter-types.md and docs/counter_math.md, never from the code under test.

#include "perfdata/calculator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"
#include "tests/perfdata/raw_counter_test_util.h"

namespace perfhive {
namespace {

namespace wp = winperf;
using testing::WithBase;

// A sample at block time `tb` ticks (PerfFreq 10 MHz), 100ns time `t100`, object time `to`
// (object frequency 1 MHz); `size` 0 means the type's nominal size.
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

RawCounter WithCount(RawCounter raw, uint64_t count) {
  raw.has_multi_count = true;
  raw.multi_count = count;
  return raw;
}

void ExpectValue(const CounterValue& v, double expected) {
  EXPECT_EQ(v.status, PdhStatus::kValidData) << DescribePdhStatus(v.status);
  EXPECT_DOUBLE_EQ(v.value, expected);
}

constexpr uint32_t kTwoSampleTypes[] = {wp::kCounterCounter,       wp::kCounterBulkCount,
                                        wp::kSampleCounter,        wp::kCounterTimer,
                                        wp::kCounterTimerInv,      wp::k100NsecTimer,
                                        wp::k100NsecTimerInv,      wp::kObjTimeTimer,
                                        wp::kCounterMultiTimer,    wp::kCounterMultiTimerInv,
                                        wp::k100NsecMultiTimer,    wp::k100NsecMultiTimerInv,
                                        wp::kCounterQueueLen,      wp::kCounterLargeQueueLen,
                                        wp::kCounter100NsQueueLen, wp::kCounterObjTimeQueueLen,
                                        wp::kSampleFraction,       wp::kAverageTimer,
                                        wp::kAverageBulk,          wp::kCounterDelta,
                                        wp::kCounterLargeDelta,    wp::kPrecisionSystemTimer,
                                        wp::kPrecision100NsTimer,  wp::kPrecisionObjectTimer};

TEST(CalculatorTest, RawCountsAreTheValue) {
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterRawcount, 42), nullptr), 42);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterLargeRawcount, 1ull << 40), nullptr),
              1099511627776.0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterRawcountHex, 0xFF), nullptr), 255);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterLargeRawcountHex, 0x100), nullptr), 256);
  // A DWORD count at its top is 4,294,967,295, not −1.
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterRawcount, 0xFFFFFFFF), nullptr), 4294967295.0);
}

TEST(CalculatorTest, RatesPerSecondUseTheBlockTimeAndFrequency) {
  // 500 events in 2 s (20,000,000 ticks at 10 MHz) = 250/s.
  for (uint32_t type : {wp::kCounterCounter, wp::kCounterBulkCount, wp::kSampleCounter}) {
    RawCounter older = Sample(type, 1000, 10'000'000);
    RawCounter newer = Sample(type, 1500, 30'000'000);
    ExpectValue(ComputeCounterValue(newer, &older), 250);
  }
  // The newer sample's frequency: 30 events over 3,000 ticks at 1 kHz (3 s) → 10/s.
  RawCounter older = Sample(wp::kCounterCounter, 0, 1'000);
  RawCounter newer = Sample(wp::kCounterCounter, 30, 4'000);
  older.times.perf_freq = newer.times.perf_freq = 1'000;
  ExpectValue(ComputeCounterValue(newer, &older), 10);
}

TEST(CalculatorTest, FirstSampleOfEveryTwoSampleTypeIsInvalidData) {
  for (uint32_t type : kTwoSampleTypes) {
    EXPECT_TRUE(NeedsTwoSamples(type)) << std::hex << type;
    RawCounter first = WithCount(WithBase(Sample(type, 5, 100, 100, 100), 7), 2);
    CounterValue v = ComputeCounterValue(first, nullptr);
    EXPECT_EQ(v.status, PdhStatus::kInvalidData) << std::hex << type;
  }
  for (uint32_t type : {wp::kCounterRawcount, wp::kCounterLargeRawcount, wp::kRawFraction,
                        wp::kLargeRawFraction, wp::kElapsedTime, wp::kCounterText}) {
    EXPECT_FALSE(NeedsTwoSamples(type)) << std::hex << type;
  }
}

TEST(CalculatorTest, ATimeThatStoodStillOrWentBackIsANegativeDenominator) {
  // PDH divides by the time difference: zero (two reads in the same tick) or negative is a
  // bad denominator, PDH_CALC_NEGATIVE_DENOMINATOR, for every clock a type can use.
  RawCounter older = Sample(wp::kCounterCounter, 5, 100);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterCounter, 9, 100), &older).status,
            PdhStatus::kNegativeDenominator);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterCounter, 9, 50), &older).status,
            PdhStatus::kNegativeDenominator);
  RawCounter n0 = Sample(wp::k100NsecTimer, 0, 0, 500);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::k100NsecTimer, 1, 9'999, 500), &n0).status,
            PdhStatus::kNegativeDenominator);
  RawCounter o0 = Sample(wp::kObjTimeTimer, 0, 0, 0, 500);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kObjTimeTimer, 1, 9'999, 9'999, 400), &o0).status,
            PdhStatus::kNegativeDenominator);
  EXPECT_EQ(DescribePdhStatus(PdhStatus::kNegativeDenominator),
            "PDH_CALC_NEGATIVE_DENOMINATOR (0x800007D6)");
}

TEST(CalculatorTest, ANonPositiveFrequencyIsANegativeTimebase) {
  // PDH calls the frequency the counter's time base (PdhGetCounterTimeBase).
  RawCounter older = Sample(wp::kCounterCounter, 5, 0);
  RawCounter newer = Sample(wp::kCounterCounter, 9, 10'000'000);
  newer.times.perf_freq = 0;
  EXPECT_EQ(ComputeCounterValue(newer, &older).status, PdhStatus::kNegativeTimebase);
  RawCounter a0 = WithBase(Sample(wp::kAverageTimer, 0), 0);
  RawCounter a1 = WithBase(Sample(wp::kAverageTimer, 10), 1);
  a1.times.perf_freq = -1;
  EXPECT_EQ(ComputeCounterValue(a1, &a0).status, PdhStatus::kNegativeTimebase);
  // Timers without F do not need it: 50 of 100 ticks is 50% whatever the frequency.
  RawCounter t0 = Sample(wp::kCounterTimer, 0, 0);
  RawCounter t1 = Sample(wp::kCounterTimer, 50, 100);
  t1.times.perf_freq = 0;
  ExpectValue(ComputeCounterValue(t1, &t0), 50);
}

TEST(CalculatorTest, A64BitCounterGoingBackwardsIsNegativeValue) {
  RawCounter older = Sample(wp::kCounterBulkCount, 1000, 0);
  CounterValue v = ComputeCounterValue(Sample(wp::kCounterBulkCount, 10, 10'000'000), &older);
  EXPECT_EQ(v.status, PdhStatus::kNegativeValue);
  EXPECT_EQ(PdhStatusName(v.status), "PDH_CALC_NEGATIVE_VALUE");
  // Its 64-bit base going backwards: the denominator. 100 bytes over 5 − 10 = −5 transfers.
  RawCounter b0 = WithBase(Sample(wp::kAverageBulk, 0), 10, 8);
  EXPECT_EQ(ComputeCounterValue(WithBase(Sample(wp::kAverageBulk, 100), 5, 8), &b0).status,
            PdhStatus::kNegativeDenominator);
  // Both at once (the samples swapped): the clock explains it, so the clock is reported.
  RawCounter later = Sample(wp::kCounterBulkCount, 5000, 20);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterBulkCount, 10, 10), &later).status,
            PdhStatus::kNegativeDenominator);
}

TEST(CalculatorTest, A32BitCounterThatWrappedOnceIsComputedInItsWidth) {
  // 0xFFFFFF00 → 0x100: 0x200 = 512 events in 1 s.
  RawCounter older = Sample(wp::kCounterCounter, 0xFFFFFF00, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterCounter, 0x100, 10'000'000), &older), 512);
  // PERF_COUNTER_DELTA: 0xFFFFFFFE → 3 is 5.
  RawCounter d0 = Sample(wp::kCounterDelta, 0xFFFFFFFE);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterDelta, 3), &d0), 5);
}

TEST(CalculatorTest, TheWidthIsCounterSizeNotTheTypesNominalSize) {
  // Samba writes DWORD types with CounterSize 8: 8 bytes, no wrap to assume, so going from
  // 0xFFFFFF00 to 0x100 is a reset.
  RawCounter older8 = Sample(wp::kCounterCounter, 0xFFFFFF00, 0, 0, 0, 8);
  EXPECT_EQ(
      ComputeCounterValue(Sample(wp::kCounterCounter, 0x100, 10'000'000, 0, 0, 8), &older8).status,
      PdhStatus::kNegativeValue);
  // ... and a value above 2^32 in it is kept: 0x1'0000'0000 → 0x1'0000'00C8 is 200 in 2 s.
  RawCounter big0 = Sample(wp::kCounterCounter, 0x100000000, 0, 0, 0, 8);
  RawCounter big1 = Sample(wp::kCounterCounter, 0x1000000C8, 20'000'000, 0, 0, 8);
  ExpectValue(ComputeCounterValue(big1, &big0), 100);
  // A nominal 8-byte type with CounterSize 4 wraps at 2^32: 0xFFFFFFF0 → 0x10 is 32 bytes in 1 s.
  RawCounter bulk4 = Sample(wp::kCounterBulkCount, 0xFFFFFFF0, 0, 0, 0, 4);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterBulkCount, 0x10, 10'000'000, 0, 0, 4), &bulk4),
              32);
}

TEST(CalculatorTest, A32BitBaseThatWrappedStillGivesAFraction) {
  // PERF_SAMPLE_FRACTION: base 0xFFFFFFF0 → 0x10 is 0x20 = 32 samples, 8 hits: 25%. Without the
  // wrap handling the base difference would be negative or huge.
  RawCounter older = WithBase(Sample(wp::kSampleFraction, 100), 0xFFFFFFF0);
  RawCounter newer = WithBase(Sample(wp::kSampleFraction, 108), 0x10);
  ExpectValue(ComputeCounterValue(newer, &older), 25);
  // The real case: a 32-bit timestamp base wrapping every ~2 hours. A precision timer stored in
  // 4 bytes, busy 0xFFFF0000 → 0x00010000 (0x20000 = 131,072) against the timestamp
  // 0xFFFFF000 → 0x0003F000 (0x40000 = 262,144): 50%, not above 100%.
  RawCounter p0 = WithBase(Sample(wp::kPrecisionSystemTimer, 0xFFFF0000, 0, 0, 0, 4), 0xFFFFF000);
  RawCounter p1 = WithBase(Sample(wp::kPrecisionSystemTimer, 0x00010000, 0, 0, 0, 4), 0x0003F000);
  ExpectValue(ComputeCounterValue(p1, &p0), 50);
  // PERF_AVERAGE_TIMER with a 32-bit PERF_AVERAGE_BASE wrapping: 0xFFFFFFFF → 9 is 10
  // operations; 500,000 ticks at 10 MHz = 0.05 s over 10 → 0.005 s.
  RawCounter a0 = WithBase(Sample(wp::kAverageTimer, 1'000'000), 0xFFFFFFFF);
  RawCounter a1 = WithBase(Sample(wp::kAverageTimer, 1'500'000), 9);
  ExpectValue(ComputeCounterValue(a1, &a0), 0.005);
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
  // The cap is for percentages only: 2,500 bytes/s stays 2,500.
  RawCounter b0 = Sample(wp::kCounterBulkCount, 0, 0);
  ExpectValue(
      ComputeCounterValue(Sample(wp::kCounterBulkCount, 2'500, 10'000'000), &b0, {.cap_100 = true}),
      2500);
}

TEST(CalculatorTest, InverseTimerJitterIsClampedAtZero) {
  // Idle 10,000,100 of 10,000,000 (the clock read a hair early): 0%, not −0.001%.
  RawCounter i0 = Sample(wp::k100NsecTimerInv, 0, 0, 0);
  ExpectValue(ComputeCounterValue(Sample(wp::k100NsecTimerInv, 10'000'100, 0, 10'000'000), &i0), 0);
}

TEST(CalculatorTest, MultiTimersAverageOverTheirItems) {
  // PERF_100NSEC_MULTI_TIMER: 30,000,000 busy of 10,000,000 across 4 items → 100·3/4 = 75%.
  RawCounter m0 = WithCount(Sample(wp::k100NsecMultiTimer, 0, 0, 0), 4);
  RawCounter m1 = WithCount(Sample(wp::k100NsecMultiTimer, 30'000'000, 0, 10'000'000), 4);
  ExpectValue(ComputeCounterValue(m1, &m0), 75);
  // PERF_COUNTER_MULTI_TIMER over block ticks, no F: 10,000,000 of 10,000,000 across 2 → 50%.
  RawCounter c0 = WithCount(Sample(wp::kCounterMultiTimer, 0, 0), 2);
  RawCounter c1 = WithCount(Sample(wp::kCounterMultiTimer, 10'000'000, 10'000'000), 2);
  ExpectValue(ComputeCounterValue(c1, &c0), 50);
  // The newer sample's count (B1): 30,000,000 of 10,000,000 now across 6 items → 50%.
  ExpectValue(ComputeCounterValue(WithCount(m1, 6), &m0), 50);
}

TEST(CalculatorTest, InverseMultiTimersAverageOverTheirItemsToo) {
  // The chosen formula, 100·(B1 − ΔN/ΔT)/B1 (docs/counter_math.md), keeps an inverse multi
  // timer on the same 0–100 scale as the plain one.
  // PERF_100NSEC_MULTI_TIMER_INV: idle 30,000,000 of 10,000,000 over 4 → 100·(4 − 3)/4 = 25%.
  RawCounter n0 = WithCount(Sample(wp::k100NsecMultiTimerInv, 0, 0, 0), 4);
  RawCounter n1 = WithCount(Sample(wp::k100NsecMultiTimerInv, 30'000'000, 0, 10'000'000), 4);
  ExpectValue(ComputeCounterValue(n1, &n0), 25);
  // All four idle the whole second: 0%; none idle: 100%.
  RawCounter idle = WithCount(Sample(wp::k100NsecMultiTimerInv, 40'000'000, 0, 10'000'000), 4);
  ExpectValue(ComputeCounterValue(idle, &n0), 0);
  RawCounter busy = WithCount(Sample(wp::k100NsecMultiTimerInv, 0, 0, 10'000'000), 4);
  ExpectValue(ComputeCounterValue(busy, &n0), 100);
  // PERF_COUNTER_MULTI_TIMER_INV: idle 15,000,000 of 10,000,000 ticks across 2
  // → 100·(2 − 1.5)/2 = 25%.
  RawCounter d0 = WithCount(Sample(wp::kCounterMultiTimerInv, 0, 0), 2);
  RawCounter d1 = WithCount(Sample(wp::kCounterMultiTimerInv, 15'000'000, 10'000'000), 2);
  ExpectValue(ComputeCounterValue(d1, &d0), 25);
}

TEST(CalculatorTest, AMultiTimerWithoutItemsHasNoValue) {
  RawCounter c0 = WithCount(Sample(wp::kCounterMultiTimer, 0, 0), 2);
  // No count at all: invalid data; a count of 0: a zero denominator.
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterMultiTimer, 1, 1), &c0).status,
            PdhStatus::kInvalidData);
  RawCounter z1 = WithCount(Sample(wp::kCounterMultiTimer, 10, 10), 0);
  EXPECT_EQ(ComputeCounterValue(z1, &c0).status, PdhStatus::kNegativeDenominator);
  RawCounter i0 = WithCount(Sample(wp::k100NsecMultiTimerInv, 0, 0, 0), 0);
  RawCounter i1 = WithCount(Sample(wp::k100NsecMultiTimerInv, 10, 0, 10), 0);
  EXPECT_EQ(ComputeCounterValue(i1, &i0).status, PdhStatus::kNegativeDenominator);
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
  // PERF_RAW_FRACTION: 25 of 200 → 12.5%, one sample; PERF_LARGE_RAW_FRACTION: 2^33 of 2^35.
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
  ExpectValue(ComputeCounterValue(b0, &b0), 0);
  // PERF_SAMPLE_FRACTION: 30 of 60 samples → 50%; no samples → 0.
  RawCounter s0 = WithBase(Sample(wp::kSampleFraction, 10), 40);
  RawCounter s1 = WithBase(Sample(wp::kSampleFraction, 40), 100);
  ExpectValue(ComputeCounterValue(s1, &s0), 50);
  ExpectValue(ComputeCounterValue(s0, &s0), 0);
}

TEST(CalculatorTest, MissingBaseIsInvalidData) {
  CounterValue v = ComputeCounterValue(Sample(wp::kRawFraction, 25), nullptr);
  EXPECT_EQ(v.status, PdhStatus::kInvalidData);
  RawCounter a0 = Sample(wp::kAverageTimer, 0);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kAverageTimer, 10, 10), &a0).status,
            PdhStatus::kInvalidData);
  // The older sample without its base (the definitions changed between samples).
  RawCounter p1 = WithBase(Sample(wp::kPrecision100NsTimer, 10), 20, 8);
  EXPECT_EQ(ComputeCounterValue(p1, &a0).status, PdhStatus::kInvalidData);
  RawCounter p0 = Sample(wp::kPrecision100NsTimer, 0);
  EXPECT_EQ(ComputeCounterValue(p1, &p0).status, PdhStatus::kInvalidData);
  // Bases of different widths in the two samples.
  RawCounter narrow_base = WithBase(p0, 10, 4);
  EXPECT_EQ(ComputeCounterValue(p1, &narrow_base).status, PdhStatus::kInvalidData);
}

TEST(CalculatorTest, PrecisionTimersUseTheirTimestampBase) {
  // PERF_PRECISION_100NS_TIMER with a FILETIME base: 2,000,000 busy of 10,000,000 → 20%.
  RawCounter p0 =
      WithBase(Sample(wp::kPrecision100NsTimer, 129'203'443'492'420), 133'692'341'756'361'838, 8);
  RawCounter p1 =
      WithBase(Sample(wp::kPrecision100NsTimer, 129'203'445'492'420), 133'692'341'766'361'838, 8);
  ExpectValue(ComputeCounterValue(p1, &p0), 20);
  // The block and object clocks play no part: 50 of 200 timestamp units → 25%.
  for (uint32_t type : {wp::kPrecisionSystemTimer, wp::kPrecisionObjectTimer}) {
    RawCounter q0 = WithBase(Sample(type, 0, 0, 0, 0), 1000, 8);
    RawCounter q1 = WithBase(Sample(type, 50, 0, 0, 0), 1200, 8);
    ExpectValue(ComputeCounterValue(q1, &q0), 25);
  }
  // The timestamp going backwards or standing still: a bad denominator.
  RawCounter q0 = WithBase(Sample(wp::kPrecisionSystemTimer, 0), 1000, 8);
  RawCounter back = WithBase(Sample(wp::kPrecisionSystemTimer, 60), 900, 8);
  EXPECT_EQ(ComputeCounterValue(back, &q0).status, PdhStatus::kNegativeDenominator);
  RawCounter still = WithBase(Sample(wp::kPrecisionSystemTimer, 60), 1000, 8);
  EXPECT_EQ(ComputeCounterValue(still, &q0).status, PdhStatus::kNegativeDenominator);
}

TEST(CalculatorTest, ElapsedTimeUsesTheObjectClock) {
  // Started at object time 1,000,000 (1 MHz), now 61,000,000 → 60 s.
  ExpectValue(ComputeCounterValue(Sample(wp::kElapsedTime, 1'000'000, 0, 0, 61'000'000), nullptr),
              60);
  // A producer without object times (Samba): the block's clock, 10 MHz: 5e7 ticks → 5 s.
  RawCounter samba = Sample(wp::kElapsedTime, 50'000'000, 100'000'000);
  samba.times.object_time = samba.times.object_freq = 0;
  ExpectValue(ComputeCounterValue(samba, nullptr), 5);
  // A start in the future: negative. A start beyond 2^63 (garbage) likewise, not an overflow.
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kElapsedTime, 100, 0, 0, 50), nullptr).status,
            PdhStatus::kNegativeValue);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kElapsedTime, ~0ull, 0, 0, 50), nullptr).status,
            PdhStatus::kNegativeValue);
  // No frequency anywhere: no time base.
  samba.times.perf_freq = 0;
  EXPECT_EQ(ComputeCounterValue(samba, nullptr).status, PdhStatus::kNegativeTimebase);
}

TEST(CalculatorTest, DeltasAreTheDifference) {
  RawCounter l0 = Sample(wp::kCounterLargeDelta, 100);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterLargeDelta, 350), &l0), 250);
  // A delta needs no clock: the same time in both samples is fine. 7 − 4 = 3.
  RawCounter d0 = Sample(wp::kCounterDelta, 4, 77);
  ExpectValue(ComputeCounterValue(Sample(wp::kCounterDelta, 7, 77), &d0), 3);
}

TEST(CalculatorTest, TextNoDataHistogramAndBasesHaveNoValue) {
  constexpr uint32_t kAsciiText = 0x00010B00;  // PERF_SIZE_VARIABLE_LEN|PERF_TYPE_TEXT|ASCII
  for (uint32_t type : {wp::kCounterText, kAsciiText, wp::kCounterNodata, wp::kCounterHistogramType,
                        wp::kSampleBase, wp::kAverageBase, wp::kRawBase, wp::kLargeRawBase,
                        wp::kCounterMultiBase}) {
    CounterValue v = ComputeCounterValue(Sample(type, 1), nullptr);
    EXPECT_EQ(v.status, PdhStatus::kNoData) << std::hex << type;
    EXPECT_EQ(DescribePdhStatus(v.status), "PDH_NO_DATA (0x800007D5)");
  }
}

TEST(CalculatorTest, UnknownTypesAndUnreadableValuesAreInvalidData) {
  // PERF_SIZE_LARGE | PERF_TYPE_COUNTER with a subtype winperf.h does not define.
  EXPECT_EQ(ComputeCounterValue(Sample(0x00020500, 1), nullptr).status, PdhStatus::kInvalidData);
  RawCounter unreadable = Sample(wp::kCounterRawcount, 0);
  unreadable.has_value = false;  // a CounterSize of 3, say
  EXPECT_EQ(ComputeCounterValue(unreadable, nullptr).status, PdhStatus::kInvalidData);
  RawCounter c0 = Sample(wp::kCounterCounter, 1, 0);
  RawCounter c1 = Sample(wp::kCounterCounter, 2, 10);
  c0.has_value = false;
  EXPECT_EQ(ComputeCounterValue(c1, &c0).status, PdhStatus::kInvalidData);
}

TEST(CalculatorTest, MismatchedSamplesAreInvalid) {
  RawCounter older = Sample(wp::kCounterCounter, 1, 0);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterBulkCount, 2, 10), &older).status,
            PdhStatus::kInvalidData);
  EXPECT_EQ(ComputeCounterValue(Sample(wp::kCounterCounter, 2, 10, 0, 0, 8), &older).status,
            PdhStatus::kInvalidData);
}

TEST(CalculatorTest, ScaleFactorNoScaleAndTimes1000) {
  // The caller's scale factor −3 (PdhSetCounterScaleFactor): 5,000 → 5; NOSCALE keeps 5,000;
  // ×1000 with the factor: 5,000.
  RawCounter raw = Sample(wp::kCounterRawcount, 5000);
  ExpectValue(ComputeCounterValue(raw, nullptr), 5000);
  ExpectValue(ComputeCounterValue(raw, nullptr, {.scale_factor = -3}), 5);
  ExpectValue(ComputeCounterValue(raw, nullptr, {.scale_factor = -3, .no_scale = true}), 5000);
  ExpectValue(ComputeCounterValue(raw, nullptr, {.scale_factor = -3, .times_1000 = true}), 5000);
  ExpectValue(ComputeCounterValue(raw, nullptr, {.no_scale = true, .times_1000 = true}), 5'000'000);
  // The cap applies to the percentage before the factor: 300 of 200 = 150% → 100, then ×10.
  RawCounter over = WithBase(Sample(wp::kRawFraction, 300), 200);
  ExpectValue(ComputeCounterValue(over, nullptr, {.scale_factor = 1, .cap_100 = true}), 1000);
  // A factor far outside PDH's −7..7 overflows a double: no value, not infinity.
  EXPECT_EQ(ComputeCounterValue(raw, nullptr, {.scale_factor = 400}).status,
            PdhStatus::kInvalidData);
}

TEST(CalculatorTest, BasesWithTheLargeSizeFlagServe) {
  // wrxxcrpisax01 types PERF_AVERAGE_BASE and PERF_RAW_BASE with PERF_SIZE_LARGE; they are
  // bases all the same, with no number of their own.
  EXPECT_TRUE(IsBaseType(0x40030502));
  EXPECT_TRUE(IsBaseType(0x40030503));
  EXPECT_TRUE(IsBaseType(0x40030401 | 0x100));
  EXPECT_FALSE(IsBaseType(wp::kAverageBulk));
  EXPECT_FALSE(IsBaseType(wp::kCounterLargeRawcount));
  EXPECT_EQ(ComputeCounterValue(Sample(0x40030502, 7), nullptr).status, PdhStatus::kNoData);
}

TEST(CalculatorTest, LongAndLargeTruncateTowardZeroAndSaturate) {
  // Avg. Disk sec/Read of 12.5 ms with PDH_FMT_1000 as a LONG: 12.5 → 12.
  RawCounter a0 = WithBase(Sample(wp::kAverageTimer, 0, 0), 0);
  RawCounter a1 = WithBase(Sample(wp::kAverageTimer, 1'250'000, 10'000'000), 10);
  CounterValue ms = ComputeCounterValue(a1, &a0, {.times_1000 = true});
  ExpectValue(ms, 12.5);  // (1,250,000 / 10 MHz) / 10 = 0.0125 s, ×1000
  EXPECT_EQ(ms.AsLong(), 12);
  EXPECT_EQ(ms.AsLarge(), 12);
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, 7.9}).AsLong(), 7);
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, -7.9}).AsLong(), -7);
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, -7.9}).AsLarge(), -7);
  // 5 GB/s does not fit a LONG: held at its limits, never undefined behaviour.
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, 5e9}).AsLong(), 2147483647);
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, -5e9}).AsLong(), -2147483647 - 1);
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, 5e9}).AsLarge(), 5'000'000'000);
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, 1e19}).AsLarge(),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ((CounterValue{PdhStatus::kValidData, -1e19}).AsLarge(),
            std::numeric_limits<int64_t>::min());
}

TEST(CalculatorTest, IntervalsAreTheDifferencesTheFormulaDivides) {
  // PERF_COUNTER_BULK_COUNT: 1,500 − 1,000 = 500 bytes over 30,000,000 − 10,000,000 ticks.
  RawCounter older = Sample(wp::kCounterBulkCount, 1000, 10'000'000);
  RawCounter newer = Sample(wp::kCounterBulkCount, 1500, 30'000'000);
  CounterInterval interval = MeasureInterval(newer, older);
  EXPECT_EQ(interval.status, PdhStatus::kValidData);
  EXPECT_DOUBLE_EQ(interval.value, 500);
  EXPECT_DOUBLE_EQ(interval.denominator, 20'000'000);
  // Two such intervals added: 1,000 bytes over 4 s → 250/s, with the newer sample's frequency.
  interval.value *= 2;
  interval.denominator *= 2;
  ExpectValue(EvaluateInterval(interval, newer), 250);
  // A failed interval keeps its status; a one-sample type has no interval.
  EXPECT_EQ(MeasureInterval(older, newer).status, PdhStatus::kNegativeDenominator);
  EXPECT_EQ(MeasureInterval(newer, newer).status, PdhStatus::kNegativeDenominator);
  EXPECT_EQ(EvaluateInterval(MeasureInterval(older, newer), newer).status,
            PdhStatus::kNegativeDenominator);
  RawCounter raw = Sample(wp::kCounterRawcount, 3);
  EXPECT_EQ(MeasureInterval(raw, raw).status, PdhStatus::kInvalidData);
}

TEST(PdhStatusTest, NamesAndCodesAreThoseOfPdh) {
  // From counter-types.md (pdhmsg.h).
  struct Known {
    PdhStatus status;
    uint32_t code;
    const char* name;
  };
  const Known kKnown[] = {
      {PdhStatus::kValidData, 0x0, "PDH_CSTATUS_VALID_DATA"},
      {PdhStatus::kNewData, 0x1, "PDH_CSTATUS_NEW_DATA"},
      {PdhStatus::kNoMachine, 0x800007D0, "PDH_CSTATUS_NO_MACHINE"},
      {PdhStatus::kNoInstance, 0x800007D1, "PDH_CSTATUS_NO_INSTANCE"},
      {PdhStatus::kItemNotValidated, 0x800007D3, "PDH_CSTATUS_ITEM_NOT_VALIDATED"},
      {PdhStatus::kNoData, 0x800007D5, "PDH_NO_DATA"},
      {PdhStatus::kNegativeDenominator, 0x800007D6, "PDH_CALC_NEGATIVE_DENOMINATOR"},
      {PdhStatus::kNegativeTimebase, 0x800007D7, "PDH_CALC_NEGATIVE_TIMEBASE"},
      {PdhStatus::kNegativeValue, 0x800007D8, "PDH_CALC_NEGATIVE_VALUE"},
      {PdhStatus::kNoObject, 0xC0000BB8, "PDH_CSTATUS_NO_OBJECT"},
      {PdhStatus::kNoCounter, 0xC0000BB9, "PDH_CSTATUS_NO_COUNTER"},
      {PdhStatus::kInvalidData, 0xC0000BBA, "PDH_CSTATUS_INVALID_DATA"},
      {PdhStatus::kBadCounterName, 0xC0000BC0, "PDH_CSTATUS_BAD_COUNTERNAME"},
  };
  for (const Known& known : kKnown) {
    EXPECT_EQ(static_cast<uint32_t>(known.status), known.code) << known.name;
    EXPECT_EQ(PdhStatusName(known.status), known.name);
  }
  EXPECT_EQ(DescribePdhStatus(PdhStatus::kInvalidData), "PDH_CSTATUS_INVALID_DATA (0xC0000BBA)");
  EXPECT_EQ(DescribePdhStatus(PdhStatus::kValidData), "PDH_CSTATUS_VALID_DATA (0x00000000)");
  EXPECT_EQ(DescribePdhStatus(static_cast<PdhStatus>(0x12345678)),
            "PDH_UNKNOWN_STATUS (0x12345678)");
  EXPECT_TRUE(IsSuccess(PdhStatus::kNewData));
  EXPECT_FALSE(IsSuccess(PdhStatus::kNegativeValue));
}

// Reads raw counters from a snapshot written by the builder.
class RawCounterTest : public ::testing::Test {
 protected:
  // The definitions and the first instance's block of the snapshot's first object.
  void Open() {
    bytes_ = builder_.Build();
    Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes_);
    ASSERT_TRUE(snapshot.ok()) << snapshot.error();
    snapshot_.emplace(*snapshot);
    object_ = *snapshot_->objects().begin();
    defs_.assign(object_.counters().begin(), object_.counters().end());
    instance_ = *object_.instances().begin();
  }
  RawCounter Read(size_t c) {
    const CounterDefinitionView* next = c + 1 < defs_.size() ? &defs_[c + 1] : nullptr;
    return ReadRawCounter(SampleTimes::Of(*snapshot_, object_), defs_[c], next,
                          instance_.counters());
  }

  SnapshotBuilder builder_;
  std::vector<uint8_t> bytes_;
  std::optional<SnapshotReader> snapshot_;
  ObjectView object_;
  std::vector<CounterDefinitionView> defs_;
  InstanceView instance_;
};

TEST_F(RawCounterTest, ReadsBaseFromTheNextDefinitionAndMultiCountAfterTheValue) {
  ObjectBuilder& disk = builder_.AddObject(234);
  uint32_t busy = disk.AddCounter({.name_index = 200, .type = wp::kPrecision100NsTimer});
  uint32_t stamp = disk.AddCounter({.name_index = 200, .type = wp::kPrecisionTimestamp});
  uint32_t multi = disk.AddCounter({.name_index = 300, .type = wp::k100NsecMultiTimer});
  uint32_t raw = disk.AddCounter({.name_index = 302, .type = wp::kCounterRawcount});
  uint32_t i = disk.AddInstance("0 C:");
  disk.SetValue(i, busy, 77);
  disk.SetValue(i, stamp, 133'692'341'756'361'838);
  disk.SetValue(i, multi, 5);
  disk.SetMultiCount(i, multi, 8);
  disk.SetValue(i, raw, 9);
  ASSERT_NO_FATAL_FAILURE(Open());

  RawCounter b = Read(busy);
  EXPECT_EQ(b.type, wp::kPrecision100NsTimer);
  EXPECT_EQ(b.size, 8u);
  ASSERT_TRUE(b.has_value);
  EXPECT_EQ(b.value, 77u);
  ASSERT_TRUE(b.has_base);
  EXPECT_EQ(b.base, 133'692'341'756'361'838u);
  EXPECT_EQ(b.base_size, 8u);
  RawCounter m = Read(multi);
  EXPECT_EQ(m.value, 5u);
  ASSERT_TRUE(m.has_multi_count);
  EXPECT_EQ(m.multi_count, 8u);
  EXPECT_FALSE(m.has_base);  // a multi timer's count is not a base
  // The count sat between the two values: the raw count after it reads 9.
  EXPECT_EQ(Read(raw).value, 9u);
  EXPECT_FALSE(Read(raw).has_multi_count);
}

TEST_F(RawCounterTest, ReadsMultiCountFromAFollowingMultiBase) {
  ObjectBuilder& object = builder_.AddObject(999);
  uint32_t timer = object.AddCounter({.name_index = 2, .type = wp::kCounterMultiTimer});
  uint32_t items = object.AddCounter({.name_index = 4, .type = wp::kCounterMultiBase});
  uint32_t i = object.AddInstance("x");
  object.SetValue(i, timer, 1234);
  object.SetMultiCount(i, timer, 99);  // ignored: the base definition wins
  object.SetValue(i, items, 3);
  ASSERT_NO_FATAL_FAILURE(Open());
  RawCounter t = Read(timer);
  ASSERT_TRUE(t.has_multi_count);
  EXPECT_EQ(t.multi_count, 3u);
  EXPECT_EQ(t.value, 1234u);
}

TEST_F(RawCounterTest, ABaseMissingOrNotABaseOrOfOddSizeIsAStatus) {
  ObjectBuilder& object = builder_.AddObject(999);
  // A fraction followed by a plain count, a fraction followed by a base of 3 bytes, and a
  // fraction that is the last definition.
  uint32_t before_count = object.AddCounter({.name_index = 2, .type = wp::kRawFraction});
  uint32_t count = object.AddCounter({.name_index = 4, .type = wp::kCounterRawcount});
  uint32_t before_odd = object.AddCounter({.name_index = 6, .type = wp::kRawFraction});
  uint32_t odd = object.AddCounter({.name_index = 8, .type = wp::kRawBase, .size = 3});
  uint32_t last = object.AddCounter({.name_index = 10, .type = wp::kRawFraction});
  uint32_t i = object.AddInstance("x");
  for (uint32_t c : {before_count, count, before_odd, last}) object.SetValue(i, c, 50);
  ASSERT_NO_FATAL_FAILURE(Open());
  for (uint32_t c : {before_count, before_odd, last}) {
    RawCounter raw = Read(c);
    EXPECT_TRUE(raw.has_value) << c;
    EXPECT_FALSE(raw.has_base) << c;
    EXPECT_EQ(ComputeCounterValue(raw, nullptr).status, PdhStatus::kInvalidData) << c;
  }
  EXPECT_FALSE(Read(odd).has_value);
}

TEST_F(RawCounterTest, BasesTypedWithTheLargeSizeFlagAreReadByTheirOwnSize) {
  // As on wrxxcrpisax01: PERF_AVERAGE_BULK before 0x40030502 (AVERAGE_BASE, 8 bytes), and a
  // 4-byte PERF_RAW_FRACTION before 0x40030503 (RAW_BASE, 8 bytes).
  ObjectBuilder& object = builder_.AddObject(999);
  uint32_t bulk = object.AddCounter({.name_index = 2, .type = wp::kAverageBulk});
  uint32_t average_base = object.AddCounter({.name_index = 4, .type = 0x40030502, .size = 8});
  uint32_t fraction = object.AddCounter({.name_index = 6, .type = wp::kRawFraction});
  uint32_t raw_base = object.AddCounter({.name_index = 8, .type = 0x40030503, .size = 8});
  uint32_t i = object.AddInstance("x");
  object.SetValue(i, bulk, 4096);
  object.SetValue(i, average_base, 0x1'0000'0002);
  object.SetValue(i, fraction, 3);
  object.SetValue(i, raw_base, 12);
  ASSERT_NO_FATAL_FAILURE(Open());
  RawCounter b = Read(bulk);
  ASSERT_TRUE(b.has_base);
  EXPECT_EQ(b.base, 0x1'0000'0002u);
  EXPECT_EQ(b.base_size, 8u);
  RawCounter f = Read(fraction);
  ASSERT_TRUE(f.has_base);
  EXPECT_EQ(f.base_size, 8u);
  ExpectValue(ComputeCounterValue(f, nullptr), 25);  // 100 · 3 / 12
  EXPECT_EQ(ComputeCounterValue(Read(raw_base), nullptr).status, PdhStatus::kNoData);
}

TEST_F(RawCounterTest, ReadsByCounterSizeNotTheNominalSize) {
  ObjectBuilder& object = builder_.AddObject(999);
  // Samba: a DWORD type with CounterSize 8 keeps all 8 bytes.
  uint32_t samba = object.AddCounter({.name_index = 2, .type = wp::kCounterCounter, .size = 8});
  // A nominal 8-byte type with CounterSize 4 reads 4 bytes, not its neighbour's.
  uint32_t narrow = object.AddCounter({.name_index = 4, .type = wp::kCounterBulkCount, .size = 4});
  uint32_t neighbour = object.AddCounter({.name_index = 6, .type = wp::kCounterRawcount});
  // A text counter has no number.
  uint32_t text = object.AddCounter({.name_index = 8, .type = wp::kCounterText, .size = 16});
  uint32_t i = object.AddInstance("x");
  object.SetValue(i, samba, 0x1'2345'6789);
  object.SetValue(i, narrow, 0xFFFF'FFF0);
  object.SetValue(i, neighbour, 0xAAAA'AAAA);
  ASSERT_NO_FATAL_FAILURE(Open());
  RawCounter s = Read(samba);
  EXPECT_EQ(s.size, 8u);
  EXPECT_EQ(s.value, 0x1'2345'6789u);
  RawCounter n = Read(narrow);
  EXPECT_EQ(n.size, 4u);
  EXPECT_EQ(n.value, 0xFFFF'FFF0u);
  EXPECT_EQ(Read(neighbour).value, 0xAAAA'AAAAu);
  RawCounter t = Read(text);
  EXPECT_FALSE(t.has_value);
  EXPECT_EQ(ComputeCounterValue(t, nullptr).status, PdhStatus::kNoData);
}

TEST_F(RawCounterTest, TheSnapshotOverloadWalksDefinitionsAndCarriesBothClocks) {
  builder_.set_perf_time(111).set_perf_freq(222).set_perf_time_100ns(333);
  ObjectBuilder& object = builder_.AddObject(999);
  object.set_perf_time(444).set_perf_freq(555);
  object.AddCounter({.name_index = 2, .type = wp::kSampleFraction});
  object.AddCounter({.name_index = 4, .type = wp::kSampleBase});
  object.AddCounter({.name_index = 6, .type = wp::kAverageBulk});  // last: no base follows
  uint32_t i = object.AddInstance("x");
  object.SetValue(i, 0, 5);
  object.SetValue(i, 1, 20);
  object.SetValue(i, 2, 7);
  ASSERT_NO_FATAL_FAILURE(Open());
  CounterDefinitionRange::iterator definition = object_.counters().begin();
  RawCounter fraction = ReadRawCounter(*snapshot_, object_, definition, instance_);
  EXPECT_EQ(fraction.value, 5u);
  ASSERT_TRUE(fraction.has_base);
  EXPECT_EQ(fraction.base, 20u);
  EXPECT_EQ(fraction.times.perf_time, 111);
  EXPECT_EQ(fraction.times.perf_freq, 222);
  EXPECT_EQ(fraction.times.perf_time_100ns, 333);
  EXPECT_EQ(fraction.times.object_time, 444);
  EXPECT_EQ(fraction.times.object_freq, 555);
  ++definition;
  ++definition;
  RawCounter average = ReadRawCounter(*snapshot_, object_, definition, instance_);
  EXPECT_EQ(average.type, wp::kAverageBulk);
  EXPECT_EQ(average.value, 7u);
  EXPECT_FALSE(average.has_base);
}

}  // namespace
}  // namespace perfhive
