#include "perfdata/calculator.h"

#include <algorithm>
#include <cmath>

#include "perfdata/winperf.h"

namespace perfhive {
namespace {

namespace wp = winperf;

CounterValue Failed(PdhStatus status) { return {status, 0}; }
CounterValue Valid(double value) { return {PdhStatus::kValidData, value}; }

// N1 − N0 in the counter's own width: a 32-bit counter that wrapped once still gives the right
// difference; a 64-bit counter that went backwards has no meaningful difference.
struct Delta {
  bool ok;
  double value;
};
Delta Difference(uint64_t newer, uint64_t older, uint32_t size) {
  if (size == 4) return {true, static_cast<double>(static_cast<uint32_t>(newer - older))};
  if (newer < older) return {false, 0};
  return {true, static_cast<double>(newer - older)};
}

// A time base difference: must move forward.
CounterValue TimeDelta(int64_t newer, int64_t older, double* delta) {
  if (newer < older) return Failed(PdhStatus::kNegativeTimebase);
  if (newer == older) return Failed(PdhStatus::kInvalidData);
  *delta = static_cast<double>(newer - older);
  return Valid(0);
}

}  // namespace

bool NeedsTwoSamples(uint32_t type) {
  return (type & wp::kDeltaCounter) != 0 || type == wp::kAverageTimer || type == wp::kAverageBulk;
}

CounterValue ComputeCounterValue(const RawCounter& newer, const RawCounter* older,
                                 const FormatOptions& format) {
  const uint32_t type = newer.type;
  if (IsBaseType(type) || type == wp::kCounterText || type == wp::kCounterNodata ||
      type == wp::kCounterHistogramType || !newer.has_value) {
    return Failed(PdhStatus::kNoData);
  }
  const bool two = NeedsTwoSamples(type);
  if (two && older == nullptr) return Failed(PdhStatus::kInvalidData);
  if (two && (older->type != type || older->size != newer.size || !older->has_value)) {
    return Failed(PdhStatus::kInvalidData);
  }
  if (NeedsBase(type) && (!newer.has_base || (two && !older->has_base))) {
    return Failed(PdhStatus::kInvalidData);  // no base counter follows the definition
  }
  const bool multi = (type & wp::kMultiCounter) != 0;
  if (multi && !newer.has_multi_count) return Failed(PdhStatus::kInvalidData);

  Delta dn{true, 0};
  if (two) {
    dn = Difference(newer.value, older->value, newer.size);
    if (!dn.ok) return Failed(PdhStatus::kNegativeValue);
  }
  double dt = 0;  // the time or base delta of the type
  CounterValue time_status = Valid(0);
  double result = 0;
  const SampleTimes& t1 = newer.times;
  switch (type) {
    case wp::kCounterRawcount:
    case wp::kCounterLargeRawcount:
    case wp::kCounterRawcountHex:
    case wp::kCounterLargeRawcountHex:
      result =
          static_cast<double>(newer.size == 4 ? static_cast<uint32_t>(newer.value) : newer.value);
      break;
    case wp::kCounterDelta:
    case wp::kCounterLargeDelta:
      result = dn.value;
      break;
    case wp::kCounterCounter:
    case wp::kCounterBulkCount:
    case wp::kSampleCounter:
      time_status = TimeDelta(t1.perf_time, older->times.perf_time, &dt);
      if (!IsSuccess(time_status.status)) return time_status;
      if (t1.perf_freq <= 0) return Failed(PdhStatus::kNegativeDenominator);
      result = dn.value / (dt / static_cast<double>(t1.perf_freq));
      break;
    case wp::kCounterTimer:
    case wp::kCounterTimerInv:
    case wp::kCounterMultiTimer:
    case wp::kCounterMultiTimerInv:
    case wp::kCounterQueueLen:
    case wp::kCounterLargeQueueLen:
      time_status = TimeDelta(t1.perf_time, older->times.perf_time, &dt);
      break;
    case wp::k100NsecTimer:
    case wp::k100NsecTimerInv:
    case wp::k100NsecMultiTimer:
    case wp::k100NsecMultiTimerInv:
    case wp::kCounter100NsQueueLen:
      time_status = TimeDelta(t1.perf_time_100ns, older->times.perf_time_100ns, &dt);
      break;
    case wp::kObjTimeTimer:
    case wp::kCounterObjTimeQueueLen:
      time_status = TimeDelta(t1.object_time, older->times.object_time, &dt);
      break;
    case wp::kSampleFraction:
    case wp::kAverageTimer:
    case wp::kAverageBulk:
    case wp::kPrecisionSystemTimer:
    case wp::kPrecision100NsTimer:
    case wp::kPrecisionObjectTimer: {
      Delta db = Difference(newer.base, older->base, newer.base_size);
      if (!db.ok) return Failed(PdhStatus::kNegativeDenominator);
      dt = db.value;
      break;
    }
    case wp::kRawFraction:
    case wp::kLargeRawFraction: {
      double base = static_cast<double>(newer.base_size == 4 ? static_cast<uint32_t>(newer.base)
                                                             : newer.base);
      double value =
          static_cast<double>(newer.size == 4 ? static_cast<uint32_t>(newer.value) : newer.value);
      result = base == 0 ? 0 : 100 * value / base;
      break;
    }
    case wp::kElapsedTime: {
      // Elapsed since the value (a start time) in the object's time base; producers that leave
      // the object's time empty (Samba) get the block's.
      int64_t now = t1.object_freq > 0 ? t1.object_time : t1.perf_time;
      int64_t freq = t1.object_freq > 0 ? t1.object_freq : t1.perf_freq;
      if (freq <= 0) return Failed(PdhStatus::kNegativeDenominator);
      int64_t start = static_cast<int64_t>(newer.value);
      if (now < start) return Failed(PdhStatus::kNegativeValue);
      result = static_cast<double>(now - start) / static_cast<double>(freq);
      break;
    }
    default:
      return Failed(PdhStatus::kInvalidData);
  }
  if (!IsSuccess(time_status.status)) return time_status;

  const double count = static_cast<double>(newer.multi_count);
  switch (type) {
    case wp::kCounterTimer:
    case wp::k100NsecTimer:
    case wp::kObjTimeTimer:
      result = 100 * dn.value / dt;
      break;
    case wp::kCounterTimerInv:
    case wp::k100NsecTimerInv:
      // Idle time measured against the clock: jitter between the two can push it a hair past
      // the interval; busy time is never below zero.
      result = std::max(0.0, 100 * (1 - dn.value / dt));
      break;
    case wp::kCounterMultiTimer:
    case wp::k100NsecMultiTimer:
      if (count <= 0) return Failed(PdhStatus::kNegativeDenominator);
      result = 100 * (dn.value / dt) / count;
      break;
    case wp::kCounterMultiTimerInv:
    case wp::k100NsecMultiTimerInv:
      result = std::max(0.0, 100 * (count - dn.value / dt));
      break;
    case wp::kCounterQueueLen:
    case wp::kCounterLargeQueueLen:
    case wp::kCounter100NsQueueLen:
    case wp::kCounterObjTimeQueueLen:
      result = dn.value / dt;
      break;
    case wp::kSampleFraction:
    case wp::kPrecisionSystemTimer:
    case wp::kPrecision100NsTimer:
    case wp::kPrecisionObjectTimer:
      result = dt == 0 ? 0 : 100 * dn.value / dt;
      break;
    case wp::kAverageTimer:
      if (t1.perf_freq <= 0) return Failed(PdhStatus::kNegativeDenominator);
      result = dt == 0 ? 0 : (dn.value / static_cast<double>(t1.perf_freq)) / dt;
      break;
    case wp::kAverageBulk:
      result = dt == 0 ? 0 : dn.value / dt;
      break;
    default:
      break;
  }

  if (!format.no_scale && newer.default_scale != 0) {
    result *= std::pow(10.0, newer.default_scale);
  }
  if (format.times_1000) result *= 1000;
  if (format.cap_100 && (type & wp::kDisplayMask) == wp::kDisplayPercent) {
    result = std::min(result, 100.0);
  }
  if (!std::isfinite(result)) return Failed(PdhStatus::kInvalidData);
  return Valid(result);
}

}  // namespace perfhive
