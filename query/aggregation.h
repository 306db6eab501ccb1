// Aggregation: the fleet's view of a read. The series of many hosts are put in groups (by
// counter, host, label, instance name or process name) and each group is combined step by step
// into new series: avg, sum, min, max, count and nearest-rank percentiles. A step's aggregate is
// taken over the members that have a value at that step boundary (query/series_statistics.h's
// resampling, exact from raw samples); a member without one is missing, never zero, and each
// point says how many members it combined. docs/query_semantics.md ("Aggregates") has the rules.

#ifndef PERFHIVE_QUERY_AGGREGATION_H_
#define PERFHIVE_QUERY_AGGREGATION_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/status.h"
#include "perfdata/calculator.h"
#include "query/host_selector.h"
#include "query/series.h"

namespace perfhive::query {

enum class AggregateFunction { kAvg, kSum, kMin, kMax, kCount, kP50, kP90, kP95, kP99 };

// "avg", "sum", "min", "max", "count", "p50", "p90", "p95", "p99".
std::string_view AggregateFunctionName(AggregateFunction function);
// A comma-separated list of those names, in the order given, without repeats.
Result<std::vector<AggregateFunction>> ParseAggregateFunctions(std::string_view text);

// What the series of a group share besides their counter (series of different counters are never
// combined): nothing more (kCounter), the host, one label's value, the instance's PDH name, or
// the process name (the instance name without its #n).
struct GroupBy {
  enum class Kind { kCounter, kHost, kLabel, kInstance, kProcess };
  Kind kind = Kind::kCounter;
  std::string label;  // kLabel: the key
};
// "counter", "host", "instance", "process", or a label key ("label:KEY" when the key is one of
// those words).
Result<GroupBy> ParseGroupBy(std::string_view text);

struct Aggregation {
  GroupBy by;
  std::vector<AggregateFunction> functions;
};

// Series of one read folded into groups as they are computed, host after host (from threads at
// once), so a fleet's answer holds one value per member and step rather than every host's
// samples. Series must be resampled to the same boundaries (first_boundary_ns + k·step_ns).
class Aggregator {
 public:
  // `labels`: the labels of every host whose series are added (for grouping by label; a host
  // not in it has none), kept by reference.
  Aggregator(Aggregation aggregation, const std::map<std::string, HostLabels>& labels,
             int64_t first_boundary_ns, int64_t step_ns);

  // Adds a computed series, points trimmed to the range.
  void Add(const Series& series);
  // The group series: for each group in (object, counter, group) order, one series per function
  // in the order asked, a point for each step that has at least one member value.
  // Aggregated series have no host but for kHost groups, no identity and no raw samples; their
  // `aggregate` says what they combine. With `statistics`, each gets statistics over its points.
  std::vector<Series> Finish(bool statistics);

 private:
  struct Group {
    Series shape;  // object, counter, type, group name; no points
    size_t members = 0;
    bool one_instance = true;  // every member is of the instance `shape.instance` names
    std::map<int64_t, std::vector<double>> values;  // step boundary → member values there
  };
  using GroupKey = std::tuple<std::string, std::string, std::string>;  // object, counter, group

  // The group `series` belongs to, by the grouping.
  std::string GroupName(const Series& series) const;

  Aggregation aggregation_;
  const std::map<std::string, HostLabels>& labels_;
  int64_t first_boundary_ns_;
  int64_t step_ns_;
  std::mutex mutex_;
  std::map<GroupKey, Group> groups_;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_AGGREGATION_H_
