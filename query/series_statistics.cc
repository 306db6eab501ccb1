#include "query/series_statistics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "perfdata/counter_statistics.h"

namespace perfhive::query {
namespace {

void SetPercentiles(const std::vector<double>& sorted, SeriesStatistics& stats) {
  stats.p50 = NearestRank(sorted, 50);
  stats.p90 = NearestRank(sorted, 90);
  stats.p95 = NearestRank(sorted, 95);
  stats.p99 = NearestRank(sorted, 99);
}

}  // namespace

double NearestRank(const std::vector<double>& sorted, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

SeriesStatistics StatisticsOfValues(std::vector<double> values) {
  SeriesStatistics stats;
  if (values.empty()) return stats;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double value : values) sum += value;
  stats.summary.status = PdhStatus::kValidData;
  stats.summary.count = static_cast<uint32_t>(values.size());
  stats.summary.min = values.front();
  stats.summary.max = values.back();
  stats.summary.mean = sum / static_cast<double>(values.size());
  SetPercentiles(values, stats);
  return stats;
}

SeriesStatistics ComputeSeriesStatistics(const Series& series, const FormatOptions& format) {
  std::vector<RawCounter> raw;
  raw.reserve(series.raw.size());
  for (const RawSample& sample : series.raw) raw.push_back(sample.raw);
  SeriesStatistics stats;
  stats.summary = ComputeCounterStatistics(raw, format);
  // The same values ComputeCounterStatistics takes min and max over.
  const bool interval = NeedsTwoSamples(series.counter_type);
  std::vector<double> values;
  values.reserve(raw.size());
  for (size_t i = interval ? 1 : 0; i < raw.size(); ++i) {
    CounterValue value = ComputeCounterValue(raw[i], interval ? &raw[i - 1] : nullptr, format);
    if (IsSuccess(value.status)) values.push_back(value.value);
  }
  if (values.empty()) return stats;
  std::sort(values.begin(), values.end());
  SetPercentiles(values, stats);
  return stats;
}

void ResampleSeries(Series& series, int64_t first_boundary_ns, int64_t step_ns,
                    const FormatOptions& format) {
  std::vector<Point> points;
  if (series.raw.empty()) {
    series.points.clear();
    return;
  }
  const bool interval = NeedsTwoSamples(series.counter_type);
  const int64_t last_time = series.raw.back().time_ns;
  // raw[0, at): the raw samples at or before the boundary.
  size_t at = 0, original = 0;
  uint32_t path = 0;
  for (int64_t boundary = first_boundary_ns; boundary - step_ns < last_time; boundary += step_ns) {
    const size_t older_at = at;  // at or before the previous boundary
    while (at < series.raw.size() && series.raw[at].time_ns <= boundary) ++at;
    while (original < series.points.size() && series.points[original].raw < at) {
      path = series.points[original++].path;
    }
    const bool first = boundary == first_boundary_ns;
    if (at == 0 || (at == older_at && !first)) continue;  // no raw sample in this step
    const RawCounter* older = nullptr;
    if (interval) {
      if (first || older_at == 0) continue;
      older = &series.raw[older_at - 1].raw;
    }
    points.push_back({boundary, ComputeCounterValue(series.raw[at - 1].raw, older, format),
                      static_cast<uint32_t>(at - 1), path});
  }
  series.points = std::move(points);
}

}  // namespace perfhive::query
