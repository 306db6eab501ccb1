// ServerMetricsPage: what perfhive-server serves on /metrics (--metrics-listen): the latest
// computed value of every selected counter of every host (from each host's newest two samples),
// and the server's own metrics: ingest counters, refusals and last-seen time per host, the
// store's size, and each remote-write receiver's counts and lag. docs/prometheus.md lists them.

#ifndef PERFHIVE_SERVER_EXPORT_SERVER_METRICS_H_
#define PERFHIVE_SERVER_EXPORT_SERVER_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "export/metric_naming.h"
#include "server/alerts/alerting.h"
#include "server/export/export_selection.h"
#include "server/export/prometheus_exporter.h"
#include "server/ingest/ingest_service.h"
#include "store/sample_loader.h"
#include "store/store.h"

namespace perfhive {

class ServerMetricsPage {
 public:
  // `host_labels`: each host's labels, put on its series; null: none.
  ServerMetricsPage(Store& store, SampleLoader& loader, const ExportSelection& selection,
                    const IngestCounters& ingest,
                    const std::vector<std::unique_ptr<PrometheusExporter>>& exporters,
                    query::HostLabelsLookup host_labels = nullptr)
      : store_(store),
        loader_(loader),
        selection_(selection),
        ingest_(ingest),
        exporters_(exporters),
        host_labels_(std::move(host_labels)) {}

  // The alerting rules whose alerts and evaluations the page counts; null: none.
  void set_alerting(const Alerting* alerting) { alerting_ = alerting; }

  // The whole page in the Prometheus text format.
  std::string Render();

 private:
  Store& store_;
  SampleLoader& loader_;
  const ExportSelection& selection_;
  const IngestCounters& ingest_;
  const std::vector<std::unique_ptr<PrometheusExporter>>& exporters_;
  const query::HostLabelsLookup host_labels_;
  const Alerting* alerting_ = nullptr;
  MetricNamer namer_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_EXPORT_SERVER_METRICS_H_
