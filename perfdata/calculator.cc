#include "perfdata/calculator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "perfdata/winperf.h"

namespace perfhive {
namespace {

namespace wp = winperf;

// The formula families of docs/counter_math.md; each counter type has exactly one.
enum class Formula {
  kNoNumber,           // text, no data, histogram and base types
  kUnknown,            // a type winperf.h does not define
  kRaw,                // N
  kRawFraction,        // 100·N/B
  kElapsed,            // (To − N)/Fo
  kRate,               // ΔN/(ΔT/F)
  kTimer,              // 100·ΔN/ΔT
  kTimerInverse,       // 100·(1 − ΔN/ΔT)
  kMultiTimer,         // 100·(ΔN/ΔT)/B1
  kMultiTimerInverse,  // 100·(B1 − ΔN/ΔT)/B1
  kQueueLength,        // ΔN/ΔT
  kSampleFraction,     // 100·ΔN/ΔB
  kPrecisionTimer,     // 100·ΔN/ΔB, B a timestamp
  kAverageTimer,       // (ΔN/F)/ΔB
  kAverageBulk,        // ΔN/ΔB
  kDelta,              // ΔN
};

Formula FormulaOf(uint32_t type) {
  // Every text type (Unicode or ASCII), every zero-size type and every base (whatever its size
  // flag) has no number.
  if ((type & wp::kTypeMask) == wp::kTypeText || (type & wp::kSizeMask) == wp::kSizeZero ||
      IsBaseType(type)) {
    return Formula::kNoNumber;
  }
  switch (type) {
    case wp::kCounterRawcount:
    case wp::kCounterLargeRawcount:
    case wp::kCounterRawcountHex:
    case wp::kCounterLargeRawcountHex:
      return Formula::kRaw;
    case wp::kRawFraction:
    case wp::kLargeRawFraction:
      return Formula::kRawFraction;
    case wp::kElapsedTime:
      return Formula::kElapsed;
    case wp::kCounterCounter:
    case wp::kCounterBulkCount:
    case wp::kSampleCounter:
      return Formula::kRate;
    case wp::kCounterTimer:
    case wp::k100NsecTimer:
    case wp::kObjTimeTimer:
      return Formula::kTimer;
    case wp::kCounterTimerInv:
    case wp::k100NsecTimerInv:
      return Formula::kTimerInverse;
    case wp::kCounterMultiTimer:
    case wp::k100NsecMultiTimer:
      return Formula::kMultiTimer;
    case wp::kCounterMultiTimerInv:
    case wp::k100NsecMultiTimerInv:
      return Formula::kMultiTimerInverse;
    case wp::kCounterQueueLen:
    case wp::kCounterLargeQueueLen:
    case wp::kCounter100NsQueueLen:
    case wp::kCounterObjTimeQueueLen:
      return Formula::kQueueLength;
    case wp::kSampleFraction:
      return Formula::kSampleFraction;
    case wp::kPrecisionSystemTimer:
    case wp::kPrecision100NsTimer:
    case wp::kPrecisionObjectTimer:
      return Formula::kPrecisionTimer;
    case wp::kAverageTimer:
      return Formula::kAverageTimer;
    case wp::kAverageBulk:
      return Formula::kAverageBulk;
    case wp::kCounterDelta:
    case wp::kCounterLargeDelta:
      return Formula::kDelta;
    case wp::kCounterHistogramType:
      return Formula::kNoNumber;
    default:
      return Formula::kUnknown;
  }
}

// What a two-sample formula divides by.
enum class Denominator {
  kOneSample,  // not a two-sample formula
  kNone,       // deltas
  kClock,      // a time of the snapshot, chosen by the type's PERF_TIMER_* bits
  kCount,      // a base counting events (samples, operations): may stand still
  kTimestamp,  // a base that is a clock (precision timers): must move forward
};

Denominator DenominatorOf(Formula formula) {
  switch (formula) {
    case Formula::kRate:
    case Formula::kTimer:
    case Formula::kTimerInverse:
    case Formula::kMultiTimer:
    case Formula::kMultiTimerInverse:
    case Formula::kQueueLength:
      return Denominator::kClock;
    case Formula::kSampleFraction:
    case Formula::kAverageTimer:
    case Formula::kAverageBulk:
      return Denominator::kCount;
    case Formula::kPrecisionTimer:
      return Denominator::kTimestamp;
    case Formula::kDelta:
      return Denominator::kNone;
    default:
      return Denominator::kOneSample;
  }
}

int64_t ClockOf(uint32_t type, const SampleTimes& times) {
  switch (type & wp::kTimerMask) {
    case wp::kTimer100Ns:
      return times.perf_time_100ns;
    case wp::kObjectTimer:
      return times.object_time;
    default:
      return times.perf_time;
  }
}

CounterValue Failed(PdhStatus status) { return {status, 0}; }
CounterInterval FailedInterval(PdhStatus status) { return {status, 0, 0}; }

// Whether one sample holds everything its formula reads.
PdhStatus Readiness(const RawCounter& raw, Formula formula) {
  if (formula == Formula::kNoNumber) return PdhStatus::kNoData;
  if (formula == Formula::kUnknown || !raw.has_value) return PdhStatus::kInvalidData;
  if (NeedsBase(raw.type) && !raw.has_base) return PdhStatus::kInvalidData;
  return PdhStatus::kValidData;
}

// newer − older in a counter's width: a 4-byte value that wrapped once still gives the right
// difference; an 8-byte value that went backwards has none.
std::optional<double> Difference(uint64_t newer, uint64_t older, uint32_t size) {
  if (size == 4) return static_cast<double>(static_cast<uint32_t>(newer - older));
  if (newer < older) return std::nullopt;
  return static_cast<double>(newer - older);
}

// The cap, the caller's scale factor and ×1000, in that order: the cap concerns the percentage
// itself. The counter's DefaultScale is not applied: PDH leaves it to charts.
CounterValue Finish(const RawCounter& raw, double result, const FormatOptions& format) {
  if (format.cap_100 && (raw.type & wp::kDisplayMask) == wp::kDisplayPercent) {
    result = std::min(result, 100.0);
  }
  if (!format.no_scale && format.scale_factor != 0) {
    result *= std::pow(10.0, format.scale_factor);
  }
  if (format.times_1000) result *= 1000;
  // A scale factor far outside PDH's −7..7 can overflow a double; that is no value either.
  if (!std::isfinite(result)) return Failed(PdhStatus::kInvalidData);
  return {PdhStatus::kValidData, result};
}

// Seconds since the value (a start time) on the object's clock; producers that leave the
// object's clock at 0 (Samba) get the block's.
CounterValue Elapsed(const RawCounter& raw, const FormatOptions& format) {
  const SampleTimes& t = raw.times;
  const bool object_clock = t.object_time != 0 && t.object_freq != 0;
  const int64_t now = object_clock ? t.object_time : t.perf_time;
  const int64_t freq = object_clock ? t.object_freq : t.perf_freq;
  if (freq <= 0) return Failed(PdhStatus::kNegativeTimebase);
  if (now < 0 || static_cast<uint64_t>(now) < raw.value) {
    return Failed(PdhStatus::kNegativeValue);
  }
  const double elapsed = static_cast<double>(static_cast<uint64_t>(now) - raw.value);
  return Finish(raw, elapsed / static_cast<double>(freq), format);
}

}  // namespace

int32_t CounterValue::AsLong() const {
  if (std::isnan(value)) return 0;
  constexpr double kMin = std::numeric_limits<int32_t>::min();
  constexpr double kMax = std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(std::clamp(std::trunc(value), kMin, kMax));
}

int64_t CounterValue::AsLarge() const {
  if (std::isnan(value)) return 0;
  // ±2^63: the doubles just outside int64_t's range (INT64_MAX itself is not a double).
  constexpr double kLimit = 9223372036854775808.0;
  if (value >= kLimit) return std::numeric_limits<int64_t>::max();
  if (value <= -kLimit) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

bool NeedsTwoSamples(uint32_t type) {
  return DenominatorOf(FormulaOf(type)) != Denominator::kOneSample;
}

CounterInterval MeasureInterval(const RawCounter& newer, const RawCounter& older) {
  const Formula formula = FormulaOf(newer.type);
  const Denominator denominator = DenominatorOf(formula);
  if (PdhStatus ready = Readiness(newer, formula); ready != PdhStatus::kValidData) {
    return FailedInterval(ready);
  }
  if (denominator == Denominator::kOneSample ||
      Readiness(older, formula) != PdhStatus::kValidData || older.type != newer.type ||
      older.size != newer.size || older.base_size != newer.base_size) {
    return FailedInterval(PdhStatus::kInvalidData);
  }
  // The denominator first: a clock that went backwards also explains a value that did.
  double divisor = 0;
  switch (denominator) {
    case Denominator::kOneSample:  // excluded above
    case Denominator::kNone:
      break;
    case Denominator::kClock: {
      const int64_t t1 = ClockOf(newer.type, newer.times);
      const int64_t t0 = ClockOf(older.type, older.times);
      if (t1 <= t0) return FailedInterval(PdhStatus::kNegativeDenominator);
      // Unsigned, so that clocks at opposite ends of int64_t cannot overflow.
      divisor = static_cast<double>(static_cast<uint64_t>(t1) - static_cast<uint64_t>(t0));
      break;
    }
    case Denominator::kCount:
    case Denominator::kTimestamp: {
      std::optional<double> base = Difference(newer.base, older.base, newer.base_size);
      if (!base || (denominator == Denominator::kTimestamp && *base == 0)) {
        return FailedInterval(PdhStatus::kNegativeDenominator);
      }
      divisor = *base;
      break;
    }
  }
  std::optional<double> value = Difference(newer.value, older.value, newer.size);
  if (!value) return FailedInterval(PdhStatus::kNegativeValue);
  return {PdhStatus::kValidData, *value, divisor};
}

CounterValue EvaluateInterval(const CounterInterval& interval, const RawCounter& newer,
                              const FormatOptions& format) {
  if (!IsSuccess(interval.status)) return Failed(interval.status);
  const Formula formula = FormulaOf(newer.type);
  const Denominator denominator = DenominatorOf(formula);
  if (denominator == Denominator::kOneSample) return Failed(PdhStatus::kInvalidData);
  const double n = interval.value;
  const double d = interval.denominator;
  if (d < 0 ||
      (d == 0 && (denominator == Denominator::kClock || denominator == Denominator::kTimestamp))) {
    return Failed(PdhStatus::kNegativeDenominator);
  }
  // PDH calls the frequency the counter's "time base" (PdhGetCounterTimeBase).
  const double freq = static_cast<double>(newer.times.perf_freq);
  const bool needs_freq = formula == Formula::kRate || formula == Formula::kAverageTimer;
  if (needs_freq && freq <= 0) return Failed(PdhStatus::kNegativeTimebase);
  const bool multi = formula == Formula::kMultiTimer || formula == Formula::kMultiTimerInverse;
  if (multi && !newer.has_multi_count) return Failed(PdhStatus::kInvalidData);
  if (multi && newer.multi_count == 0) return Failed(PdhStatus::kNegativeDenominator);
  const double items = static_cast<double>(newer.multi_count);

  double result = 0;
  switch (formula) {
    case Formula::kRate:
      result = n / (d / freq);
      break;
    case Formula::kTimer:
    case Formula::kPrecisionTimer:
      result = 100 * n / d;
      break;
    case Formula::kTimerInverse:
      // Idle time and the clock are read at slightly different moments: idle can exceed the
      // interval by a hair, and busy time is never below zero.
      result = std::max(0.0, 100 * (1 - n / d));
      break;
    case Formula::kMultiTimer:
      result = 100 * (n / d) / items;
      break;
    case Formula::kMultiTimerInverse:
      result = std::max(0.0, 100 * (items - n / d) / items);
      break;
    case Formula::kQueueLength:
      result = n / d;
      break;
    // No samples or operations in the interval: 0, as Performance Monitor shows an idle disk's
    // Avg. Disk sec/Read.
    case Formula::kSampleFraction:
      result = d == 0 ? 0 : 100 * n / d;
      break;
    case Formula::kAverageTimer:
      result = d == 0 ? 0 : (n / freq) / d;
      break;
    case Formula::kAverageBulk:
      result = d == 0 ? 0 : n / d;
      break;
    default:  // Formula::kDelta, the only two-sample formula left
      result = n;
      break;
  }
  return Finish(newer, result, format);
}

CounterValue ComputeCounterValue(const RawCounter& newer, const RawCounter* older,
                                 const FormatOptions& format) {
  const Formula formula = FormulaOf(newer.type);
  if (PdhStatus ready = Readiness(newer, formula); ready != PdhStatus::kValidData) {
    return Failed(ready);
  }
  if (DenominatorOf(formula) != Denominator::kOneSample) {
    if (older == nullptr) return Failed(PdhStatus::kInvalidData);  // the first sample
    return EvaluateInterval(MeasureInterval(newer, *older), newer, format);
  }
  const double n = static_cast<double>(newer.value);
  switch (formula) {
    case Formula::kRaw:
      return Finish(newer, n, format);
    case Formula::kRawFraction:
      // An empty whole (a volume of size 0) is 0%, as Performance Monitor shows it.
      return Finish(newer, newer.base == 0 ? 0 : 100 * n / static_cast<double>(newer.base), format);
    default:  // Formula::kElapsed, the only one-sample formula left
      return Elapsed(newer, format);
  }
}

}  // namespace perfhive
