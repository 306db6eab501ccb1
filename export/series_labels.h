// The labels of the series a computed sample belongs to: the metric name, the PDH path parts
// that tell series of one metric apart, and its host's labels (docs/prometheus.md).

#ifndef PERFHIVE_EXPORT_SERIES_LABELS_H_
#define PERFHIVE_EXPORT_SERIES_LABELS_H_

#include <map>
#include <string>
#include <vector>

#include "export/computed_sample.h"

namespace perfhive {

struct Label {
  std::string name;
  std::string value;
  bool operator==(const Label&) const = default;
};

// Sorted by name, so "__name__" comes first, as remote-write requires; empty values left out
// (Prometheus treats an empty label as an absent one).
using Labels = std::vector<Label>;

// __name__ = `metric_name`, host, instance, parent, pid, and `host_labels` (HostLabelsForExport's),
// all sorted by name.
Labels SeriesLabels(const ComputedSample& sample, const std::string& metric_name,
                    const Labels& host_labels = {});

// A host's labels (role=web, as the server keeps them) as Prometheus labels, sorted by name. A
// name becomes one Prometheus takes ('.' and '-' become '_'); one that perfhive's series use
// themselves or that scrapes and Prometheus reserve (host, instance, parent, pid, object,
// counter, job, and any beginning with "__") is written "label_<name>", so a host's label never
// replaces a series' own; of two keys that come to one name, the first in key order is kept and
// the other left out.
Labels HostLabelsForExport(const std::map<std::string, std::string>& labels);

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_SERIES_LABELS_H_
