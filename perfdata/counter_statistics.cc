#include "perfdata/counter_statistics.h"

#include <algorithm>

#include "perfdata/winperf.h"

namespace perfhive {

CounterStatistics ComputeCounterStatistics(std::span<const RawCounter> samples,
                                           const FormatOptions& format) {
  CounterStatistics stats;
  if (samples.empty()) return stats;
  const uint32_t type = samples.front().type;
  const bool interval = NeedsTwoSamples(type);
  const bool whole_run_mean =
      interval && type != winperf::kCounterDelta && type != winperf::kCounterLargeDelta;
  CounterInterval run{PdhStatus::kValidData, 0, 0};
  const RawCounter* last_valid = nullptr;  // the newer sample of the last valid interval
  double sum = 0;
  for (size_t i = interval ? 1 : 0; i < samples.size(); ++i) {
    const RawCounter& sample = samples[i];
    CounterValue value{PdhStatus::kInvalidData, 0};
    if (sample.type == type && interval) {
      CounterInterval step = MeasureInterval(sample, samples[i - 1]);
      value = EvaluateInterval(step, sample, format);
      if (IsSuccess(value.status)) {
        run.value += step.value;
        run.denominator += step.denominator;
        last_valid = &sample;
      }
    } else if (sample.type == type) {
      value = ComputeCounterValue(sample, nullptr, format);
    }
    if (!IsSuccess(value.status)) {
      ++stats.invalid;
      continue;
    }
    stats.min = stats.count == 0 ? value.value : std::min(stats.min, value.value);
    stats.max = stats.count == 0 ? value.value : std::max(stats.max, value.value);
    sum += value.value;
    ++stats.count;
  }
  if (stats.count == 0) return stats;
  if (whole_run_mean) {
    // Valid: every interval summed was, and the last one's frequency and item count are.
    CounterValue whole = EvaluateInterval(run, *last_valid, format);
    stats.status = whole.status;
    stats.mean = whole.value;
  } else {
    stats.status = PdhStatus::kValidData;
    stats.mean = sum / stats.count;
  }
  return stats;
}

}  // namespace perfhive
