// IngestService: the server side of perfhive.v1.Ingest. Each agent stream is an IngestSession
// (ingest_session.h); this class holds what they share: the store, the tokens, the limits, the
// log, the policies and the open streams, which it tells of revocations, renewals due and
// changed plans. docs/wire_protocol.md describes the conversation.

#ifndef PERFHIVE_SERVER_INGEST_INGEST_SERVICE_H_
#define PERFHIVE_SERVER_INGEST_INGEST_SERVICE_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "perfhive/v1/ingest.grpc.pb.h"
#include "proto/collection_plan.h"
#include "query/live_series.h"
#include "server/enrollment/enrolled_clients.h"
#include "server/enrollment/enrollment_service.h"
#include "server/enrollment/token_table.h"
#include "server/log/server_log.h"
#include "server/policies/policy_book.h"
#include "store/sample_loader.h"
#include "store/store.h"

namespace perfhive {

struct IngestLimits {
  // The largest raw snapshot accepted (restored size); larger ones are refused, the stream
  // goes on.
  size_t max_snapshot_bytes = 64 << 20;
  // Snapshots a stream may send per second, on average over a few seconds; beyond it the stream
  // is read more slowly (nothing is refused for it).
  double max_snapshots_per_second = 50;
  // Snapshots of one stream being made durable at once; the stream is read no further until
  // one completes.
  int max_in_flight = 64;
  // Raw bytes of snapshots being made durable, over all streams. Past it a stream that already
  // has one in flight is read no further until one of its own completes; a stream with none may
  // always take one, so none starves and memory stays under this plus one snapshot per stream
  // (1,000 agents draining an hour's backlog at once would otherwise hold 64 snapshots each).
  uint64_t max_bytes_in_flight = uint64_t{256} << 20;
};

// gRPC's limit on one received message for these limits: a snapshot over the limit reaches the
// session, which refuses it with a message; gRPC's own limit only keeps one message from
// exhausting memory.
inline int MaxReceiveMessageBytes(const IngestLimits& limits) {
  return static_cast<int>(std::min<size_t>(limits.max_snapshot_bytes + (1 << 20), size_t{1} << 30));
}

// Counters over all streams since the server started.
struct IngestCounters {
  std::atomic<uint64_t> streams{0};
  std::atomic<uint64_t> snapshots_stored{0};
  std::atomic<uint64_t> snapshots_duplicate{0};
  std::atomic<uint64_t> snapshots_refused{0};
  std::atomic<uint64_t> snapshots_conflicting{0};  // refused: the sample is stored with other bytes
  std::atomic<uint64_t> snapshots_resent{0};       // asked for again as keyframes
  std::atomic<uint64_t> snapshots_delayed{0};      // held back by the rate limit
  // Reads of a stream put off while the streams' bytes in flight were over the budget.
  std::atomic<uint64_t> reads_held_for_memory{0};
  // Reads of a stream put off while its replies waited to be written: its client reads none.
  std::atomic<uint64_t> reads_held_for_replies{0};
  std::atomic<uint64_t> bytes_in_flight{0};       // raw bytes being made durable now
  std::atomic<uint64_t> bytes_in_flight_peak{0};  // the most at once since the server started
  std::atomic<uint64_t> raw_bytes_stored{0};
  std::atomic<uint64_t> wire_bytes{0};
};

class IngestSession;

class IngestService final : public perfhive::v1::Ingest::CallbackService {
 public:
  IngestService(Store& store, const TokenTable& tokens, IngestLimits limits, ServerLog& log)
      : store_(store), tokens_(tokens), limits_(limits), log_(log) {}

  grpc::ServerBidiReactor<perfhive::v1::AgentMessage, perfhive::v1::ServerMessage>* Stream(
      grpc::CallbackServerContext* context) override;

  Store& store() { return store_; }
  const TokenTable& tokens() const { return tokens_; }
  // Agents with a client certificate from enrollment; null: tokens only.
  const EnrolledClients* enrolled_clients() const { return enrolled_clients_; }
  void set_enrolled_clients(const EnrolledClients* enrolled) { enrolled_clients_ = enrolled; }
  const IngestLimits& limits() const { return limits_; }
  ServerLog& log() { return log_; }
  IngestCounters& counters() { return counters_; }

  // Renews enrolled hosts' certificates; null: no enrollment.
  EnrollmentService* renewals() const { return renewals_; }
  void set_renewals(EnrollmentService* renewals) { renewals_ = renewals; }
  // The policies that give hosts their collection plans; null: none.
  void set_policies(const PolicyFile* policies) { policies_ = policies; }
  // Where each stored snapshot's values of the followed paths go (the alerting rules' live
  // series), named by the title databases `titles` parses; null: nowhere.
  void set_live_series(query::LiveSeries* live, SampleLoader* titles) {
    live_series_ = live;
    titles_ = titles;
  }
  query::LiveSeries* live_series() const { return live_series_; }
  SampleLoader* titles() const { return titles_; }
  // The plan of `host` now; empty (no revision) without policies or a policy naming it.
  CollectionPlan PlanFor(const std::string& host) const;
  // Whether the plan of `poller` names `host` among its targets (PolicyBook::PollerMayPoll).
  bool PollerMayPoll(const std::string& poller, const std::string& host) const;

  // Every open stream, so that the server can reach it between its messages: once welcomed, by
  // its host; with its certificate's serial for enrolled hosts, and when that certificate is due
  // for renewal.
  void Track(IngestSession* session, const std::string& certificate_serial);
  // `granted_by`: the poller whose plan lets the stream write as `host`; empty when its
  // principal may write as `host` itself. A policy reload that takes the grant away ends it.
  void TrackHost(IngestSession* session, const std::string& host, const std::string& granted_by,
                 std::optional<EnrollmentService::Renewal> renewal);
  void Untrack(IngestSession* session);
  // Ends the streams whose certificates were revoked since they opened (one registry query for
  // them all: the revocations since the previous pass); how many.
  int CloseRevokedStreams();
  // Asks the streams whose certificates are due for renewal (one per certificate); how many
  // were due.
  int AskRenewals(std::chrono::system_clock::time_point now);
  // A renewal of `certificate_serial` failed: its streams may be asked again when they reconnect.
  void RenewalFailed(const std::string& certificate_serial);
  // Sends each open stream its host's plan where it changed (after the policies were read
  // again); how many streams got a new plan.
  int OfferPlans();

 private:
  struct Tracked {
    std::string certificate_serial;  // empty: a token's stream
    std::string host;                // empty until Hello
    std::string granted_by;  // the poller whose plan lets the stream write as `host`, if any
    std::optional<EnrollmentService::Renewal> renewal;  // unset: none, or asked already
  };

  Store& store_;
  const TokenTable& tokens_;
  const EnrolledClients* enrolled_clients_ = nullptr;
  IngestLimits limits_;
  ServerLog& log_;
  IngestCounters counters_;
  std::mutex tracked_mutex_;
  // Under tracked_mutex_: asks `session` to renew when its certificate is due and no stream of
  // that certificate was asked; true when it was due.
  bool AskRenewalIfDue(IngestSession* session, Tracked& tracked,
                       std::chrono::system_clock::time_point now);

  std::map<IngestSession*, Tracked> tracked_;
  std::set<std::string> renewals_asked_;  // certificate serials
  // Where CloseRevokedStreams' previous pass started; revocations from then on are looked at.
  std::chrono::system_clock::time_point revocations_checked_ = std::chrono::system_clock::now();
  EnrollmentService* renewals_ = nullptr;
  const PolicyFile* policies_ = nullptr;
  query::LiveSeries* live_series_ = nullptr;
  SampleLoader* titles_ = nullptr;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_INGEST_INGEST_SERVICE_H_
