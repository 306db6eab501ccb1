// StreamUpkeepLoop: tells the open ingest streams what changed, every 2 s and at once on SIGHUP
// (LoopControl::RequestReload), on its own thread until the server stops: a revoked host's stream
// ends, a certificate due is renewed, and a changed policy file is read again and its plans are
// sent.

#ifndef PERFHIVE_SERVER_UPKEEP_STREAM_UPKEEP_LOOP_H_
#define PERFHIVE_SERVER_UPKEEP_STREAM_UPKEEP_LOOP_H_

#include <chrono>
#include <thread>

#include "server/ingest/ingest_service.h"
#include "server/log/server_log.h"
#include "server/policies/policy_book.h"
#include "server/upkeep/loop_control.h"

namespace perfhive {

class StreamUpkeepLoop {
 public:
  static constexpr std::chrono::seconds kPassInterval{2};

  // `policies` is null where the server has none (no --policies).
  StreamUpkeepLoop(IngestService& ingest, PolicyFile* policies, ServerLog& log,
                   LoopControl& control)
      : ingest_(ingest), policies_(policies), log_(log), control_(control) {}
  StreamUpkeepLoop(const StreamUpkeepLoop&) = delete;
  StreamUpkeepLoop& operator=(const StreamUpkeepLoop&) = delete;
  ~StreamUpkeepLoop() { Stop(); }

  // The first pass comes kPassInterval after the start, or at the first reload.
  void Start();
  // Asks every loop of the control to stop, and waits for this one's pass to end.
  void Stop();

 private:
  void Run();
  // One pass; `forced` when a reload (SIGHUP) asked for it.
  void Pass(bool forced);
  // Reads the policy file again; its plans go to the streams whether or not it changed.
  void ReloadPolicies(bool forced);

  IngestService& ingest_;
  PolicyFile* const policies_;
  ServerLog& log_;
  LoopControl& control_;
  std::thread thread_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_UPKEEP_STREAM_UPKEEP_LOOP_H_
