#include "cli/health_command.h"

#include <string>

#include "cli/time_display.h"
#include "perfdata/time_text.h"
#include "perfhive/v1/query.grpc.pb.h"
#include "port/env.h"
#include "proto/health_json.h"

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;

// The hosts a finding shows in full; the rest are named on one line.
constexpr int kHostsShown = 10;

// "\Process", "\Process\Handle Count", "index 2345", "title database of Windows 10.0.20348", or
// the error's message.
std::string Subject(const v1::HealthFinding& finding) {
  if (finding.kind() == "collection-error") return "\"" + finding.counter() + "\"";
  if (finding.kind() == "provider-disabled") return "provider of service " + finding.counter();
  if (finding.kind() == "names-changed") return "names of indexes " + finding.counter();
  if (finding.kind() == "collection-losses") return "data lost in collection";
  if (finding.kind() == "unnamed-index") {
    const bool one = finding.counter().find_first_of(",-") == std::string::npos;
    return (one ? "index " : "indexes ") + finding.counter();
  }
  if (finding.kind() == "titles-differ") return "title database of " + finding.counter();
  if (finding.kind() == "instance-came-and-went") {
    return "\\" + finding.object() + "(" + finding.counter() + ")";
  }
  std::string subject = "\\" + finding.object();
  if (!finding.counter().empty()) subject += "\\" + finding.counter();
  return subject;
}

std::string Headline(const v1::HealthFinding& finding) {
  const std::string hosts =
      std::to_string(finding.hosts_size()) + (finding.hosts_size() == 1 ? " host" : " hosts");
  if (finding.kind() == "object-missing" || finding.kind() == "counter-missing") {
    return "lacked by " + hosts + "; " + std::to_string(finding.peers_with()) + " of " +
           std::to_string(finding.peer_hosts()) + " peers (" + finding.peers() + ") have it";
  }
  return "on " + hosts;
}

// Findings with a host newer than the report's start.
int NewFindingCount(const v1::HealthResponse& response) {
  int count = 0;
  for (const v1::HealthFinding& finding : response.findings()) {
    count += finding.newest_unix_nanos() >= response.from_unix_nanos();
  }
  return count;
}

}  // namespace

Status RunHealth(const ServerConnection& server, const HealthOptions& options, std::ostream& out) {
  v1::HealthRequest request;
  request.set_hosts(options.pattern);
  request.set_host_selector(options.select);
  int64_t at_ns = UnixNanosNow();
  if (!options.at.empty()) {
    Result<int64_t> at = ParseRfc3339(options.at);
    if (!at.ok()) return at.status().Prefixed("--at: ");
    at_ns = *at;
  }
  request.set_at_unix_nanos(at_ns);
  Result<int64_t> since = ParseSpan(options.since);
  if (!since.ok()) return since.status().Prefixed("--since: ");
  request.set_from_unix_nanos(at_ns - *since);
  if (options.peers_by) request.set_peers_by(*options.peers_by);
  auto stub = v1::Query::NewStub(server.channel());
  v1::HealthResponse response;
  auto context = server.NewContext();
  if (grpc::Status status = stub->Health(context.get(), request, &response); !status.ok()) {
    return server.Explain(status);
  }
  PrintHealth(response, options, UnixNanosNow(), out);
  return NewFindings(response);
}

void PrintHealth(const v1::HealthResponse& response, const HealthOptions& options, int64_t now_ns,
                 std::ostream& out) {
  if (options.format == OutputFormat::kJson) {
    out << HealthJson(response).dump(2, ' ', /*ensure_ascii=*/false,
                                     nlohmann::json::error_handler_t::replace)
        << "\n";
    return;
  }
  const int new_findings = NewFindingCount(response);
  out << response.findings_size() << (response.findings_size() == 1 ? " finding" : " findings")
      << " on " << response.hosts_size() << (response.hosts_size() == 1 ? " host" : " hosts")
      << " as of " << FormatRfc3339(response.at_unix_nanos(), 0) << "; " << new_findings
      << " new since " << FormatRfc3339(response.from_unix_nanos(), 0) << "\n";
  for (const v1::HealthFinding& finding : response.findings()) {
    out << "\n" << finding.kind() << "  " << Subject(finding) << "  " << Headline(finding) << "\n";
    int shown = 0;
    for (const v1::HealthHostFinding& host : finding.hosts()) {
      if (shown++ == kHostsShown) {
        out << "  and " << finding.hosts_size() - kHostsShown << " more:";
        for (int i = kHostsShown; i < finding.hosts_size(); ++i) {
          out << " " << finding.hosts(i).host();
        }
        out << "\n";
        break;
      }
      out << "  " << host.host() << "  since " << SinceText(host.since_unix_nanos(), now_ns);
      if (host.last_with_unix_nanos() != 0) {
        out << ", last with it " << FormatRfc3339(host.last_with_unix_nanos(), 0);
      }
      out << "\n    cause: " << host.cause() << "\n    do: " << host.action() << "\n";
      for (const v1::HealthHostFinding::Gap& gap : host.gaps()) {
        out << "    gone " << FormatRfc3339(gap.gone_unix_nanos(), 0) << ", back "
            << FormatRfc3339(gap.back_unix_nanos(), 0) << "\n";
      }
    }
  }
}

Status NewFindings(const v1::HealthResponse& response) {
  const int new_findings = NewFindingCount(response);
  if (new_findings == 0) return Status();
  return Status(StatusCode::kAborted, std::to_string(new_findings) +
                                          (new_findings == 1 ? " finding" : " findings") +
                                          " since " + FormatRfc3339(response.from_unix_nanos(), 0));
}

}  // namespace perfhive::cli
