#include "server/query_service.h"

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
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_bytes.h"
#include "proto/series_conversion.h"
#include "proto/source_kind.h"
#include "query/browse.h"
#include "query/empty_answers.h"
#include "query/series_query.h"
#include "query/series_statistics.h"
#include "server/bounded_parallel.h"
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
// Hosts a Read computes at once, at most (fewer on a machine with fewer cores).
constexpr size_t kReadThreads = 8;
// Listed samples (about 200 bytes each) that the estimate of a read keeps for loading, in all:
// past it a host's range is listed again rather than every host's listing held at once.
constexpr size_t kKeptListings = 250'000;
// The newest samples browsing looks among for a Global one.
constexpr size_t kBrowseCandidates = 16;

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

std::string IdentityText(const query::InstanceIdentity& identity) {
  std::string text;
  if (identity.pid) text = "pid " + std::to_string(*identity.pid);
  if (identity.tid) text += " tid " + std::to_string(*identity.tid);
  return text;
}

// The newest Global sample of `listed` (in time order, not empty), else the newest: a Global
// sample has every object but the costly ones.
const SnapshotInfo& NewestGlobal(const std::vector<SnapshotInfo>& listed) {
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    if (it->query == "Global") return *it;
  }
  return listed.back();
}

// The samples taken from `from` to `to`; before them a read holds at most the older end of the
// first interval.
std::span<const query::HostSample> InRange(const std::vector<query::HostSample>& samples,
                                           int64_t from, int64_t to) {
  auto first = std::find_if(samples.begin(), samples.end(),
                            [&](const query::HostSample& s) { return s.time_ns >= from; });
  auto last = std::find_if(first, samples.end(),
                           [&](const query::HostSample& s) { return s.time_ns > to; });
  return {first, last};
}

// "; known hosts: a, b, ... (N in all)", a few names for an error that says a host is unknown:
// enough to spot a typo, bounded however many hosts (and however long their names) there are.
std::string KnownHosts(const std::vector<HostRecord>& hosts) {
  if (hosts.empty()) return "; the server has no hosts yet";
  std::string known;
  size_t named = 0;
  for (const HostRecord& host : hosts) {
    if (known.size() > 200) break;
    known += (known.empty() ? "" : ", ") + TruncateUtf8(host.info.name, 64);
    ++named;
  }
  if (named < hosts.size()) known += ", ... (" + std::to_string(hosts.size()) + " in all)";
  return "; known hosts: " + known;
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
  if (request.paths().empty()) return Status::InvalidArgument("no counter path to read");
  std::vector<CounterPath> paths;
  for (const std::string& text : request.paths()) {
    Result<CounterPath> path = ParseCounterPath(text);
    if (!path.ok()) return WithPathDisplay(path.status(), text);
    paths.push_back(std::move(path).value());
  }
  Result<std::vector<HostRecord>> hosts = store_.ListHosts();
  if (!hosts.ok()) return Status::Unavailable("store: " + hosts.error());
  std::vector<HostRecord> matched;
  for (const HostRecord& host : *hosts) {
    for (const CounterPath& path : paths) {
      if (query::MachineMatches(path, host.info.name)) {
        matched.push_back(host);
        break;
      }
    }
  }
  if (matched.empty()) {
    return Status::NotFound("no host matches the paths' machines" + KnownHosts(*hosts));
  }
  int64_t from = request.from_unix_nanos();
  int64_t to = request.to_unix_nanos() == 0 ? INT64_MAX : request.to_unix_nanos();
  if (to < from) return Status::InvalidArgument("the range ends before it begins");
  query::QueryOptions options;
  options.format.scale_factor = request.scale_factor();
  options.format.cap_100 = request.cap_100();
  if (request.max_points() != 0) options.max_points = request.max_points();
  options.newest_series = request.latest_only();
  options.keep_raw = request.raw() || request.statistics();
  if (request.step_nanos() > 0) {
    options.step_ns = request.step_nanos();
    if (from != 0) options.first_boundary_ns = from;
  }
  options.max_bytes = max_query_bytes_;
  // Only the objects the paths name are restored from the store.
  const ObjectNameFilter objects(paths);
  std::vector<std::vector<SnapshotInfo>> listings(matched.size());
  if (!request.latest_only()) {
    Status within = ListWithinLimits(matched, from, to, objects, paths, options, listings);
    if (!within.ok()) return within;
  }
  // Each host is read and computed apart, in parallel, then joined in order.
  struct HostAnswer {
    Status status;
    query::QueryAnswer answer;
  };
  std::vector<HostAnswer> per_host(matched.size());
  RunBounded(matched.size(), kReadThreads, [&](size_t i) {
    const std::string& name = matched[i].info.name;
    HostAnswer& host = per_host[i];
    Result<query::HostSamples> samples = request.latest_only() ? loader_.LoadLatest(name, &objects)
                                         : listings[i].empty()
                                             ? loader_.LoadRange(name, from, to, &objects)
                                             : loader_.LoadListed(name, listings[i], &objects);
    if (!samples.ok()) {
      host.status = samples.status().Prefixed(name + ": ");
      return;
    }
    std::span<const query::HostSample> in_range =
        request.latest_only() ? samples->samples : InRange(samples->samples, from, to);
    if (in_range.empty()) {
      host.answer.warnings.push_back(
          query::NoSampleInRange(name, from, to, NearestSampleTime(name, from, to)));
      return;
    }
    std::vector<bool> selected;
    host.status = query::AddHostSeries(*samples, paths, options, host.answer, &selected);
    if (host.status.ok()) {
      ExplainUnselected(name, in_range, paths, request, selected, from, to, host.answer.warnings);
    }
  });
  query::QueryAnswer answer;
  for (HostAnswer& host : per_host) {
    if (!host.status.ok()) return host.status;
    if (Status s = query::AppendAnswer(std::move(host.answer), options, answer); !s.ok()) return s;
  }
  std::vector<v1::ReadResponse> responses(1);
  size_t points_in_response = 0;
  for (query::Series& series : answer.series) {
    // Points before the range only anchored the first interval.
    int64_t keep_from =
        request.latest_only() && !series.points.empty() ? series.points.back().time_ns : from;
    // Points outside the range only anchored an interval (before it), or are the last step
    // boundary past its end.
    std::erase_if(series.points, [&](const query::Point& point) {
      return point.time_ns < keep_from || point.time_ns > to;
    });
    if (request.statistics()) {
      query::Series in_range = series;
      bool interval = NeedsTwoSamples(series.counter_type);
      // A two-sample type keeps the newest sample before the range as its first interval's
      // older end; a one-sample type keeps nothing before it.
      size_t drop = 0;
      while (drop < in_range.raw.size() && in_range.raw[drop].time_ns < from) ++drop;
      if (interval && drop > 0) --drop;
      in_range.raw.erase(in_range.raw.begin(), in_range.raw.begin() + static_cast<long>(drop));
      series.stats = query::ComputeSeriesStatistics(in_range, options.format);
    }
    if (points_in_response > 0 && points_in_response + series.points.size() > kPointsPerResponse) {
      responses.emplace_back();
      points_in_response = 0;
    }
    points_in_response += series.points.size();
    SeriesToProto(series, request.raw(), responses.back().add_series());
  }
  for (const std::string& warning : answer.warnings) responses.front().add_warnings(warning);
  return responses;
}

Status QueryService::ListWithinLimits(const std::vector<HostRecord>& hosts, int64_t from,
                                      int64_t to, const ObjectNameFilter& objects,
                                      std::span<const CounterPath> paths,
                                      const query::QueryOptions& options,
                                      std::vector<std::vector<SnapshotInfo>>& listings) {
  std::vector<query::HostEstimate> estimates(hosts.size());
  std::vector<Status> failed(hosts.size());
  std::atomic<size_t> kept = 0;  // listed samples kept in `listings`
  RunBounded(hosts.size(), kReadThreads, [&](size_t i) {
    const std::string& name = hosts[i].info.name;
    Result<std::vector<SnapshotInfo>> listed = loader_.ListRange(name, from, to);
    Result<std::vector<SampleLoader::QueryInRange>> queries =
        listed.ok() ? loader_.Probe(name, *listed, from, &objects) : listed.status();
    if (!queries.ok()) {
      failed[i] = queries.status().Prefixed(name + ": ");
      return;
    }
    query::HostEstimate& estimate = estimates[i];
    estimate.host = name;
    std::vector<query::ProbeSample> probes;
    for (SampleLoader::QueryInRange& in_range : *queries) {
      estimate.samples += in_range.newest.samples;
      // Each sample restores the share of its bytes that the newest of its query restores.
      const double share = static_cast<double>(in_range.newest.sample.bytes->size()) /
                           static_cast<double>(std::max<int64_t>(in_range.newest_raw_size, 1));
      estimate.bytes += static_cast<uint64_t>(static_cast<double>(in_range.raw_bytes) * share);
      probes.push_back(std::move(in_range.newest));
    }
    // With a step the answer's points are not limited (CheckEstimate): no walk to count them.
    // Nor for one host whose probes hold fewer values than the limit, counted without a walk:
    // an instant read of a whole Process object walked its probe twice (here and to answer).
    if (!options.step_ns) {
      const bool one_host = hosts.size() == 1;
      const size_t at_most = one_host ? query::PointsAtMost(probes) : SIZE_MAX;
      estimate.points = one_host && at_most <= options.max_points
                            ? at_most
                            : query::EstimatePoints(name, probes, paths, options);
    }
    if (kept.fetch_add(listed->size()) + listed->size() <= kKeptListings) {
      listings[i] = std::move(listed).value();
    }
  });
  for (const Status& status : failed) {
    if (!status.ok()) return status;
  }
  return query::CheckEstimate(estimates, options);
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

Result<QueryService::BrowsedSample> QueryService::SampleToBrowse(const v1::BrowseAt& where) {
  Result<HostRecord> host = FindHost(where.host());
  if (!host.ok()) return host.status();
  int64_t at = where.at_unix_nanos() == 0 ? INT64_MAX : where.at_unix_nanos();
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host->info.name, 0, at == INT64_MAX ? at : at + 1, std::nullopt,
                           kBrowseCandidates, /*newest=*/true);
  if (!listed.ok()) return Status::Unavailable("store: " + listed.error());
  if (listed->empty()) {
    return Status::NotFound("host \"" + host->info.name +
                            "\" has no sample at or before that time");
  }
  const SnapshotInfo& chosen = NewestGlobal(*listed);
  Result<query::HostSample> sample = loader_.Load(host->info.name, chosen);
  if (!sample.ok()) return sample.status();
  std::vector<SnapshotInfo> others;
  for (const SnapshotInfo& candidate : *listed) {  // newest first
    if (candidate.query == chosen.query) continue;
    auto same = [&](const SnapshotInfo& other) { return other.query == candidate.query; };
    if (std::none_of(others.begin(), others.end(), same)) others.push_back(candidate);
  }
  return BrowsedSample{*host, chosen, std::move(sample).value(), std::nullopt, std::move(others)};
}

void QueryService::ExplainUnselected(const std::string& host,
                                     std::span<const query::HostSample> samples,
                                     std::span<const CounterPath> paths,
                                     const v1::ReadRequest& request,
                                     const std::vector<bool>& selected, int64_t from, int64_t to,
                                     std::vector<std::string>& warnings) {
  // Loaded once for the host, and only if a path's object is in none of the samples read.
  std::optional<query::HostSample> whole;
  bool loaded = false;
  auto whole_sample = [&]() -> const query::HostSample* {
    if (!loaded) {
      loaded = true;
      Result<query::HostSample> sample = WholeSampleIn(host, from, to);
      if (sample.ok()) whole = std::move(sample).value();
    }
    return whole ? &*whole : nullptr;
  };
  for (size_t p = 0; p < paths.size(); ++p) {
    if (selected[p] || !query::MachineMatches(paths[p], host)) continue;
    warnings.push_back(
        query::ExplainNothingSelected(host, samples, paths[p], request.paths(p), whole_sample));
  }
}

Result<query::HostSample> QueryService::WholeSampleIn(const std::string& host, int64_t from,
                                                      int64_t to) {
  Result<std::vector<SnapshotInfo>> listed = store_.ListSnapshots(
      host, from, to == INT64_MAX ? to : to + 1, std::nullopt, kBrowseCandidates, /*newest=*/true);
  if (!listed.ok()) return Status::Unavailable("store: " + listed.error());
  if (listed->empty()) return Status::NotFound("no sample of " + host + " in the range");
  return loader_.Load(host, NewestGlobal(*listed));
}

std::optional<int64_t> QueryService::NearestSampleTime(const std::string& host, int64_t from,
                                                       int64_t to) {
  std::optional<int64_t> nearest;
  Result<std::vector<SnapshotInfo>> before =
      store_.ListSnapshots(host, 0, from, std::nullopt, 1, /*newest=*/true);
  if (before.ok() && !before->empty()) nearest = before->front().sample_time_ns;
  if (to == INT64_MAX) return nearest;
  Result<std::vector<SnapshotInfo>> after =
      store_.ListSnapshots(host, to + 1, INT64_MAX, std::nullopt, 1);
  if (after.ok() && !after->empty() &&
      (!nearest || after->front().sample_time_ns - to < from - *nearest)) {
    nearest = after->front().sample_time_ns;
  }
  return nearest;
}

Result<v1::ListObjectsResponse> QueryService::Objects(const v1::ListObjectsRequest& request) {
  Result<BrowsedSample> browsed = Browse(request.where());
  if (!browsed.ok()) return browsed.status();
  query::Titles titles = browsed->titles();
  v1::ListObjectsResponse response;
  response.set_host(browsed->host.info.name);
  response.set_sample_unix_nanos(browsed->info.sample_time_ns);
  for (const query::ObjectInfo& object :
       query::ListObjects(*browsed->snapshot, titles, MaxDetail(request.detail()))) {
    ToProto(object, response.add_objects());
  }
  // Objects that only another query's samples hold, after the sample's own.
  for (const SnapshotInfo& info : browsed->others) {
    Result<BrowsedSample> other = Reopen(*browsed, info);
    if (!other.ok()) continue;
    for (const query::ObjectInfo& object :
         query::ListObjects(*other->snapshot, other->titles(), MaxDetail(request.detail()))) {
      auto listed = [&](const v1::ObjectInfo& known) { return known.index() == object.index; };
      if (std::any_of(response.objects().begin(), response.objects().end(), listed)) continue;
      ToProto(object, response.add_objects());
    }
  }
  return response;
}

Result<v1::ListCountersResponse> QueryService::Counters(const v1::ListCountersRequest& request) {
  Result<std::pair<BrowsedSample, ObjectView>> found =
      BrowseObject(request.where(), request.object());
  if (!found.ok()) return found.status();
  const BrowsedSample* browsed = &found->first;
  const ObjectView* object = &found->second;
  query::Titles titles = browsed->titles();
  v1::ListCountersResponse response;
  response.set_host(browsed->host.info.name);
  response.set_object(titles.Name(object->name_index()));
  response.set_sample_unix_nanos(browsed->info.sample_time_ns);
  for (const query::CounterInfo& counter :
       query::ListCounters(*object, titles, MaxDetail(request.detail()))) {
    v1::CounterInfo* out = response.add_counters();
    out->set_name(counter.name);
    out->set_index(counter.index);
    out->set_help(counter.help);
    out->set_detail(ToProtoDetail(counter.detail_level));
    out->set_type(counter.type);
    out->set_type_name(counter.type_name);
    out->set_default_scale(counter.default_scale);
    out->set_unit(counter.unit);
  }
  return response;
}

Result<v1::ListInstancesResponse> QueryService::Instances(const v1::ListInstancesRequest& request) {
  Result<std::pair<BrowsedSample, ObjectView>> found =
      BrowseObject(request.where(), request.object());
  if (!found.ok()) return found.status();
  const BrowsedSample* browsed = &found->first;
  const ObjectView* object = &found->second;
  query::Titles titles = browsed->titles();
  v1::ListInstancesResponse response;
  response.set_host(browsed->host.info.name);
  response.set_object(titles.Name(object->name_index()));
  response.set_sample_unix_nanos(browsed->info.sample_time_ns);
  for (const query::InstanceInfo& instance : query::ListInstances(*browsed->snapshot, *object)) {
    v1::InstanceInfo* out = response.add_instances();
    out->set_name(instance.name);
    out->set_identity(IdentityText(instance.identity));
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

Result<QueryService::BrowsedSample> QueryService::Browse(const v1::BrowseAt& where) {
  Result<BrowsedSample> browsed = SampleToBrowse(where);
  if (!browsed.ok()) return browsed.status();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*browsed->sample.bytes);
  if (!snapshot.ok()) return Status::DataLoss("stored sample: " + snapshot.error());
  browsed->snapshot = *snapshot;
  return browsed;
}

Result<QueryService::BrowsedSample> QueryService::Reopen(const BrowsedSample& browsed,
                                                         const SnapshotInfo& info) {
  Result<query::HostSample> sample = loader_.Load(browsed.host.info.name, info);
  if (!sample.ok()) return sample.status();
  BrowsedSample other{browsed.host, info, std::move(sample).value(), std::nullopt, {}};
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*other.sample.bytes);
  if (!snapshot.ok()) return Status::DataLoss("stored sample: " + snapshot.error());
  other.snapshot = *snapshot;
  return other;
}

Result<std::pair<QueryService::BrowsedSample, ObjectView>> QueryService::BrowseObject(
    const v1::BrowseAt& where, const std::string& object) {
  Result<BrowsedSample> browsed = Browse(where);
  if (!browsed.ok()) return browsed.status();
  Result<ObjectView> found = FindObjectIn(*browsed, object);
  if (found.ok()) return std::pair(std::move(browsed).value(), *found);
  for (const SnapshotInfo& info : browsed->others) {
    Result<BrowsedSample> other = Reopen(*browsed, info);
    if (!other.ok()) continue;
    Result<ObjectView> in_other = query::FindObject(*other->snapshot, other->titles(), object);
    if (in_other.ok()) return std::pair(std::move(other).value(), *in_other);
  }
  return found.status();
}

Result<ObjectView> QueryService::FindObjectIn(const BrowsedSample& browsed,
                                              const std::string& object) {
  Result<ObjectView> found = query::FindObject(*browsed.snapshot, browsed.titles(), object);
  if (!found.ok()) return found.status().Prefixed(browsed.host.info.name + ": ");
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
  Result<std::optional<HostRecord>> host = store_.FindHost(name);
  if (!host.ok()) return host.status();
  if (host->has_value()) return **host;
  Result<std::vector<HostRecord>> all = store_.ListHosts();
  return Status::NotFound("no host named \"" + name + "\"" +
                          (all.ok() ? KnownHosts(*all) : std::string()));
}

Result<v1::ListHostsResponse> QueryService::Hosts(const v1::ListHostsRequest& request) {
  Result<std::vector<HostRecord>> hosts = store_.ListHosts();
  if (!hosts.ok()) return Status::Unavailable("store: " + hosts.error());
  // Each host's newest credential (the registry lists a host's newest first); a polled host
  // without one of its own shows its poller's.
  std::map<std::string, CredentialInfo> credentials;
  if (registry_ != nullptr) {
    Result<std::vector<CredentialInfo>> listed = registry_->ListCredentials();
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
    v1::HostInfo* info = response.add_hosts();
    ToProto(host, info);
    // The newest sample's own time: one indexed lookup (host, sample time) per host listed.
    Result<std::vector<SnapshotInfo>> newest =
        store_.ListSnapshots(host.info.name, 0, INT64_MAX, std::nullopt, 1, /*newest=*/true);
    if (newest.ok() && !newest->empty()) {
      info->set_last_sample_unix_nanos(newest->front().sample_time_ns);
    }
    if (book != nullptr) info->set_plan_latest(book->PlanFor(host.info.name).revision);
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
  Result<std::vector<uint8_t>> raw = store_.ReadSnapshot(info.id);
  if (!raw.ok()) return FinishUnary(context, raw.status());
  ToProto(info, response->mutable_info());
  response->set_raw(raw->data(), raw->size());
  for (const char* language : {"009", kDisplayLanguage}) {
    Result<std::optional<TitleDatabaseRecord>> titles =
        store_.TitlesInForce(host->info.name, language, info.sample_time_ns);
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
