// IngestSession: one agent's Ingest stream, from Hello to the end. It restores each snapshot's
// exact raw bytes (keyframe or delta against the previous one of its query on this stream),
// checks size, SHA-256, well-formedness and title databases, hands it to the store, and
// acknowledges it only once the store says it is durable. A snapshot that can never be stored
// (malformed, or a conflict with the host's stored sample) is refused with a message and the
// stream goes on; a delta whose base the stream does not hold is asked for again as a
// keyframe. The stream ends only on a protocol error, a host name that is not one or that the
// token may not write as, or a store that cannot write (UNAVAILABLE: the agent keeps what is
// unacknowledged and sends it again later). Nothing is refused for coming too fast: over the
// rate limit the next message is read only once the rate allows it, and gRPC's flow control
// holds the agent back.
//
// gRPC calls the reactions on its threads and the store completes appends on its writer
// thread; the state they share is under `mutex_`. At most one read and one write are
// outstanding, as the callback API requires, and the stream is finished only once every append
// it started has completed, so no completion outlives the session.

#ifndef PERFHIVE_SERVER_INGEST_INGEST_SESSION_H_
#define PERFHIVE_SERVER_INGEST_INGEST_SESSION_H_

#include <grpcpp/alarm.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "perfdata/instance_gaps.h"
#include "perfhive/v1/ingest.grpc.pb.h"
#include "server/ingest/ingest_service.h"
#include "server/policies/host_labels.h"
#include "wire/snapshot_restorer.h"

namespace perfhive {

class IngestSession final
    : public grpc::ServerBidiReactor<perfhive::v1::AgentMessage, perfhive::v1::ServerMessage> {
 public:
  IngestSession(IngestService& service, grpc::CallbackServerContext* context);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnDone() override;

  // Ends the stream with `why` now, or once the appends in flight complete: its credential was
  // revoked, or the policy that let it write as its host no longer does. Safe from any thread.
  void Revoke(const grpc::Status& why);
  // Sends `plan` unless it is the one this stream sent last; whether it did. Safe from any
  // thread.
  bool OfferPlan(const CollectionPlan& plan);
  // Asks the agent to renew its certificate, unless it was asked and has not answered yet. Safe
  // from any thread.
  void AskRenewal(std::chrono::system_clock::time_point expires);

 private:
  // Each returns false when the stream must end (EndStream was called).
  bool HandleHello(const perfhive::v1::Hello& hello);
  // The labels the agent gave for its host, each checked (bad ones left out and logged); unset
  // when the Hello says it does not know them (a drain).
  std::optional<query::HostLabels> AgentLabels(const perfhive::v1::Hello& hello);
  bool HandleTitles(const perfhive::v1::TitleDatabase& titles);
  bool HandleSnapshot(perfhive::v1::Snapshot& snapshot);
  void HandleHealth(const perfhive::v1::HealthReport& health);
  // Keeps the host's disabled providers; false when the report is beyond reason (stream ended).
  bool HandleProviders(const perfhive::v1::ProviderReport& report);
  void HandleLosses(const perfhive::v1::CollectionLosses& losses);
  // False when the stream ended (a report beyond bounds).
  bool HandleTimings(const perfhive::v1::ObjectTimings& timings);
  void HandlePlanStatus(const perfhive::v1::PlanStatus& status);
  // Signs the renewal the server asked for; one it did not ask for ends the stream (false).
  bool HandleRenewal(const perfhive::v1::CertificateRenewal& renewal);

  // Handles the snapshot in `incoming_` now, or once the rate limit allows (then false: the
  // alarm reads on).
  bool HandleSnapshotWithinRate();
  // Adds to `changed` the title databases the snapshot says are in force where they differ from
  // those the stream recorded last: its append records them, on the store's writer.
  Status ApplyTitles(const perfhive::v1::Snapshot& snapshot,
                     std::vector<std::pair<std::string, Sha256Digest>>& changed);
  // Hands the snapshot stored at `time_ns` with its query's previous one on this stream (null:
  // none) to the live series, named by the title databases in force.
  void NoteLive(query::LiveSeries& live, const std::string& query, int64_t time_ns,
                const std::vector<uint8_t>& raw, const std::vector<uint8_t>* previous,
                int64_t previous_ns);
  // Takes a token when one is there (zero); else how long until one is.
  std::chrono::steady_clock::duration TakeRateToken();

  void Refuse(const std::string& instance_id, uint64_t sequence, const Status& status);
  void AskResend(const std::string& instance_id, uint64_t sequence, const Status& why);
  void OnAppended(const std::string& instance_id, uint64_t sequence, uint64_t raw_bytes,
                  Result<AppendResult> result);
  // Under mutex_: whether the next read may start, by this stream's appends in flight and the
  // bytes in flight of every stream (IngestLimits).
  bool MayRead();
  void Send(perfhive::v1::ServerMessage message);
  // Stops reading and finishes with `status` once nothing is outstanding.
  void EndStream(grpc::Status status);
  // Under mutex_: starts the next write, the next read or Finish, whichever is due.
  void Advance(std::unique_lock<std::mutex>& lock);

  IngestService& service_;
  std::optional<Principal> principal_;
  std::string peer_;

  // Only touched by the reactions, one at a time.
  perfhive::v1::AgentMessage incoming_;
  bool hello_received_ = false;
  bool poller_stream_ = false;  // a poller's own: its plan, no snapshots
  std::string host_;
  std::string instance_id_;
  SnapshotRestorer restorer_;
  // The instances of each query's snapshots on this stream, followed for those that go and come
  // back (a new stream starts afresh: a gap across a reconnect is not seen).
  std::map<std::string, InstanceGapTracker> instance_gaps_;
  std::set<Sha256Digest> known_titles_;                  // held by the store
  std::map<std::string, Sha256Digest> titles_in_force_;  // by language, last recorded
  double rate_tokens_ = 0;
  std::chrono::steady_clock::time_point rate_updated_{};
  grpc::Alarm rate_alarm_;  // set while a snapshot waits for the rate limit

  std::mutex mutex_;
  std::deque<perfhive::v1::ServerMessage> outgoing_;
  bool writing_ = false;
  int in_flight_ = 0;             // appends handed to the store, or a snapshot waiting for the rate
  bool read_wanted_ = false;      // a read is due once in_flight_ is under the limit
  bool held_for_memory_ = false;  // the due read waits for the bytes in flight (counted once)
  bool held_for_replies_ = false;  // the due read waits for replies to be written (counted once)
  bool reads_over_ = false;        // the agent closed its side, or the stream is ending
  std::optional<grpc::Status> finish_with_;
  bool finished_ = false;
  std::string plan_sent_;  // the revision of the plan sent last
  // A RenewCertificate sent and not answered yet: the one renewal this stream may send.
  bool renewal_asked_ = false;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_INGEST_INGEST_SESSION_H_
