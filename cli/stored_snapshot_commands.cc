#include "cli/stored_snapshot_commands.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "perfdata/display_text.h"
#include "perfdata/time_text.h"
#include "perfhive/v1/query.grpc.pb.h"
#include "port/sha256.h"
#include "proto/source_kind.h"
#include "query/host_selector.h"
#include "query/label_text.h"
#include "query/text_table.h"

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;

// Texts are what hosts sent, kept whole in JSON: a byte that is not UTF-8 reads as U+FFFD rather
// than making dump() throw. (Tables show them escaped and cut: query/text_table.h.)
constexpr auto kReplaceInvalidUtf8 = nlohmann::ordered_json::error_handler_t::replace;

std::string TimeOrDash(int64_t unix_nanos) {
  return unix_nanos == 0 ? "-" : FormatRfc3339(unix_nanos);
}

std::string Hex(const std::string& bytes) {
  return ToHex(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

Status WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return Status::Error("cannot create " + path);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return Status::Error("cannot write " + path);
  return Status();
}

// "enrolled until 2027-02-24", "revoked", "expired", or "-" for a host without a certificate.
std::string CredentialText(const v1::HostInfo& host) {
  if (host.credential().empty()) return "-";
  if (host.credential() != "enrolled") return host.credential();
  return "enrolled until " + TimeOrDash(host.credential_expires_unix_nanos()).substr(0, 10);
}

// The plan a host follows: "-" when it has none and none is due; the revision its agent applied
// when that is the latest; else "<applied>, latest <latest>" (none for an empty one). A '*' after
// the applied revision: the agent said something about it (`--format json` shows what).
std::string PolicyText(const v1::HostInfo& host) {
  if (host.plan_revision().empty() && host.plan_latest().empty() && host.plan_report().empty()) {
    return "-";
  }
  std::string applied = host.plan_revision().empty() ? "none" : host.plan_revision();
  if (!host.plan_report().empty()) applied += "*";
  if (host.plan_revision() == host.plan_latest()) return applied;
  return applied + ", latest " + (host.plan_latest().empty() ? "none" : host.plan_latest());
}

// The host's labels, keys in order (the message's map has none).
query::HostLabels LabelsOf(const v1::HostInfo& host) {
  return query::HostLabels(host.labels().begin(), host.labels().end());
}

}  // namespace

Result<std::string> HostArgument(const std::string& text) {
  std::string host = text.starts_with("\\\\") ? text.substr(2) : text;
  if (host.empty() || host.find('\\') != std::string::npos) {
    return Status::InvalidArgument("expected a host as \\\\NAME or NAME, got \"" + text + "\"");
  }
  return host;
}

Status RunHosts(const ServerConnection& server, const HostsOptions& options, std::ostream& out) {
  auto stub = v1::Query::NewStub(server.channel());
  // A selector that does not parse is the user's mistake, said before the server is asked.
  if (Result<query::HostSelector> selector = query::HostSelector::Parse(options.select);
      !selector.ok()) {
    return selector.status().Prefixed("--select: ");
  }
  v1::ListHostsRequest request;
  request.set_pattern(options.pattern);
  request.set_select(options.select);
  v1::ListHostsResponse response;
  auto context = server.NewContext();
  if (grpc::Status status = stub->ListHosts(context.get(), request, &response); !status.ok()) {
    return server.Explain(status);
  }
  PrintHosts(response, options, out);
  return Status();
}

void PrintHosts(const v1::ListHostsResponse& response, const HostsOptions& options,
                std::ostream& out) {
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json hosts = nlohmann::ordered_json::array();
    for (const v1::HostInfo& host : response.hosts()) {
      hosts.push_back({{"name", host.name()},
                       {"os", host.os()},
                       {"os_version", host.os_version()},
                       {"source", SourceKindName(host.source_kind())},
                       {"agent_version", host.agent_version()},
                       {"first_seen", TimeOrDash(host.first_seen_unix_nanos())},
                       {"last_seen", TimeOrDash(host.last_seen_unix_nanos())},
                       {"snapshots", host.snapshots()},
                       {"stored_bytes", host.stored_bytes()},
                       {"refused", host.refused()},
                       {"last_error", host.last_error()},
                       {"last_error_time", TimeOrDash(host.last_error_unix_nanos())},
                       {"credential", host.credential()},
                       {"credential_expires", TimeOrDash(host.credential_expires_unix_nanos())},
                       {"plan_revision", host.plan_revision()},
                       {"plan_latest", host.plan_latest()},
                       {"plan_report", host.plan_report()},
                       {"labels", LabelsOf(host)}});
    }
    out << nlohmann::ordered_json{{"hosts", hosts}}.dump(2, ' ', /*ensure_ascii=*/false,
                                                         kReplaceInvalidUtf8)
        << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"HOST", "LAST SEEN", "OS", "SOURCE", "AGENT",
                                                 "SNAPSHOTS", "REFUSED", "CREDENTIAL", "POLICY",
                                                 "LABELS", "LAST ERROR"}};
  size_t behind = 0;  // hosts whose agent has not applied their latest plan
  for (const v1::HostInfo& host : response.hosts()) {
    std::string os = host.os() + (host.os_version().empty() ? "" : " " + host.os_version());
    rows.push_back({host.name(), TimeOrDash(host.last_seen_unix_nanos()), os,
                    SourceKindName(host.source_kind()), host.agent_version(),
                    std::to_string(host.snapshots()), std::to_string(host.refused()),
                    CredentialText(host), PolicyText(host),
                    host.labels().empty() ? "-" : query::FormatHostLabels(LabelsOf(host)),
                    host.last_error().empty() ? "-" : host.last_error()});
    if (host.plan_revision() != host.plan_latest()) ++behind;
  }
  if (response.hosts().empty()) {
    if (options.pattern.empty() && options.select.empty()) {
      out << "no hosts yet: start an agent with perfhive-agent run\n";
    } else {
      out << "no host matches \"" +
                 EscapeForDisplay(options.select.empty() ? options.pattern : options.select) +
                 "\"\n";
    }
    return;
  }
  query::PrintTable(out, rows);
  if (behind > 0) {
    out << behind << (behind == 1 ? " host has not applied its" : " hosts have not applied their")
        << " latest plan\n";
  }
}

Status RunSnapshots(const ServerConnection& server, const SnapshotsOptions& options,
                    std::ostream& out) {
  Result<std::string> host = HostArgument(options.host);
  if (!host.ok()) return host.status();
  v1::ListSnapshotsRequest request;
  request.set_host(*host);
  request.set_query(options.query);
  if (!options.from.empty()) {
    Result<int64_t> from = ParseRfc3339(options.from);
    if (!from.ok()) return from.status().Prefixed("--from: ");
    request.set_from_unix_nanos(*from);
  }
  if (!options.to.empty()) {
    Result<int64_t> to = ParseRfc3339(options.to);
    if (!to.ok()) return to.status().Prefixed("--to: ");
    request.set_to_unix_nanos(*to);
  }
  auto stub = v1::Query::NewStub(server.channel());
  auto context = server.NewContext(std::chrono::minutes(5));
  auto reader = stub->ListSnapshots(context.get(), request);
  std::vector<v1::SnapshotInfo> snapshots;
  v1::SnapshotInfo info;
  while (reader->Read(&info)) snapshots.push_back(info);
  if (grpc::Status status = reader->Finish(); !status.ok()) return server.Explain(status);
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const v1::SnapshotInfo& snapshot : snapshots) {
      list.push_back({{"time", FormatRfc3339(snapshot.sample_unix_nanos())},
                      {"query", snapshot.query()},
                      {"bytes", snapshot.raw_size()},
                      {"sha256", Hex(snapshot.sha256())},
                      {"received", FormatRfc3339(snapshot.received_unix_nanos())},
                      {"instance", snapshot.instance_id()},
                      {"sequence", snapshot.sequence()}});
    }
    out << nlohmann::ordered_json{{"snapshots", list}}.dump(2, ' ', /*ensure_ascii=*/false,
                                                            kReplaceInvalidUtf8)
        << "\n";
    return Status();
  }
  std::vector<std::vector<std::string>> rows = {{"TIME", "QUERY", "BYTES", "SHA256"}};
  for (const v1::SnapshotInfo& snapshot : snapshots) {
    rows.push_back({FormatRfc3339(snapshot.sample_unix_nanos()), snapshot.query(),
                    std::to_string(snapshot.raw_size()), Hex(snapshot.sha256())});
  }
  query::PrintTable(out, rows);
  return Status();
}

Status RunRaw(const ServerConnection& server, const RawOptions& options, std::ostream& out) {
  Result<std::string> host = HostArgument(options.host);
  if (!host.ok()) return host.status();
  Result<int64_t> at = ParseRfc3339(options.at);
  if (!at.ok()) return at.status().Prefixed("--at: ");
  v1::GetRawSnapshotRequest request;
  request.set_host(*host);
  request.set_at_unix_nanos(*at);
  request.set_query(options.query);
  v1::RawSnapshot response;
  auto stub = v1::Query::NewStub(server.channel());
  auto context = server.NewContext(std::chrono::minutes(5));
  if (grpc::Status status = stub->GetRawSnapshot(context.get(), request, &response); !status.ok()) {
    return server.Explain(status);
  }
  if (Status status = WriteBytes(options.output, response.raw()); !status.ok()) return status;
  out << "wrote " << response.raw().size() << " bytes ("
      << EscapeForDisplay(response.info().query()) << " at "
      << FormatRfc3339(response.info().sample_unix_nanos()) << ") to " << options.output << "\n";
  if (options.titles_output.empty()) return Status();
  for (const v1::TitleDatabase& titles : response.titles()) {
    if (titles.language() != "009" && response.titles_size() > 1) continue;
    if (Status status = WriteBytes(options.titles_output, titles.counters()); !status.ok()) {
      return status;
    }
    out << "wrote the title database (" << EscapeForDisplay(titles.language()) << ") to "
        << options.titles_output << "\n";
    return Status();
  }
  return Status::NotFound("the server holds no title database for " + *host +
                          " at that time; the snapshot was written without one");
}

}  // namespace perfhive::cli
