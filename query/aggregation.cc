#include "query/aggregation.h"

#include <algorithm>
#include <utility>

#include "query/series_statistics.h"

namespace perfhive::query {
namespace {

struct FunctionName {
  AggregateFunction function;
  std::string_view name;
};
constexpr FunctionName kFunctions[] = {
    {AggregateFunction::kAvg, "avg"},     {AggregateFunction::kSum, "sum"},
    {AggregateFunction::kMin, "min"},     {AggregateFunction::kMax, "max"},
    {AggregateFunction::kCount, "count"}, {AggregateFunction::kP50, "p50"},
    {AggregateFunction::kP90, "p90"},     {AggregateFunction::kP95, "p95"},
    {AggregateFunction::kP99, "p99"},
};

std::string_view GroupByName(const GroupBy& by) {
  switch (by.kind) {
    case GroupBy::Kind::kCounter:
      return "counter";
    case GroupBy::Kind::kHost:
      return "host";
    case GroupBy::Kind::kInstance:
      return "instance";
    case GroupBy::Kind::kProcess:
      return "process";
    case GroupBy::Kind::kLabel:
      break;
  }
  return by.label;
}

// `sorted` (not empty) combined by `function`.
double Combine(AggregateFunction function, const std::vector<double>& sorted) {
  switch (function) {
    case AggregateFunction::kAvg:
    case AggregateFunction::kSum: {
      double sum = 0;
      for (double value : sorted) sum += value;
      return function == AggregateFunction::kSum ? sum : sum / static_cast<double>(sorted.size());
    }
    case AggregateFunction::kMin:
      return sorted.front();
    case AggregateFunction::kMax:
      return sorted.back();
    case AggregateFunction::kCount:
      return static_cast<double>(sorted.size());
    case AggregateFunction::kP50:
      return NearestRank(sorted, 50);
    case AggregateFunction::kP90:
      return NearestRank(sorted, 90);
    case AggregateFunction::kP95:
      return NearestRank(sorted, 95);
    case AggregateFunction::kP99:
      return NearestRank(sorted, 99);
  }
  return 0;
}

// The aggregate's path: the function around a PDH path whose machine is the group (a host or
// label=value, "*" for every host) and whose instance is the grouped name, the one instance every
// member is of, or "*".
std::string AggregatePath(std::string_view function, const Series& shape, const GroupBy& by,
                          const std::string& group) {
  std::string machine = "*";
  if (by.kind == GroupBy::Kind::kHost) machine = group;
  if (by.kind == GroupBy::Kind::kLabel) machine = by.label + "=" + group;
  std::string path = std::string(function) + "(\\\\" + machine + "\\" + shape.object;
  if (shape.has_instance) path += "(" + shape.instance + ")";
  return path + "\\" + shape.counter + ")";
}

}  // namespace

std::string_view AggregateFunctionName(AggregateFunction function) {
  for (const FunctionName& entry : kFunctions) {
    if (entry.function == function) return entry.name;
  }
  return "?";
}

Result<std::vector<AggregateFunction>> ParseAggregateFunctions(std::string_view text) {
  std::vector<AggregateFunction> functions;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    auto found = std::find_if(std::begin(kFunctions), std::end(kFunctions),
                              [&](const FunctionName& entry) { return entry.name == name; });
    if (found == std::end(kFunctions)) {
      return Status::InvalidArgument("\"" + std::string(name) +
                                     "\" is not an aggregate: use avg, sum, min, max, count, p50, "
                                     "p90, p95 or p99 (several with commas: avg,p95)");
    }
    if (std::find(functions.begin(), functions.end(), found->function) == functions.end()) {
      functions.push_back(found->function);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (functions.empty()) {
    return Status::InvalidArgument(
        "no aggregate named: use avg, sum, min, max, count, p50, p90, "
        "p95 or p99 (several with commas: avg,p95)");
  }
  return functions;
}

Result<GroupBy> ParseGroupBy(std::string_view text) {
  GroupBy by;
  if (text.empty() || text == "counter") return by;
  static constexpr std::pair<std::string_view, GroupBy::Kind> kWords[] = {
      {"host", GroupBy::Kind::kHost},
      {"instance", GroupBy::Kind::kInstance},
      {"process", GroupBy::Kind::kProcess},
  };
  for (const auto& [word, kind] : kWords) {
    if (text == word) {
      by.kind = kind;
      return by;
    }
  }
  std::string_view key = text.starts_with("label:") ? text.substr(6) : text;
  if (!IsLabelKey(key)) {
    return Status::InvalidArgument(
        "cannot group by \"" + std::string(text) +
        "\": use host, instance, process, counter or a label key (role, site, ...)");
  }
  by.kind = GroupBy::Kind::kLabel;
  by.label = std::string(key);
  return by;
}

Aggregator::Aggregator(Aggregation aggregation, const std::map<std::string, HostLabels>& labels,
                       int64_t first_boundary_ns, int64_t step_ns)
    : aggregation_(std::move(aggregation)),
      labels_(labels),
      first_boundary_ns_(first_boundary_ns),
      step_ns_(step_ns) {}

std::string Aggregator::GroupName(const Series& series) const {
  switch (aggregation_.by.kind) {
    case GroupBy::Kind::kCounter:
      return "";
    case GroupBy::Kind::kHost:
      return series.host;
    case GroupBy::Kind::kInstance:
      return series.instance;
    case GroupBy::Kind::kProcess:
      return series.path_instances.empty() ? series.instance : series.path_instances.back().name;
    case GroupBy::Kind::kLabel:
      break;
  }
  auto host = labels_.find(series.host);
  if (host == labels_.end()) return "";
  auto label = host->second.find(aggregation_.by.label);
  return label == host->second.end() ? "" : label->second;
}

void Aggregator::Add(const Series& series) {
  std::lock_guard lock(mutex_);
  std::string name = GroupName(series);
  Group& group = groups_[GroupKey(series.object, series.counter, name)];
  if (group.members++ == 0) {
    group.shape.object_index = series.object_index;
    group.shape.counter_index = series.counter_index;
    group.shape.counter_type = series.counter_type;
    group.shape.object = series.object;
    group.shape.counter = series.counter;
    group.shape.has_instance = series.has_instance;
    const bool by_instance = aggregation_.by.kind == GroupBy::Kind::kInstance ||
                             aggregation_.by.kind == GroupBy::Kind::kProcess;
    group.shape.instance = by_instance ? name : series.instance;
    if (aggregation_.by.kind == GroupBy::Kind::kHost) group.shape.host = name;
  } else if (group.one_instance && aggregation_.by.kind != GroupBy::Kind::kInstance &&
             aggregation_.by.kind != GroupBy::Kind::kProcess &&
             series.instance != group.shape.instance) {
    // Members of several instances: the group's path says so with a wildcard.
    group.one_instance = false;
    group.shape.instance = "*";
  }
  for (const Point& point : series.points) {
    // Only step boundaries are combined: every member's points are at the same ones.
    if ((point.time_ns - first_boundary_ns_) % step_ns_ != 0) continue;
    if (IsSuccess(point.value.status)) group.values[point.time_ns].push_back(point.value.value);
  }
}

std::vector<Series> Aggregator::Finish(bool statistics) {
  std::lock_guard lock(mutex_);
  std::vector<Series> out;
  const std::string by(GroupByName(aggregation_.by));
  for (auto& [key, group] : groups_) {
    for (auto& [time, values] : group.values) std::sort(values.begin(), values.end());
    for (AggregateFunction function : aggregation_.functions) {
      const std::string_view name = AggregateFunctionName(function);
      Series& series = out.emplace_back(group.shape);
      series.paths = {AggregatePath(name, group.shape, aggregation_.by, std::get<2>(key))};
      series.path_instances = {InstancePathName{"", series.instance, 0}};
      SeriesAggregate aggregate{
          std::string(name), by, std::get<2>(key), static_cast<uint32_t>(group.members), {}};
      std::vector<double> combined;
      for (const auto& [time, values] : group.values) {
        if (values.empty()) continue;
        const double value = Combine(function, values);
        series.points.push_back({time, CounterValue{PdhStatus::kValidData, value}, 0, 0});
        aggregate.contributors.push_back(static_cast<uint32_t>(values.size()));
        combined.push_back(value);
      }
      series.aggregate = std::move(aggregate);
      if (statistics) series.stats = StatisticsOfValues(std::move(combined));
    }
  }
  groups_.clear();
  return out;
}

}  // namespace perfhive::query
