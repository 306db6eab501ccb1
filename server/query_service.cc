#include "server/query_service.h"

#include <deque>
#include <utility>

#include "perfdata/counter_path.h"
#include "server/call_auth.h"

namespace perfhive {
namespace {

namespace v1 = perfhive::v1;

void ToProto(const HostRecord& host, v1::HostInfo* out) {
  out->set_name(host.info.name);
  out->set_os(host.info.os);
  out->set_os_version(host.info.os_version);
  out->set_source_kind(host.info.source_kind == "agentless" ? v1::SOURCE_KIND_AGENTLESS
                                                            : v1::SOURCE_KIND_AGENT);
  out->set_agent_version(host.info.agent_version);
  out->set_first_seen_unix_nanos(host.first_seen_ns);
  out->set_last_seen_unix_nanos(host.last_seen_ns);
  out->set_snapshots(static_cast<uint64_t>(host.snapshots_stored));
  out->set_stored_bytes(static_cast<uint64_t>(host.stored_bytes));
  out->set_refused(static_cast<uint64_t>(host.refusals));
  out->set_last_error(host.last_error);
  out->set_last_error_unix_nanos(host.last_error_ns);
}

void ToProto(const SnapshotInfo& info, v1::SnapshotInfo* out) {
  out->set_sample_unix_nanos(info.sample_time_ns);
  out->set_received_unix_nanos(info.receive_time_ns);
  out->set_query(info.query);
  out->set_raw_size(static_cast<uint32_t>(info.raw_size));
  out->set_sha256(std::string(info.sha256.begin(), info.sha256.end()));
  out->set_instance_id(info.instance_id);
  out->set_sequence(info.sequence);
}

// Streams a list that is known in full, one message at a time.
class ListWriter final : public grpc::ServerWriteReactor<v1::SnapshotInfo> {
 public:
  ListWriter(std::deque<v1::SnapshotInfo> items, Status status)
      : items_(std::move(items)), status_(std::move(status)) {
    Next();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "client gone"));
      return;
    }
    items_.pop_front();
    Next();
  }
  void OnDone() override { delete this; }

 private:
  void Next() {
    if (items_.empty()) {
      Finish(ToGrpcStatus(status_));
    } else {
      StartWrite(&items_.front());
    }
  }
  std::deque<v1::SnapshotInfo> items_;
  Status status_;
};

}  // namespace

Status QueryService::Authorize(const grpc::CallbackServerContext& context) const {
  Result<Principal> principal = AuthenticateCall(tokens_, context);
  if (!principal.ok()) return principal.status();
  if (!principal->read) {
    return Status::PermissionDenied("token \"" + principal->name + "\" may not read");
  }
  return Status();
}

Result<HostRecord> QueryService::FindHost(const std::string& name) {
  Result<std::optional<HostRecord>> host = store_.FindHost(name);
  if (!host.ok()) return host.status();
  if (host->has_value()) return **host;
  Result<std::vector<HostRecord>> all = store_.ListHosts();
  std::string known;
  if (all.ok()) {
    for (const HostRecord& record : *all) {
      if (known.size() > 200) {
        known += ", ...";
        break;
      }
      known += (known.empty() ? "" : ", ") + record.info.name;
    }
  }
  return Status::NotFound(
      "no host named \"" + name + "\"" +
      (known.empty() ? "; the server has no hosts yet" : "; known hosts: " + known));
}

grpc::ServerUnaryReactor* QueryService::ListHosts(grpc::CallbackServerContext* context,
                                                  const v1::ListHostsRequest* request,
                                                  v1::ListHostsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  Status status = Authorize(*context);
  if (status.ok()) {
    Result<std::vector<HostRecord>> hosts = store_.ListHosts();
    if (!hosts.ok()) {
      status = Status::Unavailable("store: " + hosts.error());
    } else {
      for (const HostRecord& host : *hosts) {
        if (request->pattern().empty() || MatchesPattern(request->pattern(), host.info.name)) {
          ToProto(host, response->add_hosts());
        }
      }
    }
  }
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerWriteReactor<v1::SnapshotInfo>* QueryService::ListSnapshots(
    grpc::CallbackServerContext* context, const v1::ListSnapshotsRequest* request) {
  std::deque<v1::SnapshotInfo> items;
  Status status = Authorize(*context);
  Result<HostRecord> host = status.ok() ? FindHost(request->host()) : status;
  if (!host.ok()) {
    status = host.status();
  } else {
    int64_t to = request->to_unix_nanos() == 0 ? INT64_MAX : request->to_unix_nanos();
    std::optional<std::string> query;
    if (!request->query().empty()) query = request->query();
    Result<std::vector<SnapshotInfo>> snapshots =
        store_.ListSnapshots(host->info.name, request->from_unix_nanos(), to, query);
    if (!snapshots.ok()) {
      status = Status::Unavailable("store: " + snapshots.error());
    } else {
      for (const SnapshotInfo& info : *snapshots) ToProto(info, &items.emplace_back());
    }
  }
  return new ListWriter(std::move(items), std::move(status));
}

grpc::ServerUnaryReactor* QueryService::GetRawSnapshot(grpc::CallbackServerContext* context,
                                                       const v1::GetRawSnapshotRequest* request,
                                                       v1::RawSnapshot* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  auto finish = [&](const Status& status) {
    reactor->Finish(ToGrpcStatus(status));
    return reactor;
  };
  if (Status status = Authorize(*context); !status.ok()) return finish(status);
  Result<HostRecord> host = FindHost(request->host());
  if (!host.ok()) return finish(host.status());
  std::optional<std::string> query;
  if (!request->query().empty()) query = request->query();
  int64_t at = request->at_unix_nanos();
  Result<std::vector<SnapshotInfo>> found =
      store_.ListSnapshots(host->info.name, at, at == INT64_MAX ? at : at + 1, query);
  if (!found.ok()) return finish(Status::Unavailable("store: " + found.error()));
  if (found->empty()) {
    return finish(Status::NotFound("host \"" + host->info.name +
                                   "\" has no snapshot taken at that time; `perfhive snapshots` "
                                   "lists the times"));
  }
  const SnapshotInfo& info = found->front();
  Result<std::vector<uint8_t>> raw = store_.ReadSnapshot(info.id);
  if (!raw.ok()) return finish(raw.status());
  ToProto(info, response->mutable_info());
  response->set_raw(raw->data(), raw->size());
  for (const char* language : {"009", "CurrentLanguage"}) {
    Result<std::optional<TitleDatabaseRecord>> titles =
        store_.TitlesInForce(host->info.name, language, info.sample_time_ns);
    if (!titles.ok() || !titles->has_value()) continue;
    v1::TitleDatabase* out = response->add_titles();
    out->set_language((*titles)->language);
    out->set_counters((*titles)->counters.data(), (*titles)->counters.size());
    out->set_helps((*titles)->helps.data(), (*titles)->helps.size());
    out->set_sha256(std::string((*titles)->digest.begin(), (*titles)->digest.end()));
  }
  return finish(Status());
}

}  // namespace perfhive
