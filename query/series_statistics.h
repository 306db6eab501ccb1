// Statistics of one series and its resampling: both work from the series' raw samples, never
// from computed values, so a mean or a step value is exact over its interval.

#ifndef PERFHIVE_QUERY_SERIES_STATISTICS_H_
#define PERFHIVE_QUERY_SERIES_STATISTICS_H_

#include <cstdint>
#include <vector>

#include "perfdata/calculator.h"
#include "query/series.h"

namespace perfhive::query {

// The value ranked ceil(p/100 · n) among the n `sorted` values (nearest rank, from 1); not
// empty.
double NearestRank(const std::vector<double>& sorted, double p);

// count/min/max/mean over the values (all valid) and their nearest-rank percentiles: the
// statistics of a series computed from other series' values, as an aggregate's.
SeriesStatistics StatisticsOfValues(std::vector<double> values);

// count/min/max/mean over the series' raw samples (ComputeCounterStatistics) and the
// nearest-rank percentiles of the same valid values: the value ranked ceil(p/100 · count).
SeriesStatistics ComputeSeriesStatistics(const Series& series, const FormatOptions& format);

// Replaces the series' points by one per step boundary b_k = first + k·step up to its last raw
// sample: the value from the last raw sample at or before b_(k−1) to the last at or before b_k
// (one-sample types: the latter alone), when a raw sample falls in (b_(k−1), b_k]. Steps
// without a new sample get no point.
void ResampleSeries(Series& series, int64_t first_boundary_ns, int64_t step_ns,
                    const FormatOptions& format);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_SERIES_STATISTICS_H_
