#include "agent/shipper.h"

#include <algorithm>
#include <random>

#include "agent/server_reports.h"
#include "agent/snapshot_frame.h"
#include "perfdata/time_text.h"

namespace perfhive {
namespace {

using Stream = grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>;

std::string Bytes(const Sha256Digest& digest) {
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

std::string Describe(const grpc::Status& status) {
  std::string text = std::to_string(static_cast<int>(status.error_code()));
  if (!status.error_message().empty()) text = status.error_message() + " (code " + text + ")";
  return text;
}

void AddTitleDigest(const TitleRef& title, v1::TitleDigest* out) {
  out->set_language(title.language);
  out->set_sha256(Bytes(title.sha256));
}

}  // namespace

Shipper::Shipper(ShipperOptions options, Outbox& outbox, Logger& log)
    : options_(std::move(options)), outbox_(outbox), log_(log) {}

Shipper::~Shipper() { Stop(); }

void Shipper::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Shipper::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    interrupted_ = true;
    if (context_ != nullptr) context_->TryCancel();
    stop_requested_.notify_all();
  }
  outbox_.Wake();
  if (thread_.joinable()) thread_.join();
}

ShipperStats Shipper::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::chrono::milliseconds Shipper::NextDelay(std::chrono::milliseconds backoff) {
  // Half fixed, half random: agents that lost the same server do not all come back at once.
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::uniform_int_distribution<int64_t> jitter(0, backoff.count() / 2);
  return backoff / 2 + std::chrono::milliseconds(jitter(random));
}

void Shipper::Run() {
  grpc::ChannelArguments arguments;
  // Notice a silently dead connection (a cut network) within a minute.
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  arguments.SetMaxSendMessageSize(-1);
  // Reconnection is this loop's business, with its own backoff.
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 1000);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::Ingest::Stub> stub;
  uint64_t channel_version = 0;
  std::chrono::milliseconds backoff = options_.initial_backoff;
  while (!stopping_) {
    // A new channel for new credentials (a renewed certificate): a channel keeps its own.
    auto [credentials, version] = options_.renewable != nullptr
                                      ? options_.renewable->Get()
                                      : std::pair{options_.credentials, uint64_t{0}};
    if (stub == nullptr || version != channel_version) {
      channel = grpc::CreateCustomChannel(options_.server, credentials, arguments);
      stub = v1::Ingest::NewStub(channel);
      channel_version = version;
    }
    bool welcomed = RunStream(*stub);
    outbox_.SetConnected(false);
    if (stopping_) break;
    if (welcomed) backoff = options_.initial_backoff;
    std::chrono::milliseconds delay = NextDelay(backoff);
    log_.Info("reconnecting to " + options_.server + " in about " +
              std::to_string((backoff.count() + 999) / 1000) + " s");
    std::unique_lock lock(mutex_);
    stop_requested_.wait_for(lock, delay, [this] { return stopping_.load(); });
    if (!welcomed) backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

void Shipper::ReportPlanStatus(const v1::PlanStatus& status) {
  v1::AgentMessage message;
  *message.mutable_plan_status() = status;
  SendOrKeep(std::move(message), unsent_plan_status_);
}

void Shipper::SendOrKeep(v1::AgentMessage message, std::optional<v1::AgentMessage>& unsent) {
  // write_mutex_ before mutex_, as the send loop takes them; the stream cannot end while
  // write_mutex_ is held (RunStream takes it to let go of live_stream_).
  std::lock_guard write(write_mutex_);
  std::unique_lock lock(mutex_);
  if (live_stream_ == nullptr) {
    unsent = std::move(message);
    return;
  }
  auto* stream = live_stream_;
  lock.unlock();
  stream->Write(message);
}

void Shipper::Renew(Stream& stream) {
  Result<std::string> request = options_.delegate->MakeRenewalRequest();
  if (!request.ok()) {
    log_.Error("cannot renew the certificate: " + request.error());
    return;
  }
  log_.Info("renewing the certificate of " + options_.owner.host.name);
  v1::AgentMessage message;
  message.mutable_renewal()->set_request_pem(*request);
  std::lock_guard write(write_mutex_);
  stream.Write(message);
}

void Shipper::AdoptRenewed(const v1::RenewedCertificate& renewed) {
  if (!renewed.error().empty()) {
    log_.Error("the server did not renew the certificate: " + renewed.error());
    return;
  }
  Result<RenewedCredentials> credentials =
      options_.delegate->AdoptCertificate(renewed.certificate_pem());
  if (!credentials.ok()) {
    log_.Error("cannot keep the renewed certificate: " + credentials.error());
    return;
  }
  if (options_.renewable == nullptr) {
    log_.Error("renewed the certificate, but this stream's credentials cannot be replaced");
    return;
  }
  log_.Info("renewed the certificate; reconnecting with it");
  options_.renewable->Replace(credentials->credentials, credentials->expires);
  // This stream's next one, at once, uses it (what it left unanswered is sent again there); the
  // other streams of the credential (a poller's other hosts) from their next connection.
  std::lock_guard lock(mutex_);
  interrupted_ = true;
  if (context_ != nullptr) context_->TryCancel();
}

bool Shipper::RunStream(v1::Ingest::Stub& stub) {
  grpc::ClientContext context;
  if (!options_.token.empty()) context.AddMetadata("authorization", "Bearer " + options_.token);
  v1::AgentMessage hello_message;
  // The titles the Hello names; the Welcome speaks of these alone, even if the sampler has
  // adopted others while it was on its way.
  std::vector<TitleRef> announced = outbox_.titles_in_force();
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return false;
    context_ = &context;
    interrupted_ = false;
    stream_titles_.clear();
    bases_.clear();
    asked_again_.clear();
    v1::Hello* hello = hello_message.mutable_hello();
    hello->set_protocol_version(1);
    hello->set_host_name(options_.owner.host.name);
    hello->set_os(options_.owner.host.os);
    hello->set_os_version(options_.owner.host.os_version);
    hello->set_source_kind(options_.poller_stream     ? v1::SOURCE_KIND_POLLER
                           : options_.owner.agentless ? v1::SOURCE_KIND_AGENTLESS
                                                      : v1::SOURCE_KIND_AGENT);
    hello->set_poller(options_.poller);
    if (options_.labels) {
      hello->mutable_labels()->insert(options_.labels->begin(), options_.labels->end());
    } else {
      hello->set_labels_unknown(true);
    }
    hello->set_agent_version(options_.agent_version);
    hello->set_instance_id(options_.instance_id);
    for (const TitleRef& title : announced) AddTitleDigest(title, hello->add_titles());
  }
  std::unique_ptr<Stream> stream = stub.Stream(&context);
  v1::ServerMessage answer;
  bool answered = stream->Write(hello_message) && stream->Read(&answer);
  bool welcomed = answered && answer.has_welcome();
  if (welcomed) {
    const v1::Welcome& welcome = answer.welcome();
    {
      std::lock_guard lock(mutex_);
      for (const TitleRef& title : announced) stream_titles_.insert(title.sha256);
      for (const std::string& needed : welcome.needed_titles()) {
        Sha256Digest digest{};
        if (needed.size() != digest.size()) continue;
        std::copy(needed.begin(), needed.end(), digest.begin());
        stream_titles_.erase(digest);
      }
      ++stats_.connects;
    }
    // Only answers remove snapshots, never the Welcome's durable sequence: a run resumed from a
    // VM image reuses its sequence numbers for new samples.
    log_.Info("connected to " + options_.server + " as " + options_.owner.Label() +
              "; the server holds instance " + options_.instance_id + " through sequence " +
              std::to_string(welcome.durable_sequence()));
    outbox_.SetConnected(true);
    std::thread reader([&] { ReadAnswers(*stream); });
    if (options_.delegate != nullptr) options_.delegate->OnPlan(welcome.plan());
    std::optional<v1::AgentMessage> kept;
    {
      std::lock_guard lock(mutex_);
      live_stream_ = stream.get();
      kept = std::exchange(unsent_plan_status_, std::nullopt);
    }
    server_takes_reports_ = welcome.takes_collection_reports();
    if (!server_takes_reports_) {
      log_.Info(
          "the server is older than this agent: what the agent lost, its disabled "
          "providers and slow objects are not sent to it; upgrade the server");
    }
    if (kept) {
      std::lock_guard write(write_mutex_);
      stream->Write(*kept);
    }
    while (!interrupted_) {
      Outbox::Outgoing next = outbox_.NextToSend(options_.window, interrupted_);
      if (next.empty() || !Send(next, *stream)) break;
    }
    {
      std::lock_guard write(write_mutex_);
      std::lock_guard lock(mutex_);
      live_stream_ = nullptr;
    }
    interrupted_ = true;
    context.TryCancel();
    reader.join();
  } else if (answered && !stopping_) {
    // An answer that is not Welcome: the server is not one to talk to. A stream the server
    // ended instead (a refused token) is not cancelled, so Finish gives the server's reason.
    context.TryCancel();
  }
  grpc::Status status = stream->Finish();
  {
    std::lock_guard lock(mutex_);
    context_ = nullptr;
  }
  if (!stopping_) {
    std::string why = status.ok() ? "the server ended the stream" : Describe(status);
    if (!welcomed && status.ok()) why = "the server did not answer Hello with Welcome";
    if (!welcomed) why += ExpiredCertificateNote();
    log_.Warning("stream to " + options_.server + " ended: " + why);
  }
  return welcomed;
}

// The server refuses an expired certificate in the TLS handshake, before it can say why: the
// stream then ends as "Socket closed" or the like, which this note explains.
std::string Shipper::ExpiredCertificateNote() const {
  if (options_.renewable == nullptr) return "";
  std::chrono::system_clock::time_point expires = options_.renewable->expires();
  if (expires > std::chrono::system_clock::now()) return "";
  int64_t unix_nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(expires.time_since_epoch()).count();
  return "; the certificate of " + options_.owner.host.name + " expired at " +
         FormatRfc3339(unix_nanos, 0) +
         " and the server refuses it: enroll again with a new token (perfhive-agent run --enroll "
         "TOKEN, docs/enrollment.md)";
}

void Shipper::ReadAnswers(Stream& stream) {
  v1::ServerMessage message;
  while (stream.Read(&message)) {
    if (message.has_ack()) {
      const v1::Ack& ack = message.ack();
      outbox_.Remove(ack.instance_id(), ack.sequence());
      std::lock_guard lock(mutex_);
      ++stats_.acked;
      if (ack.duplicate()) ++stats_.duplicates;
    } else if (message.has_refusal()) {
      const v1::Refusal& refusal = message.refusal();
      {
        // The refused snapshot must not be a base: the next one of its query starts afresh.
        // Forgotten before the outbox moves on, so the next snapshot cannot use it.
        std::lock_guard lock(mutex_);
        ++stats_.refused;
        std::erase_if(bases_, [&](const auto& base) {
          return base.second->instance_id == refusal.instance_id() &&
                 base.second->sequence == refusal.sequence();
        });
      }
      outbox_.Lose(refusal.instance_id(), refusal.sequence());
      log_.Error("lost a snapshot: the server refused instance " + refusal.instance_id() +
                 " sequence " + std::to_string(refusal.sequence()) +
                 " for good: " + refusal.code() + ": " + refusal.message());
    } else if (message.has_resend()) {
      const v1::Resend& resend = message.resend();
      {
        // The server holds none of this stream's bases for sure: every query starts afresh.
        std::lock_guard lock(mutex_);
        ++stats_.resent;
        bases_.clear();
        asked_again_.emplace(resend.instance_id(), resend.sequence());
      }
      outbox_.Unsend(resend.instance_id(), resend.sequence());
      log_.Info("the server asked for a snapshot again: " + resend.reason());
    } else if (options_.delegate == nullptr) {
      continue;
    } else if (message.has_plan()) {
      options_.delegate->OnPlan(message.plan());
    } else if (message.has_renew_certificate()) {
      Renew(stream);
    } else if (message.has_renewed_certificate()) {
      AdoptRenewed(message.renewed_certificate());
    }
  }
  interrupted_ = true;
  outbox_.Wake();
}

bool Shipper::Send(const Outbox::Outgoing& next, Stream& stream) {
  std::lock_guard write(write_mutex_);
  for (const v1::AgentMessage& report : next.reports) {
    // Kept by the outbox: the next server that takes it gets it.
    if (IsCollectionReport(report) && !server_takes_reports_) continue;
    if (!stream.Write(report)) return false;
  }
  if (next.snapshot == nullptr) return true;
  return SendTitlesFor(*next.snapshot, stream) && stream.Write(Frame(next.snapshot));
}

bool Shipper::SendTitlesFor(const SnapshotRecord& record, Stream& stream) {
  for (const TitleRef& title : record.titles) {
    {
      std::lock_guard lock(mutex_);
      if (stream_titles_.contains(title.sha256)) continue;
    }
    if (!SendTitles(title.sha256, stream)) return false;
  }
  return true;
}

bool Shipper::SendTitles(const Sha256Digest& digest, Stream& stream) {
  Result<TitleBytes> database = outbox_.FindTitles(digest);
  if (!database.ok()) {
    log_.Warning("title database " + ToHex(digest) + " is not at hand: " + database.error());
    return true;  // the server decides what a snapshot without it is worth
  }
  v1::AgentMessage message;
  v1::TitleDatabase* titles = message.mutable_titles();
  titles->set_language(database->language);
  titles->set_counters(database->counters.data(), database->counters.size());
  titles->set_helps(database->helps.data(), database->helps.size());
  titles->set_sha256(Bytes(digest));
  if (!stream.Write(message)) return false;
  std::lock_guard lock(mutex_);
  stream_titles_.insert(digest);
  return true;
}

v1::AgentMessage Shipper::Frame(const std::shared_ptr<const SnapshotRecord>& record) {
  std::shared_ptr<const SnapshotRecord> base;
  {
    std::lock_guard lock(mutex_);
    // One base per query, as the server keeps them: a snapshot of another instance (drained
    // from the spool) is not a base.
    std::shared_ptr<const SnapshotRecord>& slot = bases_[record->query];
    base = std::exchange(slot, record);
    if (base != nullptr && base->instance_id != record->instance_id) base = nullptr;
    if (asked_again_.erase({record->instance_id, record->sequence}) > 0) base = nullptr;
  }
  v1::AgentMessage message;
  FrameSnapshot(*record, base.get(), *message.mutable_snapshot());
  std::lock_guard lock(mutex_);
  ++stats_.sent;
  stats_.raw_bytes += record->raw.size();
  stats_.payload_bytes += message.snapshot().payload().size();
  return message;
}

}  // namespace perfhive
