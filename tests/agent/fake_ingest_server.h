// FakeIngestServer: a real gRPC server on 127.0.0.1 with a test implementation of the Ingest
// service, so the agent's shipper is tested over a real stream. It restores every snapshot
// from its frame exactly as a server must (zstd, or delta against the base it names on the same
// stream; a delta whose base it does not hold is asked for again, as the server does), checks
// the SHA-256, keeps what it restored, and can be told to refuse a sequence, ask for one again,
// drop the stream after storing a snapshot (without acknowledging it), or hold acks back.

#ifndef PERFHIVE_TESTS_AGENT_FAKE_INGEST_SERVER_H_
#define PERFHIVE_TESTS_AGENT_FAKE_INGEST_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "perfhive/v1/ingest.grpc.pb.h"
#include "port/sha256.h"

namespace perfhive::testing {

// A snapshot as the fake server restored it.
struct ReceivedSnapshot {
  std::string instance_id;
  uint64_t sequence = 0;
  std::string query;
  v1::Encoding encoding = v1::ENCODING_UNSPECIFIED;
  uint64_t base_sequence = 0;
  size_t payload_size = 0;
  std::vector<uint8_t> raw;
  std::vector<Sha256Digest> titles;
};

class FakeIngestService : public v1::Ingest::Service {
 public:
  grpc::Status Stream(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ServerMessage, v1::AgentMessage>* stream) override;

  // Test controls, set before or while the agent streams.
  void Refuse(uint64_t sequence);
  void AskAgainOnce(uint64_t sequence);            // answers Resend the first time it comes
  void DropStreamAfterStoring(uint64_t sequence);  // once: ends the stream without its ack
  void HoldAcks(bool hold);                        // true: store, but never answer
  void AddTitles(const Sha256Digest& digest);      // as if the server held them
  void HoldWelcome(bool hold);                     // true: a Hello waits for its answer
  // Whether its Welcome says it takes the agent's reports (losses, providers, timings): by
  // default it does not, as a server older than them.
  void TakeReports(bool take);

  std::vector<v1::Hello> hellos() const;
  std::vector<v1::TitleDatabase> title_messages() const;
  // Every snapshot message received, in order, resends included.
  std::vector<ReceivedSnapshot> received() const;
  // Stored once per (instance, sequence).
  std::map<std::pair<std::string, uint64_t>, std::vector<uint8_t>> stored() const;
  std::vector<std::string> errors() const;  // frames the fake could not restore
  std::vector<std::string> authorizations() const;
  // The reports received (AgentMessages with losses, providers or timings), in order.
  std::vector<v1::AgentMessage> reports() const;

  // Waits (up to a generous limit, so a broken agent fails instead of hanging) until `done`.
  bool WaitFor(const std::function<bool()>& done,
               std::chrono::seconds limit = std::chrono::seconds(60)) const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::set<uint64_t> refuse_;
  std::set<uint64_t> ask_again_;
  std::set<uint64_t> drop_after_;
  bool hold_acks_ = false;
  bool hold_welcome_ = false;
  bool take_reports_ = false;
  std::vector<v1::AgentMessage> reports_;
  std::set<Sha256Digest> titles_;
  std::vector<v1::Hello> hellos_;
  std::vector<v1::TitleDatabase> title_messages_;
  std::vector<ReceivedSnapshot> received_;
  std::map<std::pair<std::string, uint64_t>, std::vector<uint8_t>> stored_;
  std::vector<std::string> errors_;
  std::vector<std::string> authorizations_;
};

// The service on a real server on 127.0.0.1: on a free port, or on `port` to come back where
// an agent expects it.
class FakeIngestServer {
 public:
  explicit FakeIngestServer(FakeIngestService& service, int port = 0);
  ~FakeIngestServer();
  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_AGENT_FAKE_INGEST_SERVER_H_
