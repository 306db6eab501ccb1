#include "export/series_labels.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace perfhive {
namespace {

bool ByName(const Label& a, const Label& b) { return a.name < b.name; }

// The names a host's label may not take as they are.
bool Reserved(std::string_view name) {
  static const std::set<std::string_view> kReserved = {"host",   "instance", "parent", "pid",
                                                       "object", "counter",  "job"};
  return name.starts_with("__") || kReserved.contains(name);
}

}  // namespace

Labels SeriesLabels(const ComputedSample& sample, const std::string& metric_name,
                    const Labels& host_labels) {
  // Already in name order: "__name__" < "host" < "instance" < "parent" < "pid".
  Labels labels;
  labels.reserve(5 + host_labels.size());
  labels.push_back({"__name__", metric_name});
  if (!sample.host.empty()) labels.push_back({"host", sample.host});
  if (!sample.instance.empty()) labels.push_back({"instance", sample.instance});
  if (!sample.parent.empty()) labels.push_back({"parent", sample.parent});
  if (sample.pid) labels.push_back({"pid", std::to_string(*sample.pid)});
  if (host_labels.empty()) return labels;
  // Both runs are sorted and share no name (HostLabelsForExport prefixes the series' own).
  const auto middle = labels.insert(labels.end(), host_labels.begin(), host_labels.end());
  std::inplace_merge(labels.begin(), middle, labels.end(), ByName);
  return labels;
}

Labels HostLabelsForExport(const std::map<std::string, std::string>& labels) {
  Labels exported;
  std::set<std::string> names;
  for (const auto& [key, value] : labels) {
    std::string name = key;
    std::replace_if(
        name.begin(), name.end(), [](char c) { return c == '.' || c == '-'; }, '_');
    if (Reserved(name)) name = "label_" + name;
    if (value.empty() || !names.insert(name).second) continue;
    exported.push_back({std::move(name), value});
  }
  std::sort(exported.begin(), exported.end(), ByName);
  return exported;
}

}  // namespace perfhive
