#include "server/export/server_metrics.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "export/metrics_text.h"
#include "port/env.h"
#include "query/counter_health.h"

namespace perfhive {
namespace {

double Seconds(int64_t nanos) { return static_cast<double>(nanos) / 1e9; }

void AddIngest(MetricsText& page, const IngestCounters& ingest) {
  struct Counter {
    const char* name;
    const char* help;
    const std::atomic<uint64_t>& value;
  };
  const Counter counters[] = {
      {"perfhive_ingest_streams_total", "Agent streams opened.", ingest.streams},
      {"perfhive_ingest_snapshots_stored_total", "Snapshots made durable.",
       ingest.snapshots_stored},
      {"perfhive_ingest_snapshots_duplicate_total",
       "Snapshots recognised as samples already stored.", ingest.snapshots_duplicate},
      {"perfhive_ingest_snapshots_refused_total",
       "Snapshots refused (lost to the agent): malformed, oversized, or in conflict.",
       ingest.snapshots_refused},
      {"perfhive_ingest_snapshots_conflicting_total",
       "Snapshots refused because the host's sample with their identity is stored with other "
       "bytes.",
       ingest.snapshots_conflicting},
      {"perfhive_ingest_snapshots_resent_total",
       "Deltas whose base the stream did not hold, asked for again as keyframes.",
       ingest.snapshots_resent},
      {"perfhive_ingest_snapshots_delayed_total",
       "Snapshots whose stream was read more slowly to keep to the rate limit.",
       ingest.snapshots_delayed},
      {"perfhive_ingest_reads_held_for_memory_total",
       "Times a stream was read no further while the snapshots being made durable held more than "
       "max_ingest_bytes_in_flight.",
       ingest.reads_held_for_memory},
      {"perfhive_ingest_reads_held_for_replies_total",
       "Times a stream was read no further while its replies waited for its client to read them.",
       ingest.reads_held_for_replies},
      {"perfhive_ingest_raw_bytes_total", "Raw snapshot bytes made durable.",
       ingest.raw_bytes_stored},
      {"perfhive_ingest_wire_bytes_total", "Snapshot payload bytes received on the wire.",
       ingest.wire_bytes},
  };
  for (const Counter& counter : counters) {
    page.Add(counter.name, MetricType::kCounter, counter.help, {},
             static_cast<double>(counter.value.load()));
  }
  page.Add("perfhive_ingest_bytes_in_flight", MetricType::kGauge,
           "Raw bytes of snapshots being made durable now, over all streams.", {},
           static_cast<double>(ingest.bytes_in_flight.load()));
  page.Add("perfhive_ingest_bytes_in_flight_peak", MetricType::kGauge,
           "The most raw bytes of snapshots being made durable at once since the server started.",
           {}, static_cast<double>(ingest.bytes_in_flight_peak.load()));
}

void AddHosts(MetricsText& page, const std::vector<HostRecord>& hosts) {
  for (const HostRecord& host : hosts) {
    Labels labels = {{"host", host.info.name}};
    page.Add("perfhive_host_last_seen_timestamp_seconds", MetricType::kGauge,
             "When the host's agent was last heard from (server clock).", labels,
             Seconds(host.last_seen_ns));
    page.Add("perfhive_host_snapshots_refused_total", MetricType::kCounter,
             "Snapshots of the host refused since it was first seen.", labels,
             static_cast<double>(host.refusals));
  }
}

// The alerts by state and severity (a pair with none is 0, so that a query sees it go to 0), and
// each rule's last evaluation: when, over how many series, how many paths it found missing.
void AddAlerts(MetricsText& page, const AlertsListing& listing) {
  std::map<std::pair<std::string, std::string>, int> counts;
  std::set<std::string> severities = {"warning"};
  for (const AlertRule& rule : listing.rules) severities.insert(rule.severity);
  for (const std::string& severity : severities) {
    for (Alert::State state :
         {Alert::State::kPending, Alert::State::kFiring, Alert::State::kResolved}) {
      counts[{AlertStateName(state), severity}] = 0;
    }
  }
  for (const Alert& alert : listing.alerts) {
    auto severity = alert.labels.find("severity");
    ++counts[{AlertStateName(alert.state), severity == alert.labels.end() ? "" : severity->second}];
  }
  for (const auto& [key, count] : counts) {
    page.Add("perfhive_alerts", MetricType::kGauge,
             "The rules' alerts by state (resolved: in the last hour) and severity.",
             {{"severity", key.second}, {"state", key.first}}, count);
  }
  page.Add("perfhive_rules", MetricType::kGauge, "Alerting rules in force.", {},
           static_cast<double>(listing.rules.size()));
  page.Add("perfhive_rules_file_unreadable", MetricType::kGauge,
           "1 while the rules file no longer reads (the rules read before stay in force).", {},
           listing.reload_error.empty() ? 0 : 1);
  page.Add("perfhive_rules_evaluation_seconds", MetricType::kGauge,
           "How long the last evaluation of every rule took.", {}, listing.last_evaluation_seconds);
  for (const RuleReport& report : listing.reports) {
    Labels labels = {{"rule", report.rule}};
    page.Add("perfhive_rule_last_evaluation_timestamp_seconds", MetricType::kGauge,
             "When the rule was last evaluated.", labels, Seconds(report.evaluated_ns));
    page.Add("perfhive_rule_series_checked", MetricType::kGauge,
             "Series (or groups) the rule's last evaluation checked.", labels,
             static_cast<double>(report.series_checked));
    page.Add("perfhive_rule_paths_missing", MetricType::kGauge,
             "Hosts and paths on which the rule's path selected nothing at its last evaluation.",
             labels, static_cast<double>(report.missing.size()));
    page.Add("perfhive_rule_failing", MetricType::kGauge, "1 when the rule's last read failed.",
             labels, report.error.empty() ? 0 : 1);
  }
}

void AddStore(MetricsText& page, const StoreTotals& totals) {
  page.Add("perfhive_store_snapshots", MetricType::kGauge, "Snapshots kept in the store.", {},
           static_cast<double>(totals.snapshots));
  page.Add("perfhive_store_raw_bytes", MetricType::kGauge,
           "Raw bytes of the snapshots kept in the store.", {},
           static_cast<double>(totals.raw_bytes));
  page.Add("perfhive_store_stored_bytes", MetricType::kGauge,
           "Compressed frames the store keeps for them.", {},
           static_cast<double>(totals.stored_bytes));
  page.Add("perfhive_store_file_bytes", MetricType::kGauge, "Size of the store's database file.",
           {}, static_cast<double>(totals.file_bytes));
}

void AddExporter(MetricsText& page, const PrometheusExporter& exporter) {
  PrometheusExporterStats stats = exporter.stats();
  Labels labels = {{"receiver", exporter.receiver()}};
  auto counter = [&](const char* name, const char* help, uint64_t value) {
    page.Add(name, MetricType::kCounter, help, labels, static_cast<double>(value));
  };
  counter("perfhive_export_samples_offered_total", "Computed samples handed to the sender.",
          stats.samples_offered);
  counter("perfhive_export_samples_sent_total", "Samples the receiver accepted.",
          stats.writer.sent);
  counter("perfhive_export_samples_failed_total",
          "Samples in requests that failed and were retried (once per attempt).",
          stats.writer.failed);
  counter("perfhive_export_samples_dropped_total",
          "Samples the receiver refused (too old, out of order, duplicate): not retried.",
          stats.writer.dropped);
  counter("perfhive_export_samples_retried_total", "Samples sent again after a failure.",
          stats.writer.retried);
  counter("perfhive_export_offers_refused_total",
          "Rounds a host waited because the sender's queue was full.", stats.offers_refused);
  page.Add("perfhive_export_samples_pending", MetricType::kGauge,
           "Samples offered and not yet delivered or dropped.", labels,
           static_cast<double>(stats.writer.pending));
  page.Add("perfhive_export_lag_seconds", MetricType::kGauge,
           "Newest sample time offered minus newest sample time the receiver accepted.", labels,
           static_cast<double>(stats.writer.lag_ms()) / 1000);
}

// The fleet's counter health as `perfhive health` gives it for the last day (peers by role): its
// findings by kind, and per host how many touch it (every kind and host, 0 included, so that a
// query sees a count go back to 0).
void AddHealth(MetricsText& page, const query::HealthReport& report) {
  std::map<std::string, int> by_kind;
  for (query::HealthFindingKind kind : query::kHealthFindingKinds) {
    by_kind[query::HealthFindingKindName(kind)] = 0;
  }
  std::map<std::string, int> by_host;
  for (const std::string& host : report.hosts) by_host[host] = 0;
  for (const query::HealthFinding& finding : report.findings) {
    ++by_kind[query::HealthFindingKindName(finding.kind)];
    for (const query::HostFinding& host : finding.hosts) ++by_host[host.host];
  }
  for (const auto& [kind, count] : by_kind) {
    page.Add("perfhive_health_findings", MetricType::kGauge,
             "Findings of the fleet's counter health over the last day, by kind "
             "(docs/health.md).",
             {{"kind", kind}}, count);
  }
  for (const auto& [host, count] : by_host) {
    page.Add("perfhive_host_health_findings", MetricType::kGauge,
             "Findings of the fleet's counter health over the last day that name the host.",
             {{"host", host}}, count);
  }
  for (const query::HostSlowestObjects& host : report.slowest_objects) {
    for (const query::HostSlowestObjects::Object& object : host.objects) {
      page.Add("perfhive_object_collection_seconds", MetricType::kGauge,
               "How long each host's source took to return its slowest objects, each asked for "
               "alone, in its agent's last hourly sweep (docs/health.md, \"Slow objects\").",
               {{"host", host.host}, {"object", object.name}},
               static_cast<double>(object.nanos) / 1e9);
    }
  }
}

}  // namespace

std::string ServerMetricsPage::Render() {
  MetricsText page;
  Result<std::vector<HostRecord>> hosts = store_.catalog().ListHosts();
  if (hosts.ok()) {
    for (const HostRecord& host : *hosts) {
      Result<query::HostSamples> samples = loader_.LoadLatest(host.info.name, nullptr);
      if (!samples.ok() || samples->samples.empty()) continue;
      // The values at the newest sample only; the one before is the older end of its interval.
      Result<std::vector<ComputedSample>> computed =
          selection_.Compute(*samples, samples->samples.back().time_ns - 1);
      if (!computed.ok()) continue;
      const Labels host_labels =
          host_labels_ != nullptr ? HostLabelsForExport(host_labels_(host.info.name)) : Labels();
      for (const ComputedSample& sample : *computed) {
        page.AddComputed(sample, namer_, host_labels);
      }
    }
    AddHosts(page, *hosts);
  }
  AddIngest(page, ingest_);
  if (Result<StoreTotals> totals = store_.Totals(); totals.ok()) AddStore(page, *totals);
  for (const auto& exporter : exporters_) AddExporter(page, *exporter);
  if (alerting_ != nullptr) AddAlerts(page, alerting_->Listing());
  const int64_t now_ns = UnixNanosNow();
  if (Result<std::vector<query::HealthHost>> health_hosts =
          loader_.HealthHosts(now_ns, host_labels_);
      health_hosts.ok()) {
    query::HealthRequest request;
    request.from_ns = now_ns - query::kHealthDefaultRangeNs;
    request.at_ns = now_ns;
    AddHealth(page, loader_.ReportHealth(request, *health_hosts));
  }
  return page.Render();
}

}  // namespace perfhive
