#include "cli/alerts_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/time_display.h"
#include "perfdata/time_text.h"
#include "perfhive/v1/query.grpc.pb.h"
#include "proto/alerts_json.h"
#include "query/text_table.h"

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;

// The lines a table shows, per rule, of the paths that selected nothing on a host.
constexpr int kMissingLinesShown = 5;

std::string ValueText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

Status RunAlerts(const ServerConnection& server, const AlertsOptions& options, std::ostream& out) {
  auto stub = v1::Query::NewStub(server.channel());
  v1::ListAlertsResponse response;
  auto context = server.NewContext();
  if (grpc::Status status = stub->ListAlerts(context.get(), v1::ListAlertsRequest(), &response);
      !status.ok()) {
    return server.Explain(status);
  }
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  PrintAlerts(response, options, std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(),
              out);
  return Status();
}

void PrintAlerts(const v1::ListAlertsResponse& response, const AlertsOptions& options,
                 int64_t now_ns, std::ostream& out) {
  if (options.format == OutputFormat::kJson) {
    out << AlertsJson(response).dump(2, ' ', /*ensure_ascii=*/false,
                                     nlohmann::ordered_json::error_handler_t::replace)
        << "\n";
    return;
  }
  if (response.rules_file().empty()) {
    out << "no alerting rules: start the server with --rules FILE (docs/alerts.md)\n";
    return;
  }
  if (!response.reload_error().empty()) {
    out << "the rules file no longer reads, the rules read before stay in force: "
        << response.reload_error() << "\n";
  }
  if (response.alerts().empty()) {
    out << "nothing pending or firing (" << response.rules().size()
        << (response.rules().size() == 1 ? " rule from " : " rules from ") << response.rules_file()
        << ")\n";
  } else {
    std::vector<std::vector<std::string>> rows = {
        {"STATE", "RULE", "SEVERITY", "SERIES", "ACTIVE SINCE", "VALUE", "SUMMARY"}};
    for (const v1::AlertInfo& alert : response.alerts()) {
      const int64_t since = alert.state() == "resolved" ? alert.resolved_unix_nanos()
                                                        : alert.active_since_unix_nanos();
      auto summary = alert.annotations().find("summary");
      rows.push_back(
          {alert.state() == "resolved" ? "resolved " + AgoText(since, now_ns) : alert.state(),
           alert.rule(), alert.severity(), alert.series(),
           SinceText(alert.active_since_unix_nanos(), now_ns), ValueText(alert.value()),
           summary == alert.annotations().end() ? "" : summary->second});
    }
    query::PrintTable(out, rows);
  }
  // What keeps a rule from seeing every host: hosts that lack its counters, reads that failed.
  for (const v1::AlertRuleReport& rule : response.rules()) {
    if (!rule.error().empty()) out << "rule " << rule.name() << ": " << rule.error() << "\n";
    if (rule.missing().empty()) continue;
    out << "rule " << rule.name() << ": " << rule.missing().size()
        << (rule.missing().size() == 1 ? " path selected nothing on a host"
                                       : " paths selected nothing on a host")
        << ":\n";
    // A rule over the whole fleet meets every host of another kind (a Windows counter on Linux
    // hosts): a few lines say what, the JSON lists them all.
    const int shown = std::min(rule.missing_size(), kMissingLinesShown);
    for (int k = 0; k < shown; ++k) out << "  " << rule.missing(k) << "\n";
    if (shown < rule.missing_size()) {
      out << "  ... and " << rule.missing_size() - shown
          << " more (perfhive alerts --format json lists them all)\n";
    }
  }
}

}  // namespace perfhive::cli
