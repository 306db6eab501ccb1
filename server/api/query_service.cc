#include "server/api/query_service.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <utility>

#include "perfdata/case_folding.h"
#include "perfdata/counter_path.h"
#include "perfdata/display_text.h"
#include "perfdata/name_pattern.h"
#include "perfdata/title_bytes.h"
#include "port/env.h"
#include "proto/series_conversion.h"
#include "proto/source_kind.h"
#include "query/browse.h"
#include "query/counter_health.h"
#include "query/empty_answers.h"
#include "query/series_query.h"
#include "query/series_statistics.h"
#include "server/enrollment/call_auth.h"

namespace perfhive {
namespace {

namespace v1 = perfhive::v1;

// Stored texts as they came (a store may hold what agents sent before ingest checked it); what
// protobuf's string fields carry must be UTF-8.
void ToProto(const HostRecord& host, v1::HostInfo* out) {
  out->set_name(ValidUtf8(host.info.name));
  out->set_os(ValidUtf8(host.info.os));
  out->set_os_version(ValidUtf8(host.info.os_version));
  out->set_source_kind(SourceKindNamed(host.info.source_kind));
  out->set_agent_version(ValidUtf8(host.info.agent_version));
  out->set_first_seen_unix_nanos(host.first_seen_ns);
  out->set_last_seen_unix_nanos(host.last_seen_ns);
  out->set_snapshots(static_cast<uint64_t>(host.snapshots_stored));
  out->set_stored_bytes(static_cast<uint64_t>(host.stored_bytes));
  out->set_refused(static_cast<uint64_t>(host.refusals));
  out->set_last_error(ValidUtf8(host.last_error));
  out->set_last_error_unix_nanos(host.last_error_ns);
  out->set_plan_revision(ValidUtf8(host.plan_revision));
  out->set_plan_report(ValidUtf8(host.plan_report));
}

void ToProto(const SnapshotInfo& info, v1::SnapshotInfo* out) {
  out->set_sample_unix_nanos(info.sample_time_ns);
  out->set_received_unix_nanos(info.receive_time_ns);
  out->set_query(ValidUtf8(info.query));
  out->set_raw_size(static_cast<uint32_t>(info.raw_size));
  out->set_sha256(std::string(info.sha256.begin(), info.sha256.end()));
  out->set_instance_id(ValidUtf8(info.instance_id));
  out->set_sequence(info.sequence);
}

// Streams a list that is known in full, one message at a time.
template <typename Message>
class ListWriter final : public grpc::ServerWriteReactor<Message> {
 public:
  ListWriter(std::deque<Message> items, Status status)
      : items_(std::move(items)), status_(std::move(status)) {
    Next();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      this->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "client gone"));
      return;
    }
    items_.pop_front();
    Next();
  }
  void OnDone() override { delete this; }

 private:
  void Next() {
    if (items_.empty()) {
      this->Finish(ToGrpcStatus(status_));
    } else {
      this->StartWrite(&items_.front());
    }
  }
  std::deque<Message> items_;
  Status status_;
};

// Points a response carries at most: a host with more is split over several responses.
constexpr size_t kPointsPerResponse = 50'000;

v1::DetailLevel ToProtoDetail(uint32_t level) {
  if (level <= 100) return v1::DETAIL_LEVEL_NOVICE;
  if (level <= 200) return v1::DETAIL_LEVEL_ADVANCED;
  if (level <= 300) return v1::DETAIL_LEVEL_EXPERT;
  return v1::DETAIL_LEVEL_WIZARD;
}

uint32_t MaxDetail(v1::DetailLevel level) {
  return level == v1::DETAIL_LEVEL_UNSPECIFIED ? 400u : static_cast<uint32_t>(level);
}

void ToProto(const query::ObjectInfo& object, v1::ObjectInfo* out) {
  out->set_name(object.name);
  out->set_index(object.index);
  out->set_help(object.help);
  out->set_detail(ToProtoDetail(object.detail_level));
  out->set_instances(object.num_instances);
  out->set_counters(object.num_counters);
}

void ToProto(const query::CounterInfo& counter, v1::CounterInfo* out) {
  out->set_name(counter.name);
  out->set_index(counter.index);
  out->set_help(counter.help);
  out->set_detail(ToProtoDetail(counter.detail_level));
  out->set_type(counter.type);
  out->set_type_name(counter.type_name);
  out->set_default_scale(counter.default_scale);
  out->set_unit(counter.unit);
}

void ToProto(const query::Presence& presence, v1::Presence* out) {
  out->set_hosts(static_cast<uint32_t>(presence.hosts));
  for (const std::string& host : presence.lacking) out->add_lacking(ValidUtf8(host));
}

void ToProto(const query::BrowsedHosts& hosts, v1::BrowsedHosts* out) {
  for (const std::string& name : hosts.names) out->add_names(ValidUtf8(name));
  out->set_without_sample(static_cast<uint32_t>(hosts.without_sample));
  out->set_oldest_sample_unix_nanos(hosts.oldest_ns);
  out->set_newest_sample_unix_nanos(hosts.newest_ns);
}

// Whether `where` asks for several hosts: a selector, or a pattern for the host.
bool IsFleet(const v1::BrowseAt& where) {
  return !where.host_selector().empty() || HasWildcard(where.host());
}

// `where` as the engine's request for several hosts.
Result<query::FleetBrowseRequest> FleetRequest(const v1::BrowseAt& where, v1::DetailLevel detail) {
  Result<query::HostSelector> selector = query::HostSelector::Parse(where.host_selector());
  if (!selector.ok()) return selector.status();
  query::FleetBrowseRequest request;
  request.hosts = where.host();
  request.selector = std::move(selector).value();
  if (where.at_unix_nanos() != 0) request.at_ns = where.at_unix_nanos();
  request.max_detail = MaxDetail(detail);
  return request;
}

std::string IdentityText(const query::InstanceIdentity& identity) {
  std::string text;
  if (identity.pid) text = "pid " + std::to_string(*identity.pid);
  if (identity.tid) text += " tid " + std::to_string(*identity.tid);
  return text;
}

// Finishes a unary call with `status` (its response filled in when it is OK).
grpc::ServerUnaryReactor* FinishUnary(grpc::CallbackServerContext* context, const Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// Moves a computed answer into the response a gRPC call sends.
template <typename Message>
Status MoveInto(Result<Message> answer, Message* response) {
  if (!answer.ok()) return answer.status();
  *response = std::move(answer).value();
  return Status();
}

}  // namespace

Result<std::vector<v1::ReadResponse>> QueryService::Answer(const v1::ReadRequest& request) {
  Result<query::ReadRequest> read = ReadRequestFromProto(request);
  if (!read.ok()) return read.status();
  Result<query::QueryAnswer> answer = engine_.Read(*read);
  if (!answer.ok()) return answer.status();
  std::vector<v1::ReadResponse> responses(1);
  size_t points_in_response = 0;
  for (const query::Series& series : answer->series) {
    if (points_in_response > 0 && points_in_response + series.points.size() > kPointsPerResponse) {
      responses.emplace_back();
      points_in_response = 0;
    }
    points_in_response += series.points.size();
    SeriesToProto(series, request.raw(), responses.back().add_series());
  }
  for (const std::string& warning : answer->warnings) responses.front().add_warnings(warning);
  responses.front().set_held_checked(static_cast<uint32_t>(answer->held_checked));
  return responses;
}

grpc::ServerWriteReactor<v1::ReadResponse>* QueryService::Read(grpc::CallbackServerContext* context,
                                                               const v1::ReadRequest* request) {
  std::deque<v1::ReadResponse> items;
  Status status = Authorize(*context);
  if (status.ok()) {
    Result<std::vector<v1::ReadResponse>> answer = Answer(*request);
    if (answer.ok()) {
      for (v1::ReadResponse& response : *answer) items.push_back(std::move(response));
    } else {
      status = answer.status();
    }
  }
  return new ListWriter<v1::ReadResponse>(std::move(items), std::move(status));
}

Result<v1::ListObjectsResponse> QueryService::Objects(const v1::ListObjectsRequest& request) {
  if (IsFleet(request.where())) return FleetObjects(request);
  Result<BrowsedHost> browsed = Browse(request.where());
  if (!browsed.ok()) return browsed.status();
  Result<std::vector<query::ObjectInfo>> objects =
      query::ListObjects(browsed->samples, MaxDetail(request.detail()));
  if (!objects.ok()) return objects.status();
  v1::ListObjectsResponse response;
  response.set_host(browsed->host.info.name);
  response.set_sample_unix_nanos(browsed->samples.front().time_ns);
  for (const query::ObjectInfo& object : *objects) ToProto(object, response.add_objects());
  return response;
}

Result<v1::ListCountersResponse> QueryService::Counters(const v1::ListCountersRequest& request) {
  if (IsFleet(request.where())) return FleetCounters(request);
  Result<BrowsedHost> browsed = Browse(request.where());
  if (!browsed.ok()) return browsed.status();
  Result<query::BrowsedObject> found = FindObjectIn(*browsed, request.object());
  if (!found.ok()) return found.status();
  v1::ListCountersResponse response;
  response.set_host(browsed->host.info.name);
  response.set_object(found->titles().Name(found->object.name_index()));
  response.set_sample_unix_nanos(found->sample->time_ns);
  for (const query::CounterInfo& counter :
       query::ListCounters(found->object, found->titles(), MaxDetail(request.detail()))) {
    ToProto(counter, response.add_counters());
  }
  return response;
}

Result<v1::ListInstancesResponse> QueryService::Instances(const v1::ListInstancesRequest& request) {
  if (IsFleet(request.where())) return FleetInstances(request);
  Result<BrowsedHost> browsed = Browse(request.where());
  if (!browsed.ok()) return browsed.status();
  Result<query::BrowsedObject> found = FindObjectIn(*browsed, request.object());
  if (!found.ok()) return found.status();
  v1::ListInstancesResponse response;
  response.set_host(browsed->host.info.name);
  response.set_object(found->titles().Name(found->object.name_index()));
  response.set_sample_unix_nanos(found->sample->time_ns);
  for (const query::InstanceInfo& instance : query::ListInstances(found->snapshot, found->object)) {
    v1::InstanceInfo* out = response.add_instances();
    out->set_name(instance.name);
    out->set_identity(IdentityText(instance.identity));
  }
  return response;
}

Result<v1::ListObjectsResponse> QueryService::FleetObjects(const v1::ListObjectsRequest& request) {
  Result<query::FleetBrowseRequest> fleet = FleetRequest(request.where(), request.detail());
  if (!fleet.ok()) return fleet.status();
  Result<query::FleetObjects> answer = browser_.Objects(*fleet);
  if (!answer.ok()) return answer.status();
  v1::ListObjectsResponse response;
  ToProto(answer->hosts, response.mutable_fleet());
  for (const query::Present<query::ObjectInfo>& object : answer->objects) {
    v1::ObjectInfo* out = response.add_objects();
    ToProto(object.info, out);
    ToProto(object.presence, out->mutable_presence());
  }
  return response;
}

Result<v1::ListCountersResponse> QueryService::FleetCounters(
    const v1::ListCountersRequest& request) {
  Result<query::FleetBrowseRequest> fleet = FleetRequest(request.where(), request.detail());
  if (!fleet.ok()) return fleet.status();
  Result<query::FleetCounters> answer = browser_.Counters(*fleet, request.object());
  if (!answer.ok()) return answer.status();
  v1::ListCountersResponse response;
  ToProto(answer->hosts, response.mutable_fleet());
  response.set_object(answer->object);
  ToProto(answer->object_presence, response.mutable_object_presence());
  for (const query::Present<query::CounterInfo>& counter : answer->items) {
    v1::CounterInfo* out = response.add_counters();
    ToProto(counter.info, out);
    ToProto(counter.presence, out->mutable_presence());
  }
  return response;
}

Result<v1::ListInstancesResponse> QueryService::FleetInstances(
    const v1::ListInstancesRequest& request) {
  Result<query::FleetBrowseRequest> fleet =
      FleetRequest(request.where(), v1::DETAIL_LEVEL_UNSPECIFIED);
  if (!fleet.ok()) return fleet.status();
  Result<query::FleetInstances> answer = browser_.Instances(*fleet, request.object());
  if (!answer.ok()) return answer.status();
  v1::ListInstancesResponse response;
  ToProto(answer->hosts, response.mutable_fleet());
  response.set_object(answer->object);
  ToProto(answer->object_presence, response.mutable_object_presence());
  for (const query::Present<std::string>& instance : answer->items) {
    v1::InstanceInfo* out = response.add_instances();
    out->set_name(instance.info);
    ToProto(instance.presence, out->mutable_presence());
  }
  return response;
}

grpc::ServerUnaryReactor* QueryService::ListObjects(grpc::CallbackServerContext* context,
                                                    const v1::ListObjectsRequest* request,
                                                    v1::ListObjectsResponse* response) {
  Status status = Authorize(*context);
  if (status.ok()) status = MoveInto(Objects(*request), response);
  return FinishUnary(context, status);
}

grpc::ServerUnaryReactor* QueryService::ListCounters(grpc::CallbackServerContext* context,
                                                     const v1::ListCountersRequest* request,
                                                     v1::ListCountersResponse* response) {
  Status status = Authorize(*context);
  if (status.ok()) status = MoveInto(Counters(*request), response);
  return FinishUnary(context, status);
}

grpc::ServerUnaryReactor* QueryService::ListInstances(grpc::CallbackServerContext* context,
                                                      const v1::ListInstancesRequest* request,
                                                      v1::ListInstancesResponse* response) {
  Status status = Authorize(*context);
  if (status.ok()) status = MoveInto(Instances(*request), response);
  return FinishUnary(context, status);
}

Result<QueryService::BrowsedHost> QueryService::Browse(const v1::BrowseAt& where) {
  Result<HostRecord> host = FindHost(where.host());
  if (!host.ok()) return host.status();
  const int64_t at = where.at_unix_nanos() == 0 ? INT64_MAX : where.at_unix_nanos();
  Result<std::vector<query::HostSample>> samples =
      loader_.BrowseSamples(host->info.name, at, nullptr);
  if (!samples.ok()) return samples.status();
  return BrowsedHost{*host, std::move(samples).value()};
}

Result<query::BrowsedObject> QueryService::FindObjectIn(const BrowsedHost& browsed,
                                                        const std::string& object) {
  Result<query::BrowsedObject> found = query::FindObject(browsed.samples, object);
  if (!found.ok() && found.status().code() == StatusCode::kNotFound) {
    return found.status().Prefixed(browsed.host.info.name + ": ");
  }
  return found;
}

Status QueryService::Authorize(const grpc::CallbackServerContext& context) const {
  Result<Principal> principal = AuthenticateCall(tokens_, enrolled_, context);
  if (!principal.ok()) return principal.status();
  if (!principal->read) {
    return Status::PermissionDenied((principal->certificate_serial.empty()
                                         ? "token \"" + principal->name + "\""
                                         : principal->name) +
                                    " may not read");
  }
  return Status();
}

Result<HostRecord> QueryService::FindHost(const std::string& name) {
  Result<std::optional<HostRecord>> host = store_.catalog().FindHost(name);
  if (!host.ok()) return host.status();
  if (host->has_value()) return **host;
  Result<std::vector<std::string>> all = loader_.HostNames();
  return Status::NotFound("no host named \"" + name + "\"" +
                          (all.ok() ? query::KnownHosts(*all) : std::string()));
}

Result<v1::ListHostsResponse> QueryService::Hosts(const v1::ListHostsRequest& request) {
  Result<query::HostSelector> selector = query::HostSelector::Parse(request.select());
  if (!selector.ok()) return selector.status();
  Result<std::vector<HostRecord>> hosts = store_.catalog().ListHosts();
  if (!hosts.ok()) return Status::Unavailable("store: " + hosts.error());
  // Each host's newest credential (the registry lists a host's newest first); a polled host
  // without one of its own shows its poller's. Hosts' only: a reader's named like a host says
  // nothing of that host.
  std::map<std::string, CredentialInfo> credentials;
  if (registry_ != nullptr) {
    Result<std::vector<CredentialInfo>> listed = registry_->ListHostCredentials();
    if (listed.ok()) {
      for (const CredentialInfo& credential : *listed) {
        credentials.try_emplace(FoldCase(credential.host), credential);
      }
      for (const CredentialInfo& credential : *listed) {
        for (const std::string& target : credential.targets) {
          credentials.try_emplace(FoldCase(target), credential);
        }
      }
    }
  }
  // One book for the whole list, however the file is reloaded meanwhile.
  std::shared_ptr<const PolicyBook> book = policies_ != nullptr ? policies_->book() : nullptr;
  auto now = std::chrono::system_clock::now();
  v1::ListHostsResponse response;
  for (const HostRecord& host : *hosts) {
    if (!request.pattern().empty() && !MatchesPattern(request.pattern(), host.info.name)) continue;
    const CollectionPlan plan = book != nullptr ? book->PlanFor(host.info.name) : CollectionPlan();
    const query::HostLabels labels = LabelsUnder(plan, host.labels).labels;
    if (!selector->Matches(host.info.name, labels)) continue;
    v1::HostInfo* info = response.add_hosts();
    ToProto(host, info);
    info->mutable_labels()->insert(labels.begin(), labels.end());
    // The newest sample's own time: one indexed lookup (host, sample time) per host listed.
    Result<std::vector<SnapshotInfo>> newest =
        store_.ListSnapshots(host.info.name, 0, INT64_MAX, std::nullopt, 1, /*newest=*/true);
    if (newest.ok() && !newest->empty()) {
      info->set_last_sample_unix_nanos(newest->front().sample_time_ns);
    }
    info->set_plan_latest(plan.revision);
    auto credential = credentials.find(FoldCase(host.info.name));
    if (credential == credentials.end()) continue;
    const CredentialInfo& held = credential->second;
    info->set_credential(held.revoked ? "revoked" : held.expires <= now ? "expired" : "enrolled");
    info->set_credential_expires_unix_nanos(
        std::chrono::duration_cast<std::chrono::nanoseconds>(held.expires.time_since_epoch())
            .count());
  }
  return response;
}

v1::ListAlertsResponse QueryService::Alerts() const {
  v1::ListAlertsResponse response;
  if (alerting_ == nullptr) return response;
  const AlertsListing listing = alerting_->Listing();
  response.set_rules_file(listing.rules_file);
  response.set_interval_nanos(listing.interval_ns);
  response.set_reload_error(listing.reload_error);
  for (const AlertRule& rule : listing.rules) {
    v1::AlertRuleReport* report = response.add_rules();
    report->set_name(rule.name);
    report->set_path(rule.path);
    report->set_hosts(rule.hosts);
    report->set_aggregate(rule.aggregate);
    report->set_by(rule.by);
    report->set_step_nanos(rule.step_ns);
    report->set_condition(rule.condition.text);
    report->set_comparison(std::string(query::ComparisonSymbol(rule.condition.comparison)));
    report->set_threshold(rule.condition.threshold);
    report->set_for_nanos(rule.condition.for_ns);
    report->set_severity(rule.severity);
    report->mutable_labels()->insert(rule.labels.begin(), rule.labels.end());
    report->set_summary(rule.summary);
    report->set_description(rule.description);
    for (const RuleReport& seen : listing.reports) {
      if (seen.rule != rule.name) continue;
      report->set_last_evaluation_unix_nanos(seen.evaluated_ns);
      report->set_series_checked(seen.series_checked);
      report->set_error(seen.error);
      for (const std::string& line : seen.missing) report->add_missing(line);
    }
  }
  for (const Alert& alert : listing.alerts) {
    v1::AlertInfo* info = response.add_alerts();
    info->set_rule(alert.rule);
    info->set_state(AlertStateName(alert.state));
    auto label = [&](const char* key) {
      auto found = alert.labels.find(key);
      return found == alert.labels.end() ? std::string() : found->second;
    };
    info->set_severity(label("severity"));
    info->set_series(alert.series);
    // A host's series names it; a group's aggregate has a host label only when grouped by host.
    if (alert.labels.count("aggregate") == 0) info->set_host(label("host"));
    info->mutable_labels()->insert(alert.labels.begin(), alert.labels.end());
    info->mutable_annotations()->insert(alert.annotations.begin(), alert.annotations.end());
    info->set_active_since_unix_nanos(alert.active_since_ns);
    info->set_firing_since_unix_nanos(alert.firing_since_ns);
    info->set_resolved_unix_nanos(alert.resolved_ns);
    info->set_value(alert.value);
  }
  return response;
}

grpc::ServerUnaryReactor* QueryService::ListAlerts(grpc::CallbackServerContext* context,
                                                   const v1::ListAlertsRequest* /*request*/,
                                                   v1::ListAlertsResponse* response) {
  Status status = Authorize(*context);
  if (status.ok()) *response = Alerts();
  return FinishUnary(context, status);
}

grpc::ServerUnaryReactor* QueryService::Health(grpc::CallbackServerContext* context,
                                               const v1::HealthRequest* request,
                                               v1::HealthResponse* response) {
  Status status = Authorize(*context);
  if (status.ok()) status = MoveInto(FleetHealth(*request), response);
  return FinishUnary(context, status);
}

Result<v1::HealthResponse> QueryService::FleetHealth(const v1::HealthRequest& request) {
  Result<query::HostSelector> selector = query::HostSelector::Parse(request.host_selector());
  if (!selector.ok()) return selector.status();
  query::HealthRequest health;
  health.at_ns = request.at_unix_nanos() != 0 ? request.at_unix_nanos() : UnixNanosNow();
  health.from_ns = request.from_unix_nanos() != 0 ? request.from_unix_nanos()
                                                  : health.at_ns - query::kHealthDefaultRangeNs;
  if (request.has_peers_by()) {
    Result<std::vector<std::string>> peers_by = query::ParsePeersBy(request.peers_by());
    if (!peers_by.ok()) return peers_by.status();
    health.peers_by = std::move(peers_by).value();
  }
  Result<std::vector<query::HealthHost>> hosts = loader_.HealthHosts(health.at_ns, labels_);
  if (!hosts.ok()) return hosts.status();
  const NamePattern pattern(request.hosts().empty() ? "*" : request.hosts());
  std::vector<query::HealthHost> selected;
  size_t named = 0;
  for (query::HealthHost& host : *hosts) {
    const std::string& name = host.inventories.host;
    if (!pattern.Matches(name)) continue;
    ++named;
    if (selector->Matches(name, host.labels)) selected.push_back(std::move(host));
  }
  if (selected.empty() && !hosts->empty()) {
    return Status(StatusCode::kNotFound,
                  named == 0
                      ? "no host with recorded inventories matches \"" + request.hosts() + "\""
                      : std::to_string(named) + " hosts match \"" + request.hosts() +
                            "\", none is selected by \"" + selector->text() + "\"");
  }
  const query::HealthReport report = loader_.ReportHealth(health, selected);
  v1::HealthResponse response;
  response.set_at_unix_nanos(report.at_ns);
  response.set_from_unix_nanos(health.from_ns);
  for (const std::string& host : report.hosts) response.add_hosts(host);
  for (const query::HostSlowestObjects& host : report.slowest_objects) {
    v1::HostSlowestObjects* out = response.add_slowest_objects();
    out->set_host(host.host);
    for (const query::HostSlowestObjects::Object& object : host.objects) {
      v1::ObjectTime* time = out->add_objects();
      time->set_object(object.name);
      time->set_nanos(object.nanos);
    }
  }
  for (const query::HealthFinding& finding : report.findings) {
    v1::HealthFinding* out = response.add_findings();
    out->set_kind(query::HealthFindingKindName(finding.kind));
    out->set_object(finding.object);
    out->set_counter(finding.counter);
    out->set_peers(finding.peers);
    out->set_peers_with(static_cast<uint32_t>(finding.peers_with));
    out->set_peer_hosts(static_cast<uint32_t>(finding.peer_hosts));
    out->set_newest_unix_nanos(finding.newest_ns);
    for (const query::HostFinding& host : finding.hosts) {
      v1::HealthHostFinding* host_out = out->add_hosts();
      host_out->set_host(host.host);
      host_out->set_since_unix_nanos(host.since_ns);
      host_out->set_last_with_unix_nanos(host.last_with_ns.value_or(0));
      host_out->set_cause(host.cause);
      host_out->set_action(host.action);
      for (const auto& [gone, back] : host.gaps) {
        v1::HealthHostFinding::Gap* gap = host_out->add_gaps();
        gap->set_gone_unix_nanos(gone);
        gap->set_back_unix_nanos(back);
      }
    }
  }
  return response;
}

grpc::ServerUnaryReactor* QueryService::ListHosts(grpc::CallbackServerContext* context,
                                                  const v1::ListHostsRequest* request,
                                                  v1::ListHostsResponse* response) {
  Status status = Authorize(*context);
  if (status.ok()) status = MoveInto(Hosts(*request), response);
  return FinishUnary(context, status);
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
  return new ListWriter<v1::SnapshotInfo>(std::move(items), std::move(status));
}

grpc::ServerUnaryReactor* QueryService::GetRawSnapshot(grpc::CallbackServerContext* context,
                                                       const v1::GetRawSnapshotRequest* request,
                                                       v1::RawSnapshot* response) {
  if (Status status = Authorize(*context); !status.ok()) return FinishUnary(context, status);
  Result<HostRecord> host = FindHost(request->host());
  if (!host.ok()) return FinishUnary(context, host.status());
  std::optional<std::string> query;
  if (!request->query().empty()) query = request->query();
  int64_t at = request->at_unix_nanos();
  Result<std::vector<SnapshotInfo>> found =
      store_.ListSnapshots(host->info.name, at, at == INT64_MAX ? at : at + 1, query);
  if (!found.ok()) return FinishUnary(context, Status::Unavailable("store: " + found.error()));
  if (found->empty()) {
    return FinishUnary(
        context, Status::NotFound("host \"" + host->info.name +
                                  "\" has no snapshot taken at that time; `perfhive snapshots` "
                                  "lists the times"));
  }
  const SnapshotInfo& info = found->front();
  Result<std::vector<uint8_t>> raw = store_.ReadSnapshot(info);
  if (!raw.ok()) return FinishUnary(context, raw.status());
  ToProto(info, response->mutable_info());
  response->set_raw(raw->data(), raw->size());
  for (const char* language : {"009", kDisplayLanguage}) {
    Result<std::optional<TitleDatabaseRecord>> titles =
        store_.catalog().TitlesInForce(host->info.name, language, info.sample_time_ns);
    if (!titles.ok() || !titles->has_value()) continue;
    v1::TitleDatabase* out = response->add_titles();
    out->set_language((*titles)->language);
    out->set_counters((*titles)->counters.data(), (*titles)->counters.size());
    out->set_helps((*titles)->helps.data(), (*titles)->helps.size());
    out->set_sha256(std::string((*titles)->digest.begin(), (*titles)->digest.end()));
  }
  return FinishUnary(context, Status());
}

}  // namespace perfhive
