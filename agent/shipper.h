// Shipper: keeps one gRPC Ingest stream to the server for one owner (a host, as an agent or
// agentless) and moves the outbox over it. Hello names the host, this run (instance id) and its
// title databases; Welcome says which databases to send. Snapshots go in order, at most `window`
// awaiting an answer, each naming the host it was taken as; the first of a query on a stream
// (and the first after a refusal or a resend request) is zstd of the raw bytes, later ones are
// delta frames against the previous one sent. An Ack removes a snapshot; a Refusal removes it as
// lost, logged; a Resend sends it again as a keyframe. A lost stream is retried with exponential
// backoff and jitter; what it left unanswered is sent again. What else the server says on the
// stream (the host's collection plan, a request to renew its certificate) goes to the
// shipper's delegate; a renewed certificate is used from the next stream on, which starts at
// once. It takes everything it sends from the outbox and writes nothing but the stream.

#ifndef PERFHIVE_AGENT_SHIPPER_H_
#define PERFHIVE_AGENT_SHIPPER_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/logger.h"
#include "agent/outbox.h"
#include "agent/snapshot_record.h"
#include "perfhive/v1/ingest.grpc.pb.h"
#include "query/host_selector.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// The channel credentials of the streams of one enrolled credential: a host's, or every host an
// agentless poller polls with its one certificate, and when that certificate expires. A renewed
// certificate replaces them here, and each stream uses them from its next connection on.
class StreamCredentials {
 public:
  StreamCredentials(std::shared_ptr<grpc::ChannelCredentials> credentials,
                    std::chrono::system_clock::time_point expires)
      : credentials_(std::move(credentials)), expires_(expires) {}
  // The credentials now and their version (one more at every Replace).
  std::pair<std::shared_ptr<grpc::ChannelCredentials>, uint64_t> Get() const {
    std::lock_guard lock(mutex_);
    return {credentials_, version_};
  }
  std::chrono::system_clock::time_point expires() const {
    std::lock_guard lock(mutex_);
    return expires_;
  }
  void Replace(std::shared_ptr<grpc::ChannelCredentials> credentials,
               std::chrono::system_clock::time_point expires) {
    std::lock_guard lock(mutex_);
    credentials_ = std::move(credentials);
    expires_ = expires;
    ++version_;
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  std::chrono::system_clock::time_point expires_;
  uint64_t version_ = 0;
};

// A renewed certificate, kept: the credentials that present it and when it expires.
struct RenewedCredentials {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::chrono::system_clock::time_point expires;
};

// The rest of the agent, as the stream needs it. Called on the shipper's threads.
class ShipperDelegate {
 public:
  virtual ~ShipperDelegate() = default;
  // The host's collection plan: the Welcome's, or a change the server sent.
  virtual void OnPlan(const v1::CollectionPlan& plan) = 0;
  // The server asks to renew the host's certificate: a certificate request (PEM) for its key.
  virtual Result<std::string> MakeRenewalRequest() = 0;
  // The renewed certificate (PEM): kept, and the credentials for the next streams returned.
  virtual Result<RenewedCredentials> AdoptCertificate(const std::string& certificate_pem) = 0;
};

struct ShipperOptions {
  std::string server;  // HOST:PORT
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // An enrolled credential's, which renewal replaces; when set, used instead of `credentials`.
  std::shared_ptr<StreamCredentials> renewable;
  std::string token;    // sent as "authorization: Bearer <token>"; empty: none
  SnapshotOwner owner;  // the host the stream is for: every snapshot it sends must be its
  std::string agent_version;
  std::string instance_id;
  // A poller's own stream (Hello's source kind POLLER), which sends no snapshots.
  bool poller_stream = false;
  std::string poller = "";  // agentless: the poller polling the host (Hello.poller)
  // Hello's labels, the host's as the agent was given them. Unset (a drain, which ships old
  // snapshots): Hello says it does not know them, and the server keeps those it has.
  std::optional<query::HostLabels> labels = std::nullopt;
  size_t window = 16;  // snapshots sent and not yet answered
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{60000};
  ShipperDelegate* delegate = nullptr;  // null: plans and renewals are ignored
};

// What the shipper has done since it started.
struct ShipperStats {
  uint64_t connects = 0;  // streams the server welcomed
  uint64_t sent = 0;      // snapshot messages, resends included
  uint64_t acked = 0;
  uint64_t duplicates = 0;     // acks saying the server already had it
  uint64_t refused = 0;        // lost: the server will never store them
  uint64_t resent = 0;         // the server asked for them again
  uint64_t raw_bytes = 0;      // of the snapshots sent
  uint64_t payload_bytes = 0;  // their payloads on the wire
};

class Shipper {
 public:
  Shipper(ShipperOptions options, Outbox& outbox, Logger& log);
  ~Shipper();
  Shipper(const Shipper&) = delete;
  Shipper& operator=(const Shipper&) = delete;

  // What the host made of its plan: sent now if a stream is up, else right after the next
  // Welcome (which carries the plan again, and so brings another report).
  void ReportPlanStatus(const v1::PlanStatus& status);
  void Start();
  // Ends the stream now and returns once the shipper's threads are done; what is unanswered
  // stays in the outbox.
  void Stop();

  ShipperStats stats() const;

 private:
  void Run();
  // One stream from Hello to its end; true when the server welcomed it.
  bool RunStream(v1::Ingest::Stub& stub);
  // Why an unwelcomed stream failed when the certificate it presented has expired; empty else.
  std::string ExpiredCertificateNote() const;
  void ReadAnswers(grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>& stream);
  // Sends the title databases `record` refers to that this stream has not seen.
  bool SendTitlesFor(const SnapshotRecord& record,
                     grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>& stream);
  bool SendTitles(const Sha256Digest& digest,
                  grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>& stream);
  // The message for `record`, against the last one of its query sent on this stream.
  v1::AgentMessage Frame(const std::shared_ptr<const SnapshotRecord>& record);
  std::chrono::milliseconds NextDelay(std::chrono::milliseconds backoff);
  // Writes `message` on the live stream, or keeps it in `unsent` for the next one.
  void SendOrKeep(v1::AgentMessage message, std::optional<v1::AgentMessage>& unsent);
  // Writes what the outbox gives: its reports (those the server takes), then a snapshot with
  // the title databases it refers to that the stream has not seen. false: the stream broke.
  bool Send(const Outbox::Outgoing& next,
            grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>& stream);
  // Asks the delegate for a renewal request and sends it; keeps a renewed certificate.
  void Renew(grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>& stream);
  void AdoptRenewed(const v1::RenewedCertificate& renewed);

  const ShipperOptions options_;
  Outbox& outbox_;
  Logger& log_;

  std::atomic<bool> stopping_{false};
  std::atomic<bool> interrupted_{false};  // the current stream is over (or stopping_)
  std::thread thread_;

  mutable std::mutex mutex_;
  std::condition_variable stop_requested_;
  grpc::ClientContext* context_ = nullptr;  // of the current stream
  // The current stream once welcomed, for writes from other threads (health), which take
  // write_mutex_ as the send loop does: a stream takes one write at a time.
  grpc::ClientReaderWriter<v1::AgentMessage, v1::ServerMessage>* live_stream_ = nullptr;
  std::mutex write_mutex_;
  std::optional<v1::AgentMessage> unsent_plan_status_;
  // The live stream's server takes collection reports (Welcome.takes_collection_reports): an
  // older one would end the stream on a message it does not know. The send loop's alone.
  bool server_takes_reports_ = false;

  std::set<Sha256Digest> stream_titles_;  // the server has these, or they were sent
  // Per stream: the last snapshot sent of each query, the base of the next delta of the query
  // if it is of the same instance.
  std::map<std::string, std::shared_ptr<const SnapshotRecord>> bases_;
  // Per stream: snapshots the server asked for again, sent again as keyframes. Clearing bases_
  // is not enough: the send loop may frame a later snapshot as a fresh base before the asked
  // one is back in line, and the asked one would then go as a delta against it.
  std::set<std::pair<std::string, uint64_t>> asked_again_;
  ShipperStats stats_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SHIPPER_H_
