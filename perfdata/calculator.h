// The counter calculator: turns one or two RawCounters into the value a person expects, for
// every counter type, with PDH's status semantics. docs/counter_math.md lists each formula,
// the time base it uses, and the status of every case without a value.

#ifndef PERFHIVE_PERFDATA_CALCULATOR_H_
#define PERFHIVE_PERFDATA_CALCULATOR_H_

#include <cstdint>

#include "perfdata/pdh_status.h"
#include "perfdata/raw_counter.h"

namespace perfhive {

// What changes the number, as in PDH: the caller's scale factor (PdhSetCounterScaleFactor), the
// format flags PDH_FMT_NOSCALE and PDH_FMT_1000, and the cap that PDH applies unless
// PDH_FMT_NOCAP100 (perfhive does not cap unless asked: multi-core process CPU legitimately
// exceeds 100%). A counter's DefaultScale never changes a value: it is the chart scale a viewer
// may use, like perfmon's "Scale" column.
struct FormatOptions {
  int scale_factor = 0;     // ×10^scale_factor; PDH accepts −7..7 and starts at 0
  bool no_scale = false;    // ignore scale_factor
  bool times_1000 = false;  // multiply by 1000
  bool cap_100 = false;     // cap percentages at 100
};

struct CounterValue {
  PdhStatus status = PdhStatus::kInvalidData;
  double value = 0;  // meaningful only when IsSuccess(status)

  // PDH_FMT_LONG / PDH_FMT_LARGE: the value truncated toward zero, held at the integer's limits
  // when it does not fit.
  int32_t AsLong() const;
  int64_t AsLarge() const;
};

// Whether the type needs two samples (a delta, or an average over an interval).
bool NeedsTwoSamples(uint32_t type);

// The value of `newer`, against `older` (nullptr for the first sample) for two-sample types.
// Allocation-free.
CounterValue ComputeCounterValue(const RawCounter& newer, const RawCounter* older,
                                 const FormatOptions& format = {});

// A two-sample value in two steps, for callers that combine intervals (statistics over a run):
// MeasureInterval takes the differences the type's formula divides, EvaluateInterval applies
// the formula with the newer sample's frequency and item count. Intervals of
// consecutive samples add up to the interval from the first to the last, each 32-bit wrap
// counted once. ComputeCounterValue(newer, &older) is
// EvaluateInterval(MeasureInterval(newer, older), newer).
struct CounterInterval {
  PdhStatus status = PdhStatus::kInvalidData;
  double value = 0;        // N1 − N0, in the counter's width
  double denominator = 0;  // the time or base difference the type divides by (0 for deltas)
};
CounterInterval MeasureInterval(const RawCounter& newer, const RawCounter& older);
CounterValue EvaluateInterval(const CounterInterval& interval, const RawCounter& newer,
                              const FormatOptions& format = {});

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_CALCULATOR_H_
