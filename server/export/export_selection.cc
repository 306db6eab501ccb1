#include "server/export/export_selection.h"

#include <limits>
#include <string_view>
#include <unordered_set>

#include "perfdata/pdh_status.h"
#include "query/series_query.h"

namespace perfhive {
namespace {

Result<std::vector<CounterPath>> ParsePaths(const std::vector<std::string>& texts,
                                            std::string_view what) {
  std::vector<CounterPath> paths;
  for (const std::string& text : texts) {
    Result<CounterPath> path = ParseCounterPath(text);
    if (!path.ok()) return path.status().Prefixed(std::string(what) + " " + text + ": ");
    paths.push_back(std::move(path).value());
  }
  return paths;
}

query::QueryOptions AllPoints() {
  query::QueryOptions options;
  // The caller bounds the samples it loads, and so the points.
  options.max_points = std::numeric_limits<size_t>::max();
  return options;
}

// A point by its time and full PDH path: what an exclude pattern selected.
std::string PointKey(int64_t time_ns, const std::string& path) {
  return std::to_string(time_ns) + " " + path;
}

// Title indexes stand in for names the host's English database lacks.
bool HasEnglishNames(const query::Series& series) {
  return series.object != std::to_string(series.object_index) &&
         series.counter != std::to_string(series.counter_index);
}

}  // namespace

const std::vector<std::string>& ExportSelection::DefaultInclude() {
  static const std::vector<std::string> paths = {"\\*(*)\\*", "\\*\\*"};
  return paths;
}

Result<ExportSelection> ExportSelection::Parse(const std::vector<std::string>& include,
                                               const std::vector<std::string>& exclude) {
  ExportSelection selection;
  Result<std::vector<CounterPath>> included =
      ParsePaths(include.empty() ? DefaultInclude() : include, "--export-include");
  if (!included.ok()) return included.status();
  Result<std::vector<CounterPath>> excluded = ParsePaths(exclude, "--export-exclude");
  if (!excluded.ok()) return excluded.status();
  selection.include_ = std::move(included).value();
  selection.exclude_ = std::move(excluded).value();
  return selection;
}

Result<std::vector<ComputedSample>> ExportSelection::Compute(const query::HostSamples& samples,
                                                             int64_t after_ns) const {
  const query::QueryOptions options = AllPoints();
  query::QueryAnswer answer;
  if (Status s = query::AddHostSeries(samples, include_, options, answer); !s.ok()) return s;
  // Excluded points are found by expanding the exclude patterns the same way, so an exclusion
  // means exactly what the same path means to `perfhive query`.
  std::unordered_set<std::string> excluded;
  if (!exclude_.empty()) {
    query::QueryAnswer unwanted;
    if (Status s = query::AddHostSeries(samples, exclude_, options, unwanted); !s.ok()) return s;
    for (const query::Series& series : unwanted.series) {
      for (const query::Point& point : series.points) {
        if (point.time_ns > after_ns)
          excluded.insert(PointKey(point.time_ns, series.paths[point.path]));
      }
    }
  }
  std::vector<ComputedSample> computed;
  for (const query::Series& series : answer.series) {
    if (!HasEnglishNames(series)) continue;
    for (const query::Point& point : series.points) {
      if (point.time_ns <= after_ns || !IsSuccess(point.value.status)) continue;
      if (!excluded.empty() &&
          excluded.contains(PointKey(point.time_ns, series.paths[point.path]))) {
        continue;
      }
      ComputedSample& sample = computed.emplace_back();
      sample.host = series.host;
      sample.object_english = series.object;
      sample.counter_english = series.counter;
      if (series.has_instance) {
        const InstancePathName& instance = series.path_instances[point.path];
        sample.instance = instance.ToString();
        sample.parent = instance.parent;
      }
      sample.counter_type = series.counter_type;
      if (series.identity.pid) sample.pid = static_cast<uint32_t>(*series.identity.pid);
      sample.timestamp_ms = point.time_ns / 1'000'000;
      sample.value = point.value.value;
    }
  }
  return computed;
}

}  // namespace perfhive
