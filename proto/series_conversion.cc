#include "proto/series_conversion.h"

#include <algorithm>

#include "query/fleet_parameters.h"

namespace perfhive {

namespace {

// Points as columns: times as deltas, values, statuses, and the raw and path indexes when kept.
void WritePoints(const std::vector<query::Point>& points, bool with_raw,
                 perfhive::v1::PointColumns* columns) {
  const int count = static_cast<int>(points.size());
  columns->mutable_time_deltas()->Reserve(count);
  columns->mutable_values()->Reserve(count);
  columns->mutable_statuses()->Reserve(count);
  if (with_raw) columns->mutable_raw()->Reserve(count);
  const bool one_path = std::all_of(points.begin(), points.end(),
                                    [](const query::Point& point) { return point.path == 0; });
  if (!one_path) columns->mutable_paths()->Reserve(count);
  int64_t previous_ns = 0;
  for (const query::Point& point : points) {
    columns->add_time_deltas(point.time_ns - previous_ns);
    previous_ns = point.time_ns;
    columns->add_values(point.value.value);
    columns->add_statuses(static_cast<uint32_t>(point.value.status));
    if (with_raw) columns->add_raw(point.raw);
    if (!one_path) columns->add_paths(point.path);
  }
}

// The points of `columns`, raw and path indexes kept when below `raw_count` and `path_count`.
// DATA_LOSS (naming `what`) when the columns differ in length.
Result<std::vector<query::Point>> ReadPoints(const perfhive::v1::PointColumns& columns,
                                             size_t raw_count, size_t path_count,
                                             const std::string& what) {
  const int count = columns.time_deltas_size();
  if (columns.values_size() != count || columns.statuses_size() != count ||
      (columns.raw_size() != 0 && columns.raw_size() != count) ||
      (columns.paths_size() != 0 && columns.paths_size() != count)) {
    return Status::DataLoss(what + ": point columns of different lengths");
  }
  std::vector<query::Point> points(static_cast<size_t>(count));
  int64_t time_ns = 0;
  for (int k = 0; k < count; ++k) {
    query::Point& point = points[static_cast<size_t>(k)];
    time_ns += columns.time_deltas(k);
    point.time_ns = time_ns;
    point.value.value = columns.values(k);
    point.value.status = static_cast<PdhStatus>(columns.statuses(k));
    const uint32_t raw = columns.raw_size() != 0 ? columns.raw(k) : 0;
    const uint32_t path = columns.paths_size() != 0 ? columns.paths(k) : 0;
    point.raw = raw < raw_count ? raw : 0;
    point.path = path < path_count ? path : 0;
  }
  return points;
}

}  // namespace

void SeriesToProto(const query::Series& series, bool with_raw, perfhive::v1::Series* out) {
  out->set_host(series.host);
  out->set_object_index(series.object_index);
  out->set_counter_index(series.counter_index);
  out->set_counter_type(series.counter_type);
  out->set_object(series.object);
  out->set_counter(series.counter);
  out->set_has_instance(series.has_instance);
  out->set_instance(series.instance);
  const query::InstanceIdentity& identity = series.identity;
  out->set_has_pid(identity.pid.has_value());
  out->set_pid(identity.pid.value_or(0));
  out->set_has_tid(identity.tid.has_value());
  out->set_tid(identity.tid.value_or(0));
  out->set_has_start(identity.start.has_value());
  out->set_start(identity.start.value_or(0));
  out->set_identity_key(identity.key);
  for (const std::string& path : series.paths) out->add_paths(path);
  if (with_raw) {
    for (const query::RawSample& raw : series.raw) {
      perfhive::v1::RawSample* sample = out->add_raw();
      sample->set_time_unix_nanos(raw.time_ns);
      sample->set_has_value(raw.raw.has_value);
      sample->set_value(raw.raw.value);
      sample->set_has_base(raw.raw.has_base);
      sample->set_base(raw.raw.base);
      sample->set_selected(raw.selected);
    }
  }
  WritePoints(series.points, with_raw, out->mutable_points());
  if (series.stats) {
    perfhive::v1::SeriesStatistics* stats = out->mutable_statistics();
    const CounterStatistics& summary = series.stats->summary;
    stats->set_status(static_cast<uint32_t>(summary.status));
    stats->set_count(summary.count);
    stats->set_invalid(summary.invalid);
    stats->set_min(summary.min);
    stats->set_max(summary.max);
    stats->set_mean(summary.mean);
    stats->set_p50(series.stats->p50);
    stats->set_p90(series.stats->p90);
    stats->set_p95(series.stats->p95);
    stats->set_p99(series.stats->p99);
  }
  if (series.aggregate) {
    perfhive::v1::Aggregate* aggregate = out->mutable_aggregate();
    aggregate->set_function(series.aggregate->function);
    aggregate->set_by(series.aggregate->by);
    aggregate->set_group(series.aggregate->group);
    aggregate->set_members(series.aggregate->members);
    aggregate->mutable_contributors()->Add(series.aggregate->contributors.begin(),
                                           series.aggregate->contributors.end());
  }
  if (series.baseline) {
    perfhive::v1::Baseline* baseline = out->mutable_baseline();
    baseline->set_offset_nanos(series.baseline->offset_ns);
    WritePoints(series.baseline->points, false, baseline->mutable_points());
    baseline->set_has_mean(series.baseline->mean.has_value());
    baseline->set_mean(series.baseline->mean.value_or(0));
    baseline->set_has_current_mean(series.baseline->current_mean.has_value());
    baseline->set_current_mean(series.baseline->current_mean.value_or(0));
  }
  for (const query::HeldInterval& interval : series.held) {
    perfhive::v1::HeldInterval* held = out->add_held();
    held->set_from_unix_nanos(interval.from_ns);
    held->set_to_unix_nanos(interval.to_ns);
    held->set_ongoing(interval.ongoing);
    held->set_extreme(interval.extreme);
  }
}

Result<query::Series> SeriesFromProto(const perfhive::v1::Series& in) {
  query::Series series;
  series.host = in.host();
  series.object_index = in.object_index();
  series.counter_index = in.counter_index();
  series.counter_type = in.counter_type();
  series.object = in.object();
  series.counter = in.counter();
  series.has_instance = in.has_instance();
  series.instance = in.instance();
  if (in.has_pid()) series.identity.pid = in.pid();
  if (in.has_tid()) series.identity.tid = in.tid();
  if (in.has_start()) series.identity.start = in.start();
  series.identity.key = in.identity_key();
  series.paths.assign(in.paths().begin(), in.paths().end());
  // A series always has a current path; an answer from an older server might not.
  if (series.paths.empty()) series.paths.push_back("");
  for (const perfhive::v1::RawSample& sample : in.raw()) {
    query::RawSample raw;
    raw.time_ns = sample.time_unix_nanos();
    raw.selected = sample.selected();
    raw.raw.type = in.counter_type();
    raw.raw.has_value = sample.has_value();
    raw.raw.value = sample.value();
    raw.raw.has_base = sample.has_base();
    raw.raw.base = sample.base();
    series.raw.push_back(raw);
  }
  Result<std::vector<query::Point>> points =
      ReadPoints(in.points(), series.raw.size(), series.paths.size(),
                 "series " + in.identity_key() + " of host " + in.host());
  if (!points.ok()) return points.status();
  series.points = std::move(points).value();
  if (in.has_statistics()) {
    const perfhive::v1::SeriesStatistics& stats = in.statistics();
    query::SeriesStatistics converted;
    converted.summary.status = static_cast<PdhStatus>(stats.status());
    converted.summary.count = stats.count();
    converted.summary.invalid = stats.invalid();
    converted.summary.min = stats.min();
    converted.summary.max = stats.max();
    converted.summary.mean = stats.mean();
    converted.p50 = stats.p50();
    converted.p90 = stats.p90();
    converted.p95 = stats.p95();
    converted.p99 = stats.p99();
    series.stats = converted;
  }
  if (in.has_aggregate()) {
    const perfhive::v1::Aggregate& aggregate = in.aggregate();
    if (static_cast<size_t>(aggregate.contributors_size()) != series.points.size()) {
      return Status::DataLoss("aggregate " + series.path() +
                              ": contributors for a different number of points");
    }
    series.aggregate =
        query::SeriesAggregate{aggregate.function(),
                               aggregate.by(),
                               aggregate.group(),
                               aggregate.members(),
                               {aggregate.contributors().begin(), aggregate.contributors().end()}};
  }
  if (in.has_baseline()) {
    const perfhive::v1::Baseline& baseline = in.baseline();
    Result<std::vector<query::Point>> earlier =
        ReadPoints(baseline.points(), 0, 0, "baseline of " + series.path());
    if (!earlier.ok()) return earlier.status();
    series.baseline = query::SeriesBaseline{baseline.offset_nanos(), std::move(earlier).value(),
                                            std::nullopt, std::nullopt};
    if (baseline.has_mean()) series.baseline->mean = baseline.mean();
    if (baseline.has_current_mean()) series.baseline->current_mean = baseline.current_mean();
  }
  for (const perfhive::v1::HeldInterval& held : in.held()) {
    series.held.push_back(
        {held.from_unix_nanos(), held.to_unix_nanos(), held.ongoing(), held.extreme()});
  }
  return series;
}

Result<query::ReadRequest> ReadRequestFromProto(const perfhive::v1::ReadRequest& in) {
  query::ReadRequest request;
  query::FleetParameters fleet{in.host_selector(), in.aggregates(), in.group_by(), in.top(),
                               in.bottom(),        in.rank_by(),    in.compare(),  in.held()};
  if (Status status = query::ApplyFleetParameters(fleet, request); !status.ok()) return status;
  request.paths.assign(in.paths().begin(), in.paths().end());
  request.from_ns = in.from_unix_nanos();
  request.to_ns = in.to_unix_nanos() == 0 ? INT64_MAX : in.to_unix_nanos();
  if (in.step_nanos() > 0) request.step_ns = in.step_nanos();
  request.statistics = in.statistics();
  request.raw = in.raw();
  request.latest_only = in.latest_only();
  request.format.scale_factor = in.scale_factor();
  request.format.cap_100 = in.cap_100();
  request.max_points = in.max_points();
  return request;
}

}  // namespace perfhive
