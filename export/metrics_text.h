// MetricsText: builds a page in the Prometheus text exposition format (version 0.0.4): one
// family per metric name with its HELP and TYPE lines, then its samples, families in name order
// so the page is deterministic.

#ifndef PERFHIVE_EXPORT_METRICS_TEXT_H_
#define PERFHIVE_EXPORT_METRICS_TEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "export/computed_sample.h"
#include "export/metric_naming.h"
#include "export/series_labels.h"

namespace perfhive {

enum class MetricType { kGauge, kCounter };

class MetricsText {
 public:
  static constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // One sample of family `name`; the first call for a name sets its type and help. `labels`
  // holds no "__name__". A timestamp is written only when given.
  void Add(const std::string& name, MetricType type, std::string_view help, const Labels& labels,
           double value, std::optional<int64_t> timestamp_ms = std::nullopt);

  // A computed sample under its mapped name and labels, its host's among them (docs/prometheus.md),
  // without timestamp: the scraper stamps the latest value with the scrape time.
  void AddComputed(const ComputedSample& sample, MetricNamer& namer,
                   const Labels& host_labels = {});

  std::string Render() const;

 private:
  struct Family {
    MetricType type = MetricType::kGauge;
    std::string help;
    std::string samples;  // rendered lines
  };
  std::map<std::string, Family> families_;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_METRICS_TEXT_H_
