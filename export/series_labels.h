// The labels of the series a computed sample belongs to: the metric name and the PDH path parts
// that tell series of one metric apart (docs/prometheus.md).

#ifndef PERFHIVE_EXPORT_SERIES_LABELS_H_
#define PERFHIVE_EXPORT_SERIES_LABELS_H_

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

// __name__ = `metric_name`, host, instance, parent, pid.
Labels SeriesLabels(const ComputedSample& sample, const std::string& metric_name);

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_SERIES_LABELS_H_
