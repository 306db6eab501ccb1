#include "query/fleet_parameters.h"

#include "perfdata/time_text.h"

namespace perfhive::query {

Status ApplyFleetParameters(const FleetParameters& parameters, ReadRequest& request) {
  Result<HostSelector> selector = HostSelector::Parse(parameters.select);
  if (!selector.ok()) return selector.status();
  request.hosts = std::move(selector).value();

  if (!parameters.aggregates.empty()) {
    Result<std::vector<AggregateFunction>> functions =
        ParseAggregateFunctions(parameters.aggregates);
    if (!functions.ok()) return functions.status();
    Result<GroupBy> by = ParseGroupBy(parameters.group_by);
    if (!by.ok()) return by.status();
    request.aggregation = Aggregation{std::move(by).value(), std::move(functions).value()};
  } else if (!parameters.group_by.empty()) {
    return Status::InvalidArgument("grouping by \"" + parameters.group_by +
                                   "\" needs aggregates to combine each group with (e.g. avg,p95)");
  }

  if (parameters.top > 0 && parameters.bottom > 0) {
    return Status::InvalidArgument("rank by the top or the bottom series, not both");
  }
  if (parameters.top > 0 || parameters.bottom > 0) {
    Ranking ranking;
    ranking.highest = parameters.top > 0;
    ranking.count = ranking.highest ? parameters.top : parameters.bottom;
    if (!parameters.rank_by.empty()) {
      Result<RankStatistic> by = ParseRankStatistic(parameters.rank_by);
      if (!by.ok()) return by.status();
      ranking.by = *by;
    }
    request.ranking = ranking;
  } else if (!parameters.rank_by.empty()) {
    return Status::InvalidArgument("ranking by " + parameters.rank_by +
                                   " needs how many to keep: the top or bottom N");
  }
  if (!parameters.compare.empty()) {
    Result<int64_t> span = ParseSpan(parameters.compare);
    if (!span.ok() || *span == 0) {
      return Status::InvalidArgument("compare with a window how much earlier? \"" +
                                     parameters.compare + "\" is not a span (1h, 1d, 1w)");
    }
    request.compare_ns = *span;
  }
  if (!parameters.held.empty()) {
    Result<HeldCondition> condition = ParseHeldCondition(parameters.held);
    if (!condition.ok()) return condition.status();
    request.condition = std::move(condition).value();
  }
  return Status();
}

}  // namespace perfhive::query
