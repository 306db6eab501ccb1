// An in-process perfhive server on a free loopback port, over a store in a temporary directory,
// and a raw Ingest client that speaks the protocol message by message, so tests can send what a
// real agent would and what a broken or hostile one might.

#ifndef PERFHIVE_TESTS_SERVER_SERVER_FIXTURE_H_
#define PERFHIVE_TESTS_SERVER_SERVER_FIXTURE_H_

#include <grpcpp/grpcpp.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/title_bytes.h"
#include "perfdata/title_database.h"
#include "perfhive/v1/ingest.grpc.pb.h"
#include "perfhive/v1/query.grpc.pb.h"
#include "port/sha256.h"
#include "server/api/query_service.h"
#include "server/enrollment/token_table.h"
#include "server/ingest/ingest_service.h"
#include "server/log/server_log.h"
#include "store/store.h"
#include "tests/store/store_test_util.h"
#include "wire/title_digest.h"

namespace perfhive::testing {

class TestServer {
 public:
  explicit TestServer(TokenTable tokens = TokenTable::AllowAll(), IngestLimits limits = {},
                      const StoreOptions& store_options = {})
      : tokens_(std::move(tokens)) {
    store_ = std::move(Store::Open(dir_.path(), store_options).value());
    ingest_ = std::make_unique<IngestService>(*store_, tokens_, limits, log_);
    loader_ = std::make_unique<SampleLoader>(*store_);
    query_ = std::make_unique<QueryService>(*store_, *loader_, tokens_);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.SetMaxReceiveMessageSize(MaxReceiveMessageBytes(limits));
    builder.RegisterService(ingest_.get());
    builder.RegisterService(query_.get());
    server_ = builder.BuildAndStart();
  }
  ~TestServer() { server_->Shutdown(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  Store& store() { return *store_; }
  IngestService& ingest() { return *ingest_; }

 private:
  TempDir dir_;
  TokenTable tokens_;
  ServerLog log_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<IngestService> ingest_;
  std::unique_ptr<SampleLoader> loader_;
  std::unique_ptr<QueryService> query_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

inline std::string AsString(std::span<const uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// A small title database naming the objects and counters SmallSnapshot uses.
inline TitleBytes SmallTitles(std::string extra = "") {
  TitleDatabase titles;
  titles.AddName(230, "Process");
  titles.AddName(6, "% Processor Time" + extra);
  titles.AddName(8, "Counter 8");
  titles.AddName(10, "Counter 10");
  titles.AddName(12, "Counter 12");
  return TitleBytes{.language = "009", .counters = titles.EncodeNames(), .helps = {}};
}

inline Sha256Digest DigestOf(const TitleBytes& titles) {
  return TitleDigest(titles.language, titles.counters, titles.helps);
}

// One Ingest stream, driven message by message.
class IngestClient {
 public:
  IngestClient(const std::string& address, const std::string& token = "",
               const grpc::ChannelArguments& arguments = {}) {
    channel_ = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
    stub_ = perfhive::v1::Ingest::NewStub(channel_);
    if (!token.empty()) context_.AddMetadata("authorization", "Bearer " + token);
    stream_ = stub_->Stream(&context_);
  }

  bool Send(const perfhive::v1::AgentMessage& message) { return stream_->Write(message); }
  // Ends the stream from this side: a Send blocked by flow control returns false.
  void Cancel() { context_.TryCancel(); }
  // The next message from the server; false when the stream ended.
  bool Receive(perfhive::v1::ServerMessage* message) { return stream_->Read(message); }
  grpc::Status Finish() {
    stream_->WritesDone();
    perfhive::v1::ServerMessage rest;
    while (stream_->Read(&rest)) {
    }
    return stream_->Finish();
  }

  bool Hello(const std::string& host, const std::string& instance,
             const std::vector<TitleBytes>& titles = {},
             const std::map<std::string, std::string>& labels = {}) {
    perfhive::v1::AgentMessage message;
    perfhive::v1::Hello* hello = message.mutable_hello();
    hello->set_protocol_version(1);
    hello->set_host_name(host);
    hello->set_os("Windows");
    hello->set_os_version("10.0 build 17763");
    hello->set_source_kind(perfhive::v1::SOURCE_KIND_AGENT);
    hello->set_agent_version("test");
    hello->set_instance_id(instance);
    hello->mutable_labels()->insert(labels.begin(), labels.end());
    for (const TitleBytes& t : titles) {
      perfhive::v1::TitleDigest* digest = hello->add_titles();
      digest->set_language(t.language);
      digest->set_sha256(AsString(DigestOf(t)));
    }
    return Send(message);
  }

  bool Titles(const TitleBytes& titles) {
    perfhive::v1::AgentMessage message;
    perfhive::v1::TitleDatabase* t = message.mutable_titles();
    t->set_language(titles.language);
    t->set_counters(AsString(titles.counters));
    t->set_helps(AsString(titles.helps));
    t->set_sha256(AsString(DigestOf(titles)));
    return Send(message);
  }

  // A snapshot as a keyframe, or as a delta against `base` when it is given.
  static perfhive::v1::AgentMessage SnapshotMessage(const std::string& instance, uint64_t sequence,
                                                    const std::vector<uint8_t>& raw,
                                                    const TitleBytes* titles,
                                                    const std::vector<uint8_t>* base = nullptr,
                                                    uint64_t base_sequence = 0,
                                                    const std::string& query = "Global") {
    perfhive::v1::AgentMessage message;
    perfhive::v1::Snapshot* s = message.mutable_snapshot();
    s->set_instance_id(instance);
    s->set_sequence(sequence);
    s->set_query(query);
    if (base != nullptr) {
      s->set_encoding(perfhive::v1::ENCODING_DELTA_ZSTD);
      s->set_base_sequence(base_sequence);
      s->set_payload(AsString(EncodeDelta(*base, raw)));
    } else {
      s->set_encoding(perfhive::v1::ENCODING_ZSTD);
      s->set_payload(AsString(EncodeDelta({}, raw)));
    }
    s->set_raw_size(static_cast<uint32_t>(raw.size()));
    s->set_sha256(AsString(Sha256(raw)));
    if (titles != nullptr) {
      perfhive::v1::TitleDigest* digest = s->add_titles();
      digest->set_language(titles->language);
      digest->set_sha256(AsString(DigestOf(*titles)));
    }
    return message;
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<perfhive::v1::Ingest::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<perfhive::v1::AgentMessage, perfhive::v1::ServerMessage>>
      stream_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SERVER_SERVER_FIXTURE_H_
