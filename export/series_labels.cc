#include "export/series_labels.h"

namespace perfhive {

Labels SeriesLabels(const ComputedSample& sample, const std::string& metric_name) {
  // Already in name order: "__name__" < "host" < "instance" < "parent" < "pid".
  Labels labels;
  labels.reserve(5);
  labels.push_back({"__name__", metric_name});
  if (!sample.host.empty()) labels.push_back({"host", sample.host});
  if (!sample.instance.empty()) labels.push_back({"instance", sample.instance});
  if (!sample.parent.empty()) labels.push_back({"parent", sample.parent});
  if (sample.pid) labels.push_back({"pid", std::to_string(*sample.pid)});
  return labels;
}

}  // namespace perfhive
