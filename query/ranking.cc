#include "query/ranking.h"

#include <algorithm>
#include <string>
#include <utility>

namespace perfhive::query {
namespace {

struct StatisticName {
  RankStatistic statistic;
  std::string_view name;
};
constexpr StatisticName kStatistics[] = {
    {RankStatistic::kMean, "mean"}, {RankStatistic::kMin, "min"}, {RankStatistic::kMax, "max"},
    {RankStatistic::kLast, "last"}, {RankStatistic::kP50, "p50"}, {RankStatistic::kP90, "p90"},
    {RankStatistic::kP95, "p95"},   {RankStatistic::kP99, "p99"},
};

}  // namespace

Result<RankStatistic> ParseRankStatistic(std::string_view text) {
  for (const StatisticName& entry : kStatistics) {
    if (entry.name == text) return entry.statistic;
  }
  return Status::InvalidArgument("cannot rank by \"" + std::string(text) +
                                 "\": use mean, min, max, last, p50, p90, p95 or p99");
}

std::string_view RankStatisticName(RankStatistic statistic) {
  for (const StatisticName& entry : kStatistics) {
    if (entry.statistic == statistic) return entry.name;
  }
  return "?";
}

std::optional<double> RankValue(const Series& series, RankStatistic statistic) {
  if (statistic == RankStatistic::kLast) {
    for (auto point = series.points.rbegin(); point != series.points.rend(); ++point) {
      if (IsSuccess(point->value.status)) return point->value.value;
    }
    return std::nullopt;
  }
  if (!series.stats || series.stats->summary.count == 0) return std::nullopt;
  const SeriesStatistics& stats = *series.stats;
  switch (statistic) {
    case RankStatistic::kMean:
      return stats.summary.mean;
    case RankStatistic::kMin:
      return stats.summary.min;
    case RankStatistic::kMax:
      return stats.summary.max;
    case RankStatistic::kP50:
      return stats.p50;
    case RankStatistic::kP90:
      return stats.p90;
    case RankStatistic::kP95:
      return stats.p95;
    case RankStatistic::kP99:
      return stats.p99;
    case RankStatistic::kLast:
      break;
  }
  return std::nullopt;
}

void RankSeries(std::vector<Series>& series, const Ranking& ranking) {
  std::vector<std::pair<double, size_t>> ranked;  // value, position
  for (size_t i = 0; i < series.size(); ++i) {
    if (std::optional<double> value = RankValue(series[i], ranking.by))
      ranked.emplace_back(*value, i);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    return ranking.highest ? a.first > b.first : a.first < b.first;
  });
  if (ranked.size() > ranking.count) ranked.resize(ranking.count);
  std::vector<Series> kept;
  kept.reserve(ranked.size());
  for (const auto& [value, position] : ranked) kept.push_back(std::move(series[position]));
  series = std::move(kept);
}

}  // namespace perfhive::query
