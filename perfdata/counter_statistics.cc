#include "perfdata/counter_statistics.h"

#include <algorithm>

namespace perfhive {

CounterStatistics ComputeCounterStatistics(std::span<const RawCounter> samples,
                                           const FormatOptions& format) {
  CounterStatistics stats;
  if (samples.empty()) return stats;
  const bool interval = NeedsTwoSamples(samples.front().type);
  double sum = 0;
  for (size_t i = interval ? 1 : 0; i < samples.size(); ++i) {
    CounterValue v = ComputeCounterValue(samples[i], interval ? &samples[i - 1] : nullptr, format);
    if (!IsSuccess(v.status)) continue;
    stats.min = stats.count == 0 ? v.value : std::min(stats.min, v.value);
    stats.max = stats.count == 0 ? v.value : std::max(stats.max, v.value);
    sum += v.value;
    ++stats.count;
  }
  if (stats.count == 0) return stats;
  stats.status = PdhStatus::kValidData;
  stats.mean = sum / stats.count;
  if (interval) {
    CounterValue whole = ComputeCounterValue(samples.back(), &samples.front(), format);
    // Across a reset the whole-run value is meaningless: keep the mean of the valid intervals.
    if (IsSuccess(whole.status)) stats.mean = whole.value;
  }
  return stats;
}

}  // namespace perfhive
