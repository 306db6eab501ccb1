// Statistics over a run of raw samples of one counter, like PdhComputeCounterStatistics:
// count, minimum, maximum and mean of the values. For types computed over an interval (rates,
// timers, averages) the mean is the value between the first and the last raw sample, the true
// average over the whole run, not the mean of the per-interval values (which weighs short and
// long intervals alike); for instantaneous types it is the arithmetic mean.

#ifndef PERFHIVE_PERFDATA_COUNTER_STATISTICS_H_
#define PERFHIVE_PERFDATA_COUNTER_STATISTICS_H_

#include <cstdint>
#include <span>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"

namespace perfhive {

struct CounterStatistics {
  PdhStatus status = PdhStatus::kInvalidData;  // valid when at least one value was
  uint32_t count = 0;                          // the values that were valid
  double min = 0;
  double max = 0;
  double mean = 0;
};

// `samples` in time order. Values without a valid status (a counter reset, a time step
// backwards) are left out of count, min and max.
CounterStatistics ComputeCounterStatistics(std::span<const RawCounter> samples,
                                           const FormatOptions& format = {});

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_COUNTER_STATISTICS_H_
