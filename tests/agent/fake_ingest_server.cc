#include "tests/agent/fake_ingest_server.h"

#include "codec/snapshot_delta.h"
#include "wire/title_digest.h"

namespace perfhive::testing {
namespace {

Sha256Digest DigestOf(const std::string& bytes) {
  Sha256Digest digest{};
  if (bytes.size() == digest.size()) std::copy(bytes.begin(), bytes.end(), digest.begin());
  return digest;
}

std::span<const uint8_t> Span(const std::string& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

}  // namespace

grpc::Status FakeIngestService::Stream(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ServerMessage, v1::AgentMessage>* stream) {
  v1::AgentMessage message;
  if (!stream->Read(&message) || !message.has_hello()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "Hello first");
  }
  v1::ServerMessage welcome;
  {
    std::lock_guard lock(mutex_);
    hellos_.push_back(message.hello());
    auto auth = context->client_metadata().find("authorization");
    if (auth != context->client_metadata().end()) {
      authorizations_.emplace_back(auth->second.data(), auth->second.size());
    }
    for (const v1::TitleDigest& title : message.hello().titles()) {
      if (!titles_.contains(DigestOf(title.sha256()))) {
        welcome.mutable_welcome()->add_needed_titles(title.sha256());
      }
    }
    uint64_t durable = 0;
    const std::string& instance = message.hello().instance_id();
    while (stored_.contains({instance, durable + 1})) ++durable;
    welcome.mutable_welcome()->set_durable_sequence(durable);
    welcome.mutable_welcome()->set_takes_collection_reports(take_reports_);
    changed_.notify_all();
  }
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !hold_welcome_ || context->IsCancelled(); });
  }
  if (!stream->Write(welcome)) return grpc::Status::OK;
  std::map<std::pair<std::string, uint64_t>, std::vector<uint8_t>> bases;  // this stream's
  while (stream->Read(&message)) {
    std::unique_lock lock(mutex_);
    if (message.has_titles()) {
      const v1::TitleDatabase& titles = message.titles();
      title_messages_.push_back(titles);
      Sha256Digest digest =
          TitleDigest(titles.language(), Span(titles.counters()), Span(titles.helps()));
      if (digest == DigestOf(titles.sha256())) {
        titles_.insert(digest);
      } else {
        errors_.push_back("title database digest mismatch");
      }
      changed_.notify_all();
      continue;
    }
    if (message.has_losses() || message.has_providers() || message.has_timings()) {
      reports_.push_back(message);
      changed_.notify_all();
      continue;
    }
    if (!message.has_snapshot()) continue;
    const v1::Snapshot& snapshot = message.snapshot();
    ReceivedSnapshot received{.instance_id = snapshot.instance_id(),
                              .sequence = snapshot.sequence(),
                              .query = snapshot.query(),
                              .encoding = snapshot.encoding(),
                              .base_sequence = snapshot.base_sequence(),
                              .payload_size = snapshot.payload().size(),
                              .raw = {},
                              .titles = {}};
    for (const v1::TitleDigest& title : snapshot.titles()) {
      received.titles.push_back(DigestOf(title.sha256()));
    }
    Result<std::vector<uint8_t>> raw = Status::InvalidArgument("unknown encoding");
    bool base_missing = false;
    if (snapshot.encoding() == v1::ENCODING_ZSTD) {
      raw = DecodeDelta({}, Span(snapshot.payload()));  // a keyframe
    } else if (snapshot.encoding() == v1::ENCODING_DELTA_ZSTD) {
      auto base = bases.find({snapshot.instance_id(), snapshot.base_sequence()});
      base_missing = base == bases.end();
      if (!base_missing) raw = DecodeDelta(base->second, Span(snapshot.payload()));
    }
    v1::ServerMessage answer;
    std::pair<std::string, uint64_t> key{snapshot.instance_id(), snapshot.sequence()};
    if (base_missing || ask_again_.erase(snapshot.sequence()) > 0) {
      // As the server does for a delta whose base it does not hold: not stored, asked for again.
      answer.mutable_resend()->set_instance_id(snapshot.instance_id());
      answer.mutable_resend()->set_sequence(snapshot.sequence());
      answer.mutable_resend()->set_reason(base_missing ? "no base" : "asked again by the test");
    } else if (!raw.ok() || Sha256(*raw) != DigestOf(snapshot.sha256())) {
      errors_.push_back("sequence " + std::to_string(snapshot.sequence()) + ": " +
                        (raw.ok() ? "SHA-256 mismatch" : raw.error()));
      answer.mutable_refusal()->set_code("DATA_LOSS");
    } else if (refuse_.contains(snapshot.sequence())) {
      received.raw = *raw;
      answer.mutable_refusal()->set_code("INVALID_ARGUMENT");
      answer.mutable_refusal()->set_message("refused by the test");
    } else {
      received.raw = *raw;
      bases[key] = *raw;
      answer.mutable_ack()->set_duplicate(stored_.contains(key));
      stored_.emplace(key, std::move(raw).value());
    }
    if (answer.has_refusal()) {
      answer.mutable_refusal()->set_instance_id(snapshot.instance_id());
      answer.mutable_refusal()->set_sequence(snapshot.sequence());
    } else if (answer.has_ack()) {
      answer.mutable_ack()->set_instance_id(snapshot.instance_id());
      answer.mutable_ack()->set_sequence(snapshot.sequence());
    }
    received_.push_back(std::move(received));
    changed_.notify_all();
    if (drop_after_.erase(snapshot.sequence()) > 0) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "dropped by the test");
    }
    if (hold_acks_) continue;
    lock.unlock();
    if (!stream->Write(answer)) break;
  }
  return grpc::Status::OK;
}

void FakeIngestService::Refuse(uint64_t sequence) {
  std::lock_guard lock(mutex_);
  refuse_.insert(sequence);
}

void FakeIngestService::AskAgainOnce(uint64_t sequence) {
  std::lock_guard lock(mutex_);
  ask_again_.insert(sequence);
}

void FakeIngestService::DropStreamAfterStoring(uint64_t sequence) {
  std::lock_guard lock(mutex_);
  drop_after_.insert(sequence);
}

void FakeIngestService::HoldAcks(bool hold) {
  std::lock_guard lock(mutex_);
  hold_acks_ = hold;
}

void FakeIngestService::TakeReports(bool take) {
  std::lock_guard lock(mutex_);
  take_reports_ = take;
}

std::vector<v1::AgentMessage> FakeIngestService::reports() const {
  std::lock_guard lock(mutex_);
  return reports_;
}

void FakeIngestService::HoldWelcome(bool hold) {
  std::lock_guard lock(mutex_);
  hold_welcome_ = hold;
  changed_.notify_all();
}

void FakeIngestService::AddTitles(const Sha256Digest& digest) {
  std::lock_guard lock(mutex_);
  titles_.insert(digest);
}

std::vector<v1::Hello> FakeIngestService::hellos() const {
  std::lock_guard lock(mutex_);
  return hellos_;
}

std::vector<v1::TitleDatabase> FakeIngestService::title_messages() const {
  std::lock_guard lock(mutex_);
  return title_messages_;
}

std::vector<ReceivedSnapshot> FakeIngestService::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

std::map<std::pair<std::string, uint64_t>, std::vector<uint8_t>> FakeIngestService::stored() const {
  std::lock_guard lock(mutex_);
  return stored_;
}

std::vector<std::string> FakeIngestService::errors() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

std::vector<std::string> FakeIngestService::authorizations() const {
  std::lock_guard lock(mutex_);
  return authorizations_;
}

bool FakeIngestService::WaitFor(const std::function<bool()>& done,
                                std::chrono::seconds limit) const {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(20));
  }
  return true;
}

FakeIngestServer::FakeIngestServer(FakeIngestService& service, int port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(port), grpc::InsecureServerCredentials(),
                           &port_);
  builder.RegisterService(&service);
  server_ = builder.BuildAndStart();
}

FakeIngestServer::~FakeIngestServer() {
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

}  // namespace perfhive::testing
