#include "query/baseline.h"

#include <string>
#include <unordered_map>
#include <utility>

namespace perfhive::query {

std::optional<double> ComparedMean(const Series& series) {
  if (!series.stats || series.stats->summary.count == 0) return std::nullopt;
  return series.stats->summary.mean;
}

void AttachBaselines(std::vector<Series>& now, std::vector<Series>& earlier, int64_t offset_ns) {
  std::unordered_map<std::string, Series*> by_path;
  for (Series& series : earlier) by_path.emplace(series.path(), &series);
  for (Series& series : now) {
    auto found = by_path.find(series.path());
    if (found == by_path.end()) continue;
    Series& then = *found->second;
    SeriesBaseline baseline;
    baseline.offset_ns = offset_ns;
    baseline.points = std::move(then.points);
    for (Point& point : baseline.points) point.time_ns += offset_ns;
    baseline.mean = ComparedMean(then);
    baseline.current_mean = ComparedMean(series);
    series.baseline = std::move(baseline);
  }
}

}  // namespace perfhive::query
