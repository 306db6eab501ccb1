// Ranking: the top or bottom N series of an answer (hosts' series or groups' aggregates) by one
// statistic over the range: "the ten hosts with the highest p95 of Avg. Disk sec/Read".

#ifndef PERFHIVE_QUERY_RANKING_H_
#define PERFHIVE_QUERY_RANKING_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "query/series.h"

namespace perfhive::query {

enum class RankStatistic { kMean, kMin, kMax, kLast, kP50, kP90, kP95, kP99 };

// "mean", "min", "max", "last", "p50", "p90", "p95", "p99".
Result<RankStatistic> ParseRankStatistic(std::string_view text);
std::string_view RankStatisticName(RankStatistic statistic);

struct Ranking {
  RankStatistic by = RankStatistic::kMean;
  size_t count = 0;     // the series kept
  bool highest = true;  // the top N; false: the bottom N
};

// The statistic of `series`: its last valid point's value for kLast, else from its statistics
// (which the read computed: over raw samples for a host's series, over the points for an
// aggregate); nothing when it has no valid value.
std::optional<double> RankValue(const Series& series, RankStatistic statistic);

// Keeps the `ranking.count` series with the highest (or lowest) statistic, in rank order; ties
// keep the answer's order. Series without a value for the statistic are never ranked.
void RankSeries(std::vector<Series>& series, const Ranking& ranking);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_RANKING_H_
