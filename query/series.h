// Series: the answer to a query, one series per counter of one instance of one host, with the
// raw samples it was computed from and its points (values with their PDH status). A series
// follows one instance over time (query/instance_identity.h), so its PDH name may change from
// point to point ("java#1" becomes "java" when the first java exits); each point says which.

#ifndef PERFHIVE_QUERY_SERIES_H_
#define PERFHIVE_QUERY_SERIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/counter_statistics.h"
#include "perfdata/instance_names.h"
#include "perfdata/raw_counter.h"
#include "query/instance_identity.h"

namespace perfhive::query {

// One raw sample of the series' counter.
struct RawSample {
  int64_t time_ns = 0;
  uint32_t sample = 0;    // its position in HostSamples::samples
  bool selected = false;  // false: read only as the older end of the next point's interval
  RawCounter raw;
};

struct Point {
  int64_t time_ns = 0;  // the newer sample's own time, or the step boundary when resampled
  CounterValue value;
  uint32_t raw = 0;   // the newer sample, in Series::raw
  uint32_t path = 0;  // the PDH path at this point, in Series::paths
};

// count/min/max/mean as PdhComputeCounterStatistics (perfdata/counter_statistics.h), and
// nearest-rank percentiles over the same valid values.
struct SeriesStatistics {
  CounterStatistics summary;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0;  // meaningful when summary.count > 0
};

// What an aggregated series combines (query/aggregation.h).
struct SeriesAggregate {
  std::string function;  // "avg", "p95", ...
  std::string by;        // the grouping: "counter", "host", "instance", "process", a label key
  std::string group;     // the group's value: a host, a label's value, an instance or process name
  uint32_t members = 0;  // series in the group
  std::vector<uint32_t> contributors;  // for each point, the members with a value at its step
};

// The same series over an earlier window (query/baseline.h).
struct SeriesBaseline {
  int64_t offset_ns = 0;               // how much earlier the window is
  std::vector<Point> points;           // its points, times moved forward by offset_ns to line up
  std::optional<double> mean;          // over the earlier window
  std::optional<double> current_mean;  // over this one, the same way

  // current_mean − mean, and current_mean / mean (none when mean is 0).
  std::optional<double> difference() const {
    if (!mean || !current_mean) return std::nullopt;
    return *current_mean - *mean;
  }
  std::optional<double> ratio() const {
    if (!mean || !current_mean || *mean == 0) return std::nullopt;
    return *current_mean / *mean;
  }
};

// An interval over which a series held a condition (query/held_condition.h).
struct HeldInterval {
  int64_t from_ns = 0;
  int64_t to_ns = 0;
  bool ongoing = false;  // it includes the series' last point: the condition holds as last known
  double extreme = 0;    // the value furthest beyond the threshold within it
};

struct Series {
  std::string host;
  uint32_t object_index = 0;
  uint32_t counter_index = 0;
  uint32_t counter_type = 0;
  std::string object;   // English name, else the index in decimal
  std::string counter;  // likewise
  bool has_instance = false;
  std::string instance;  // the latest PDH instance name ("java#1", "explorer/0")
  InstanceIdentity identity;
  std::vector<std::string> paths;  // every full PDH path it had, in order; the last is current
  // The instance's PDH name in each of `paths` (empty names for an object without instances),
  // so a point's instance is known without parsing its path back.
  std::vector<InstancePathName> path_instances;
  std::vector<RawSample> raw;
  std::vector<Point> points;
  std::optional<SeriesStatistics> stats;
  std::optional<SeriesAggregate> aggregate;  // set on the series of an aggregated read
  std::optional<SeriesBaseline> baseline;    // set when the read compares with an earlier window
  std::vector<HeldInterval> held;  // with a condition (ReadRequest::condition): where it held

  const std::string& path() const { return paths.back(); }
};

struct QueryAnswer {
  std::vector<Series> series;  // in order of first appearance: by sample, then snapshot order
  // Samples that could not be read (malformed bytes), named by host and time: data, not errors.
  std::vector<std::string> warnings;
  // With a condition (ReadRequest::condition): how many series it was checked on, of which
  // `series` are those that held it.
  size_t held_checked = 0;

  size_t num_points() const;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_SERIES_H_
