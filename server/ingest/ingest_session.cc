#include "server/ingest/ingest_session.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "perfdata/display_text.h"
#include "perfdata/host_name.h"
#include "perfdata/invalid_counters.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_bytes.h"
#include "port/env.h"
#include "port/sha256.h"
#include "proto/source_kind.h"
#include "query/label_text.h"
#include "server/enrollment/call_auth.h"
#include "store/host_key.h"
#include "store/sample_time.h"
#include "wire/title_digest.h"

namespace perfhive {
namespace {

namespace v1 = perfhive::v1;

std::span<const uint8_t> BytesOf(const std::string& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

// Bounds of what an agent says about itself and its host: text a person reads is cut to these
// (perfdata/display_text.h), identifiers beyond them are refused.
constexpr size_t kMaxDescriptionBytes = 256;  // OS, OS version, agent version
constexpr size_t kMaxHealthMessageBytes = 4096;
constexpr size_t kMaxIdentifierBytes = 128;  // instance ids, query names
// Replies waiting to be written past which a stream is read no further (MayRead). Acks of the
// appends in flight (at most max_in_flight) may still join them: the queue stays bounded.
constexpr size_t kMaxQueuedReplies = 64;

// Identifiers (an instance id, a query) are printable ASCII of a bounded length: they are keys,
// and they are shown.
Status CheckIdentifier(std::string_view what, std::string_view text) {
  if (text.size() > kMaxIdentifierBytes) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(text.size()) +
                                   " bytes long; at most " + std::to_string(kMaxIdentifierBytes) +
                                   " are allowed");
  }
  for (char c : text) {
    if (c < 0x20 || c > 0x7E) {
      return Status::InvalidArgument(std::string(what) + " \"" + EscapeForDisplay(text) +
                                     "\" holds a character other than printable ASCII");
    }
  }
  return Status();
}

constexpr const char* kPollerStreamCarriesNoData =
    "a poller's own stream carries no snapshots or title databases: each polled host has a "
    "stream of its own";

// Raises `peak` to `value` if it is below, whatever other threads do meanwhile.
void KeepPeak(std::atomic<uint64_t>& peak, uint64_t value) {
  uint64_t seen = peak.load();
  while (value > seen && !peak.compare_exchange_weak(seen, value)) {
  }
}

std::optional<Sha256Digest> DigestOf(const std::string& bytes) {
  if (bytes.size() != Sha256Digest{}.size()) return std::nullopt;
  Sha256Digest digest;
  std::copy(bytes.begin(), bytes.end(), digest.begin());
  return digest;
}

}  // namespace

std::optional<query::HostLabels> IngestSession::AgentLabels(const v1::Hello& hello) {
  if (hello.labels_unknown()) return std::nullopt;
  // A label the agent should have refused (another version's rule, a hand-made client) is left
  // out and logged: the host's data and its other labels still count.
  query::HostLabels labels;
  for (const auto& [key, value] : hello.labels()) {
    Status valid = query::CheckHostLabel(key, value);
    if (valid.ok() && labels.size() >= query::kMaxHostLabels) {
      valid = Status::InvalidArgument("a host has at most " +
                                      std::to_string(query::kMaxHostLabels) + " labels");
    }
    if (!valid.ok()) {
      service_.log().WarnOncePerBurst("bad-label", hello.host_name(),
                                      {{"host", hello.host_name()},
                                       {"peer", peer_},
                                       {"message", valid.message() + "; left out"}});
      continue;
    }
    labels.emplace(key, value);
  }
  return labels;
}

IngestSession::IngestSession(IngestService& service, grpc::CallbackServerContext* context)
    : service_(service), peer_(context->peer()), restorer_(service.limits().max_snapshot_bytes) {
  service_.counters().streams++;
  Result<Principal> principal =
      AuthenticateCall(service_.tokens(), service_.enrolled_clients(), *context);
  service_.Track(this, principal.ok() ? principal->certificate_serial : std::string());
  std::unique_lock lock(mutex_);
  if (!principal.ok()) {
    service_.log().WarnOncePerBurst("unauthenticated", peer_,
                                    {{"peer", peer_}, {"message", principal.error()}});
    reads_over_ = true;
    finish_with_ = ToGrpcStatus(principal.status());
  } else {
    principal_ = std::move(principal).value();
    read_wanted_ = true;
  }
  Advance(lock);
}

void IngestSession::OnReadDone(bool ok) {
  {
    std::unique_lock lock(mutex_);
    if (!ok || finish_with_) {
      // The agent closed its side, or the stream is ending and what it sent is not wanted.
      reads_over_ = true;
      Advance(lock);
      return;
    }
  }
  bool go_on = true;
  switch (incoming_.body_case()) {
    case v1::AgentMessage::kHello:
      go_on = HandleHello(incoming_.hello());
      break;
    case v1::AgentMessage::kTitles:
      go_on = HandleTitles(incoming_.titles());
      break;
    case v1::AgentMessage::kSnapshot:
      go_on = HandleSnapshotWithinRate();
      break;
    case v1::AgentMessage::kHealth:
      HandleHealth(incoming_.health());
      break;
    case v1::AgentMessage::kPlanStatus:
      HandlePlanStatus(incoming_.plan_status());
      break;
    case v1::AgentMessage::kRenewal:
      go_on = HandleRenewal(incoming_.renewal());
      break;
    case v1::AgentMessage::kProviders:
      go_on = HandleProviders(incoming_.providers());
      break;
    case v1::AgentMessage::kLosses:
      HandleLosses(incoming_.losses());
      break;
    case v1::AgentMessage::kTimings:
      go_on = HandleTimings(incoming_.timings());
      break;
    case v1::AgentMessage::BODY_NOT_SET:
      // A kind of message this server does not know (from a newer agent) arrives with its
      // fields unknown: skipped, so that agents can be upgraded before their server.
      if (incoming_.ByteSizeLong() != 0) break;
      EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "an empty AgentMessage"));
      go_on = false;
      break;
  }
  if (!go_on) return;
  std::unique_lock lock(mutex_);
  read_wanted_ = true;
  Advance(lock);
}

bool IngestSession::HandleHello(const v1::Hello& hello) {
  if (hello_received_) {
    EndStream(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "a second Hello"));
    return false;
  }
  Status valid = CheckHostName(hello.host_name());
  if (valid.ok() && hello.instance_id().empty()) {
    valid = Status::InvalidArgument("Hello needs an instance_id");
  }
  if (valid.ok()) valid = CheckIdentifier("instance_id", hello.instance_id());
  if (!valid.ok()) {
    service_.log().WarnOncePerBurst("bad_hello", peer_,
                                    {{"peer", peer_}, {"message", valid.message()}});
    EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, valid.message()));
    return false;
  }
  poller_stream_ = hello.source_kind() == v1::SOURCE_KIND_POLLER;
  // A host the principal may not write as may still be one a poller it speaks for was given by
  // a policy (docs/policies.md): the grant lasts as long as the policy says so.
  std::string granted_by;
  if (!principal_->MayWriteAs(hello.host_name())) {
    if (hello.source_kind() == v1::SOURCE_KIND_AGENTLESS && CheckHostName(hello.poller()).ok() &&
        principal_->MayActAsPoller(hello.poller()) &&
        service_.PollerMayPoll(hello.poller(), hello.host_name())) {
      granted_by = hello.poller();
    } else {
      std::string message =
          (principal_->certificate_serial.empty() ? "token \"" + principal_->name + "\""
                                                  : principal_->name) +
          " may not send snapshots as host \"" + hello.host_name() + "\"";
      if (!hello.poller().empty()) {
        message += ", and no policy gives it to poller \"" + EscapeForDisplay(hello.poller()) +
                   "\" to poll";
      }
      service_.log().WarnOncePerBurst(
          "permission_denied", hello.host_name(),
          {{"peer", peer_}, {"token", principal_->name}, {"host", hello.host_name()}});
      EndStream(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, message));
      return false;
    }
  }
  hello_received_ = true;
  host_ = hello.host_name();
  instance_id_ = hello.instance_id();
  Store& store = service_.store();
  HostInfo info{.name = host_,
                .os = TruncateUtf8(hello.os(), kMaxDescriptionBytes),
                .os_version = TruncateUtf8(hello.os_version(), kMaxDescriptionBytes),
                .source_kind = SourceKindName(hello.source_kind()),
                .agent_version = TruncateUtf8(hello.agent_version(), kMaxDescriptionBytes),
                .instance_id = instance_id_,
                .labels = AgentLabels(hello)};
  v1::ServerMessage reply;
  v1::Welcome* welcome = reply.mutable_welcome();
  for (const v1::TitleDigest& titles : hello.titles()) {
    std::optional<Sha256Digest> digest = DigestOf(titles.sha256());
    if (!digest) continue;
    Result<bool> held = store.catalog().HasTitleDatabase(*digest);
    if (held.ok() && *held) {
      known_titles_.insert(*digest);
    } else {
      welcome->add_needed_titles(titles.sha256());
    }
  }
  Result<std::optional<uint64_t>> durable = store.LastSequence(host_, instance_id_);
  welcome->set_durable_sequence(durable.ok() && durable->has_value() ? **durable : 0);
  welcome->set_max_message_bytes(static_cast<uint32_t>(service_.limits().max_snapshot_bytes));
  welcome->set_takes_collection_reports(true);
  CollectionPlan plan = service_.PlanFor(host_);
  PlanToProto(plan, welcome->mutable_plan());
  if (info.labels) {
    for (const std::string& overridden : LabelsUnder(plan, *info.labels).overridden) {
      service_.log().Warn("label-overridden", {{"host", host_}, {"message", overridden}});
    }
  }
  {
    std::lock_guard lock(mutex_);
    plan_sent_ = plan.revision;
  }
  std::optional<EnrollmentService::Renewal> renewal;
  if (!principal_->certificate_serial.empty() && service_.renewals() != nullptr) {
    Result<EnrollmentService::Renewal> due =
        service_.renewals()->RenewalDue(principal_->certificate_serial);
    if (due.ok()) renewal = *due;
  }
  // The Welcome goes once the host's row is durable. Meanwhile nothing more is read, and the
  // write counts as in flight so that the stream does not finish under it; gRPC's thread is
  // free for other streams (a thousand agents saying Hello at once after a restart).
  auto welcome_once_stored = [this, reply = std::move(reply), granted_by, renewal,
                              agent_version = info.agent_version](Status upserted) mutable {
    if (upserted.ok()) {
      service_.log().Info(
          "hello", {{"host", host_},
                    {"peer", peer_},
                    {"instance", instance_id_},
                    {"agent_version", agent_version},
                    {"durable_sequence", std::to_string(reply.welcome().durable_sequence())}});
      Send(std::move(reply));
      // From now on the server may reach the stream between its messages: a changed plan, a
      // renewal due (asked at once when it is due already).
      service_.TrackHost(this, host_, granted_by, renewal);
    } else {
      EndStream(grpc::Status(grpc::StatusCode::UNAVAILABLE, "store: " + upserted.message()));
    }
    std::unique_lock lock(mutex_);
    --in_flight_;
    if (upserted.ok()) read_wanted_ = true;
    Advance(lock);
  };
  {
    std::lock_guard lock(mutex_);
    ++in_flight_;
  }
  // A poller's stream names the machine it runs on, which may have an agent of its own: its
  // row is made when there is none, never overwritten.
  Result<std::optional<HostRecord>> known = poller_stream_
                                                ? store.catalog().FindHost(host_)
                                                : Result<std::optional<HostRecord>>(std::nullopt);
  if (!known.ok()) {
    welcome_once_stored(known.status());
  } else if (known->has_value()) {
    welcome_once_stored(Status());
  } else {
    store.catalog().UpsertHostAsync(std::move(info), UnixNanosNow(),
                                    std::move(welcome_once_stored));
  }
  return false;
}

bool IngestSession::HandleTitles(const v1::TitleDatabase& titles) {
  if (!hello_received_) {
    EndStream(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "titles before Hello"));
    return false;
  }
  if (poller_stream_) {
    EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, kPollerStreamCarriesNoData));
    return false;
  }
  Sha256Digest digest =
      TitleDigest(titles.language(), BytesOf(titles.counters()), BytesOf(titles.helps()));
  if (DigestOf(titles.sha256()) != digest) {
    EndStream(grpc::Status(
        grpc::StatusCode::DATA_LOSS,
        "title database " + titles.language() + ": its sha256 does not match its content"));
    return false;
  }
  Result<Sha256Digest> stored = service_.store().catalog().PutTitleDatabase(
      titles.language(), BytesOf(titles.counters()), BytesOf(titles.helps()));
  if (!stored.ok()) {
    EndStream(grpc::Status(grpc::StatusCode::UNAVAILABLE, "store: " + stored.error()));
    return false;
  }
  known_titles_.insert(digest);
  return true;
}

std::chrono::steady_clock::duration IngestSession::TakeRateToken() {
  double rate = service_.limits().max_snapshots_per_second;
  double burst = std::max(10.0, rate * 5);
  auto now = std::chrono::steady_clock::now();
  if (rate_updated_ == std::chrono::steady_clock::time_point{}) {
    rate_tokens_ = burst;
  } else {
    rate_tokens_ = std::min(
        burst, rate_tokens_ + rate * std::chrono::duration<double>(now - rate_updated_).count());
  }
  rate_updated_ = now;
  if (rate_tokens_ >= 1) {
    rate_tokens_ -= 1;
    return {};
  }
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>((1 - rate_tokens_) / rate));
}

bool IngestSession::HandleSnapshotWithinRate() {
  std::chrono::steady_clock::duration wait = TakeRateToken();
  if (wait == std::chrono::steady_clock::duration::zero()) {
    return HandleSnapshot(*incoming_.mutable_snapshot());
  }
  // Over the rate: this snapshot waits, and no more is read meanwhile, so the agent's sends back
  // up in gRPC's flow control. Counted as in flight, so the stream cannot finish under the alarm.
  service_.counters().snapshots_delayed++;
  {
    std::lock_guard lock(mutex_);
    ++in_flight_;
  }
  rate_alarm_.Set(std::chrono::system_clock::now() + wait, [this](bool fired) {
    bool go_on = true;
    bool ending;
    {
      std::lock_guard lock(mutex_);
      ending = finish_with_.has_value();
    }
    if (fired && !ending) go_on = HandleSnapshotWithinRate();
    std::unique_lock lock(mutex_);
    --in_flight_;
    if (go_on) read_wanted_ = true;
    Advance(lock);
  });
  return false;
}

Status IngestSession::ApplyTitles(const v1::Snapshot& snapshot,
                                  std::vector<std::pair<std::string, Sha256Digest>>& changed) {
  for (const v1::TitleDigest& titles : snapshot.titles()) {
    std::optional<Sha256Digest> digest = DigestOf(titles.sha256());
    if (!digest) return Status::InvalidArgument("a title digest is not 32 bytes");
    if (!known_titles_.contains(*digest)) {
      Result<bool> held = service_.store().catalog().HasTitleDatabase(*digest);
      if (!held.ok() || !*held) {
        return Status(StatusCode::kFailedPrecondition,
                      "title database " + ToHex(*digest) + " (" + titles.language() +
                          ") is unknown to the server: send it before the snapshots using it");
      }
      known_titles_.insert(*digest);
    }
    auto in_force = titles_in_force_.find(titles.language());
    if (in_force != titles_in_force_.end() && in_force->second == *digest) continue;
    changed.emplace_back(titles.language(), *digest);
    titles_in_force_[titles.language()] = *digest;
  }
  return Status();
}

bool IngestSession::HandleSnapshot(v1::Snapshot& snapshot) {
  if (!hello_received_) {
    EndStream(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "a snapshot before Hello"));
    return false;
  }
  if (poller_stream_) {
    EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, kPollerStreamCarriesNoData));
    return false;
  }
  service_.counters().wire_bytes += snapshot.payload().size();
  std::string instance_id = snapshot.instance_id().empty() ? instance_id_ : snapshot.instance_id();
  uint64_t sequence = snapshot.sequence();
  if (!snapshot.host_name().empty() && HostKey(snapshot.host_name()) != HostKey(host_)) {
    // Identity travels with the data: no stream relabels a snapshot taken as another host.
    Refuse(instance_id, sequence,
           Status::InvalidArgument("a snapshot taken as host \"" +
                                   EscapeForDisplay(TruncateUtf8(snapshot.host_name(), 256)) +
                                   "\" on the stream of host \"" + host_ + "\""));
    return true;
  }
  if (Status valid = CheckIdentifier("instance_id", instance_id); !valid.ok()) {
    Refuse(instance_id, sequence, valid);
    return true;
  }
  if (Status valid = CheckIdentifier("query", snapshot.query()); !valid.ok()) {
    Refuse(instance_id, sequence, valid);
    return true;
  }
  std::vector<uint8_t> previous;  // the stream's snapshot of this query before, if any
  Result<std::vector<uint8_t>> raw = restorer_.Restore(snapshot, &previous);
  if (!raw.ok()) {
    if (raw.status().code() == StatusCode::kFailedPrecondition) {
      // Its base was refused or asked for again: not the snapshot's fault.
      AskResend(instance_id, sequence, raw.status());
    } else {
      Refuse(instance_id, sequence, raw.status());
    }
    return true;
  }
  Result<SnapshotReader> reader = SnapshotReader::Open(*raw);
  if (!reader.ok()) {
    Refuse(instance_id, sequence, Status::InvalidArgument("malformed snapshot: " + reader.error()));
    return true;
  }
  Result<int64_t> sample_ns = UnixNanosFromSystemTime(reader->system_time());
  if (!sample_ns.ok()) {
    Refuse(instance_id, sequence, sample_ns.status().Prefixed("malformed snapshot: SystemTime: "));
    return true;
  }
  // The pair this snapshot ends is at hand only here, and checking it on the session's thread
  // spreads the work over the streams (a definition or so a counter: tens of microseconds).
  std::optional<std::vector<InvalidCounter>> invalid_counters;
  std::optional<int64_t> previous_ns;
  if (!previous.empty()) {
    if (Result<SnapshotReader> older = SnapshotReader::Open(previous); older.ok()) {
      invalid_counters = FindInvalidCounters(*older, *reader);
      if (Result<int64_t> older_ns = UnixNanosFromSystemTime(older->system_time()); older_ns.ok()) {
        previous_ns = *older_ns;
      }
    }
  }
  std::vector<std::pair<std::string, Sha256Digest>> titles_changed;
  if (Status status = ApplyTitles(snapshot, titles_changed); !status.ok()) {
    Refuse(instance_id, sequence, status);
    return true;
  }
  if (query::LiveSeries* live = service_.live_series(); live != nullptr && live->following()) {
    NoteLive(*live, snapshot.query(), *sample_ns, *raw, previous_ns ? &previous : nullptr,
             previous_ns.value_or(0));
  }
  // Only a snapshot the session keeps moves the stream's instances on: one refused here would
  // have closed a gap that is then stored nowhere.
  std::vector<InstanceGap> instance_gaps =
      instance_gaps_[snapshot.query()].Note(*reader, *sample_ns);
  {
    std::lock_guard lock(mutex_);
    ++in_flight_;
  }
  const uint64_t raw_bytes = raw->size();
  IngestCounters& counters = service_.counters();
  KeepPeak(counters.bytes_in_flight_peak, counters.bytes_in_flight += raw_bytes);
  SnapshotToAppend append{.host = host_,
                          .query = snapshot.query(),
                          .instance_id = instance_id,
                          .sequence = sequence,
                          .receive_time_ns = UnixNanosNow(),
                          .raw = std::move(raw).value(),
                          .sha256 = DigestOf(snapshot.sha256()),  // the restorer checked it
                          .titles_in_force = std::move(titles_changed),
                          .invalid_counters = std::move(invalid_counters),
                          .instance_gaps = std::move(instance_gaps)};
  service_.store().AppendAsync(
      std::move(append), [this, instance_id, sequence, raw_bytes](Result<AppendResult> result) {
        OnAppended(instance_id, sequence, raw_bytes, std::move(result));
      });
  return true;
}

void IngestSession::NoteLive(query::LiveSeries& live, const std::string& query, int64_t time_ns,
                             const std::vector<uint8_t>& raw, const std::vector<uint8_t>* previous,
                             int64_t previous_ns) {
  auto titles = [&](const char* language) -> std::shared_ptr<const TitleDatabase> {
    auto in_force = titles_in_force_.find(language);
    if (in_force == titles_in_force_.end() || service_.titles() == nullptr) return nullptr;
    return service_.titles()->Titles(in_force->second);
  };
  // Lent, not copied: Note reads the bytes before it returns and keeps none of them.
  auto lent = [](const std::vector<uint8_t>& bytes) {
    return std::shared_ptr<const std::vector<uint8_t>>(std::shared_ptr<const void>(), &bytes);
  };
  query::HostSample current{time_ns, lent(raw), titles("009"), titles(kDisplayLanguage), query};
  if (previous == nullptr) {
    live.Note(host_, nullptr, current);
    return;
  }
  query::HostSample before = current;
  before.time_ns = previous_ns;
  before.bytes = lent(*previous);
  live.Note(host_, &before, current);
}

void IngestSession::HandleHealth(const v1::HealthReport& health) {
  if (!hello_received_) return;
  int64_t time =
      health.last_error_unix_nanos() != 0 ? health.last_error_unix_nanos() : UnixNanosNow();
  if (Status status = service_.store().catalog().RecordHostError(
          host_, TruncateUtf8(health.last_error(), kMaxHealthMessageBytes), time);
      !status.ok()) {
    service_.log().Error("store_error", {{"host", host_}, {"message", status.message()}});
  }
}

bool IngestSession::HandleProviders(const v1::ProviderReport& report) {
  if (!hello_received_) return true;
  // A host has a few hundred services, their names and DLL paths are short: a report beyond
  // these is not one to keep.
  constexpr int kMostProviders = 4096;
  constexpr size_t kMostNameBytes = 1024;
  constexpr int kMostObjects = 1024;
  if (report.disabled_size() > kMostProviders) {
    EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                           "a ProviderReport of " + std::to_string(report.disabled_size()) +
                               " providers (at most " + std::to_string(kMostProviders) + ")"));
    return false;
  }
  std::vector<DisabledProvider> disabled;
  for (const v1::DisabledProvider& provider : report.disabled()) {
    if (provider.service().empty() || provider.service().size() > kMostNameBytes ||
        provider.library().size() > kMostNameBytes ||
        provider.object_indexes_size() > kMostObjects) {
      EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                             "a disabled provider without a service name, or with a name or "
                             "library over " +
                                 std::to_string(kMostNameBytes) + " bytes or over " +
                                 std::to_string(kMostObjects) + " objects"));
      return false;
    }
    disabled.push_back(
        {.service = provider.service(),  // within the bounds just checked
         .disable_value = provider.disable_value(),
         .library = provider.library(),
         .object_indexes = {provider.object_indexes().begin(), provider.object_indexes().end()}});
  }
  if (Status status =
          service_.store().catalog().RecordDisabledProviders(host_, disabled, UnixNanosNow());
      !status.ok()) {
    service_.log().Error("store_error", {{"host", host_}, {"message", status.message()}});
  }
  return true;
}

void IngestSession::HandleLosses(const v1::CollectionLosses& losses) {
  if (!hello_received_) return;
  // SQLite keeps signed 64-bit integers: a count beyond them is not one an agent made.
  auto count = [](uint64_t value) { return std::min<uint64_t>(value, INT64_MAX); };
  query::CollectionLosses counts{.agent_started_ns = losses.agent_started_unix_nanos(),
                                 .skipped_ticks = count(losses.skipped_ticks()),
                                 .failed_reads = count(losses.failed_reads()),
                                 .dropped = count(losses.dropped()),
                                 .refused = count(losses.refused()),
                                 .unreadable = count(losses.unreadable()),
                                 .unspoolable = count(losses.unspoolable())};
  if (Status status =
          service_.store().catalog().RecordCollectionLosses(host_, counts, UnixNanosNow());
      !status.ok()) {
    service_.log().Error("store_error", {{"host", host_}, {"message", status.message()}});
  }
}

bool IngestSession::HandleTimings(const v1::ObjectTimings& timings) {
  if (!hello_received_) return true;
  // A host has a few hundred objects; an error is a sentence.
  constexpr int kMostObjects = 4096;
  if (timings.objects_size() > kMostObjects) {
    EndStream(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                           "ObjectTimings of " + std::to_string(timings.objects_size()) +
                               " objects; at most " + std::to_string(kMostObjects)));
    return false;
  }
  query::ObjectTimings kept{.measured_ns = timings.measured_unix_nanos(),
                            .interval_ns = std::max<int64_t>(timings.interval_nanos(), 0),
                            .objects = {}};
  for (const v1::ObjectTiming& object : timings.objects()) {
    kept.objects.push_back({.object_index = object.object_index(),
                            .nanos = std::max<int64_t>(object.nanos(), 0),
                            .bytes = std::min<uint64_t>(object.bytes(), INT64_MAX),
                            .error = TruncateUtf8(object.error(), kMaxHealthMessageBytes)});
  }
  if (Status status = service_.store().catalog().RecordObjectTimings(host_, kept, UnixNanosNow());
      !status.ok()) {
    service_.log().Error("store_error", {{"host", host_}, {"message", status.message()}});
  }
  return true;
}

void IngestSession::HandlePlanStatus(const v1::PlanStatus& status) {
  if (!hello_received_) return;
  std::string report;
  for (const std::string& conflict : status.conflicts()) {
    report += (report.empty() ? "" : "; ") + conflict;
  }
  if (!status.error().empty()) report = "not applied: " + status.error();
  std::string revision = TruncateUtf8(status.revision(), kMaxIdentifierBytes);
  report = TruncateUtf8(report, kMaxHealthMessageBytes);
  if (Status recorded =
          service_.store().catalog().RecordHostPlan(host_, revision, report, UnixNanosNow());
      !recorded.ok()) {
    service_.log().Error("store_error", {{"host", host_}, {"message", recorded.message()}});
  }
  std::vector<std::pair<std::string, std::string>> fields = {
      {"host", host_}, {"revision", revision.empty() ? "none" : revision}};
  if (!report.empty()) fields.emplace_back("report", report);
  if (report.empty()) {
    service_.log().Info("plan", fields);
  } else {
    service_.log().Warn("plan", fields);
  }
}

bool IngestSession::HandleRenewal(const v1::CertificateRenewal& renewal) {
  bool asked = false;
  {
    std::lock_guard lock(mutex_);
    asked = std::exchange(renewal_asked_, false);
  }
  // The server asks only streams of enrolled certificates, once a renewal is due, and once at a
  // time: anything else is a client signing certificates at its own pace.
  if (!asked || principal_->certificate_serial.empty() || service_.renewals() == nullptr) {
    EndStream(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                           "a certificate renewal the server did not ask for (it asks on the "
                           "stream once the certificate is due, docs/enrollment.md)"));
    return false;
  }
  v1::ServerMessage reply;
  Result<v1::RenewedCertificate> renewed =
      service_.renewals()->Renew(principal_->certificate_serial, renewal.request_pem());
  if (renewed.ok()) {
    *reply.mutable_renewed_certificate() = std::move(renewed).value();
  } else {
    service_.log().WarnOncePerBurst("renewal-refused", host_,
                                    {{"host", host_}, {"message", renewed.error()}});
    reply.mutable_renewed_certificate()->set_error(renewed.error());
    service_.RenewalFailed(principal_->certificate_serial);
  }
  Send(std::move(reply));
  return true;
}

bool IngestSession::OfferPlan(const CollectionPlan& plan) {
  v1::ServerMessage message;
  PlanToProto(plan, message.mutable_plan());
  std::unique_lock lock(mutex_);
  if (finished_ || finish_with_ || plan.revision == plan_sent_) return false;
  plan_sent_ = plan.revision;
  outgoing_.push_back(std::move(message));
  Advance(lock);
  return true;
}

void IngestSession::AskRenewal(std::chrono::system_clock::time_point expires) {
  v1::ServerMessage message;
  message.mutable_renew_certificate()->set_expires_unix_nanos(
      std::chrono::duration_cast<std::chrono::nanoseconds>(expires.time_since_epoch()).count());
  std::unique_lock lock(mutex_);
  if (finished_ || finish_with_ || renewal_asked_) return;
  renewal_asked_ = true;
  outgoing_.push_back(std::move(message));
  Advance(lock);
}

void IngestSession::Refuse(const std::string& instance_id, uint64_t sequence,
                           const Status& status) {
  service_.counters().snapshots_refused++;
  bool conflict = status.code() == StatusCode::kAlreadyExists;
  if (conflict) service_.counters().snapshots_conflicting++;
  service_.log().WarnOncePerBurst(conflict ? "conflict" : "refused", host_,
                                  {{"host", host_},
                                   {"instance", instance_id},
                                   {"sequence", std::to_string(sequence)},
                                   {"code", std::string(StatusCodeName(status.code()))},
                                   {"message", status.message()}});
  if (!host_.empty()) {
    (void)service_.store().catalog().RecordRefusal(host_, status.message(), UnixNanosNow());
  }
  v1::ServerMessage reply;
  v1::Refusal* refusal = reply.mutable_refusal();
  refusal->set_instance_id(instance_id);
  refusal->set_sequence(sequence);
  refusal->set_code(std::string(StatusCodeName(status.code())));
  refusal->set_message(status.message());
  Send(std::move(reply));
}

void IngestSession::AskResend(const std::string& instance_id, uint64_t sequence,
                              const Status& why) {
  service_.counters().snapshots_resent++;
  v1::ServerMessage reply;
  v1::Resend* resend = reply.mutable_resend();
  resend->set_instance_id(instance_id);
  resend->set_sequence(sequence);
  resend->set_reason(why.message());
  Send(std::move(reply));
}

void IngestSession::OnAppended(const std::string& instance_id, uint64_t sequence,
                               uint64_t raw_bytes, Result<AppendResult> result) {
  service_.counters().bytes_in_flight -= raw_bytes;
  if (result.ok()) {
    if (result->duplicate) {
      service_.counters().snapshots_duplicate++;
    } else {
      service_.counters().snapshots_stored++;
    }
    v1::ServerMessage reply;
    v1::Ack* ack = reply.mutable_ack();
    ack->set_instance_id(instance_id);
    ack->set_sequence(sequence);
    ack->set_duplicate(result->duplicate);
    Send(std::move(reply));
  } else if (result.status().code() == StatusCode::kInvalidArgument ||
             result.status().code() == StatusCode::kFailedPrecondition ||
             result.status().code() == StatusCode::kAlreadyExists) {
    // The live series took it before the store refused it: their newest is not the store's.
    if (query::LiveSeries* live = service_.live_series(); live != nullptr) live->Forget(host_);
    Refuse(instance_id, sequence, result.status());
  } else {
    // Not durable, and not the snapshot's fault: the agent keeps it and sends it again later.
    service_.log().Error("store_error", {{"host", host_}, {"message", result.error()}});
    EndStream(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                           "the server cannot store snapshots now: " + result.error()));
  }
  std::unique_lock lock(mutex_);
  --in_flight_;
  Advance(lock);
}

void IngestSession::Send(v1::ServerMessage message) {
  std::unique_lock lock(mutex_);
  if (finished_ || finish_with_) return;
  outgoing_.push_back(std::move(message));
  Advance(lock);
}

void IngestSession::OnWriteDone(bool ok) {
  std::unique_lock lock(mutex_);
  writing_ = false;
  outgoing_.pop_front();
  if (!ok) {
    // The agent is gone: nothing more reaches it.
    outgoing_.clear();
    reads_over_ = true;
    if (!finish_with_) finish_with_ = grpc::Status(grpc::StatusCode::CANCELLED, "agent gone");
  }
  Advance(lock);
}

void IngestSession::EndStream(grpc::Status status) {
  std::unique_lock lock(mutex_);
  reads_over_ = true;
  read_wanted_ = false;
  if (!finish_with_) finish_with_ = std::move(status);
  Advance(lock);
}

void IngestSession::Advance(std::unique_lock<std::mutex>& lock) {
  if (finished_) return;
  if (!writing_ && !outgoing_.empty() && !finish_with_) {
    writing_ = true;
    StartWrite(&outgoing_.front());
  }
  if (read_wanted_ && !reads_over_ && MayRead()) {
    read_wanted_ = false;
    held_for_memory_ = false;
    held_for_replies_ = false;
    StartRead(&incoming_);
  }
  // A read may still be outstanding when the stream ends early: Finish completes it (not ok).
  bool drained = !writing_ && (outgoing_.empty() || finish_with_);
  if ((reads_over_ || finish_with_) && in_flight_ == 0 && drained) {
    finished_ = true;
    grpc::Status status = finish_with_.value_or(grpc::Status::OK);
    lock.unlock();
    Finish(status);
    lock.lock();
  }
}

bool IngestSession::MayRead() {
  // Replies are part of flow control: a client that sends and never reads fills this queue to
  // the bound, then the stream is read no further, and HTTP/2's windows stop the client.
  if (outgoing_.size() >= kMaxQueuedReplies) {
    if (!held_for_replies_) {
      held_for_replies_ = true;
      service_.counters().reads_held_for_replies++;
    }
    return false;
  }
  if (in_flight_ >= service_.limits().max_in_flight) return false;
  if (in_flight_ == 0) return true;
  if (service_.counters().bytes_in_flight.load() < service_.limits().max_bytes_in_flight) {
    return true;
  }
  // Read again when one of this stream's appends completes (OnAppended advances).
  if (!held_for_memory_) {
    held_for_memory_ = true;
    service_.counters().reads_held_for_memory++;
  }
  return false;
}

void IngestSession::Revoke(const grpc::Status& why) {
  // Finishes now unless appends are in flight (then once they complete): an agent that sends
  // once an hour hears of it at once, not at its next snapshot.
  EndStream(why);
}

void IngestSession::OnDone() {
  service_.Untrack(this);
  delete this;
}

}  // namespace perfhive
