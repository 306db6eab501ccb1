// Statistics over a run of raw samples of one counter, like PdhComputeCounterStatistics:
// count, minimum, maximum and mean. Minimum and maximum are over the values of the run (one per
// sample, or one per interval between consecutive samples for two-sample types). The mean of a
// type that divides by time or by a base (rates, timers, averages, fractions) is its value over
// the whole run, the summed differences of the valid intervals put through the formula once:
// with every interval valid that is the value between the first and the last raw sample, as
// PDH computes it, and unlike the mean of the interval values it does not weigh a short
// interval like a long one. docs/counter_math.md explains the choices.

#ifndef PERFHIVE_PERFDATA_COUNTER_STATISTICS_H_
#define PERFHIVE_PERFDATA_COUNTER_STATISTICS_H_

#include <cstdint>
#include <span>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"

namespace perfhive {

struct CounterStatistics {
  PdhStatus status = PdhStatus::kInvalidData;  // kValidData when at least one value was valid
  uint32_t count = 0;                          // the valid values that min, max and mean cover
  uint32_t invalid = 0;  // the values left out for their status (a reset, a clock step back, ...)
  double min = 0;
  double max = 0;
  double mean = 0;
};

// `samples` in time order, all of one counter (a sample of another type or size is invalid).
// Invalid values are left out of every figure; the whole-run mean sums only the valid intervals,
// so a counter reset or a 32-bit counter wrapping several times over the run leaves it right.
// Deltas (PERF_COUNTER_DELTA, _LARGE_DELTA) divide by nothing: their mean is arithmetic, as is
// that of one-sample types.
CounterStatistics ComputeCounterStatistics(std::span<const RawCounter> samples,
                                           const FormatOptions& format = {});

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_COUNTER_STATISTICS_H_
