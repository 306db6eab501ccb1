// RetentionLoop: applies the retention policy (--retention-age, --retention-bytes) to the store
// once a minute, on its own thread, until the server stops; it logs what each pass deleted.

#ifndef PERFHIVE_SERVER_UPKEEP_RETENTION_LOOP_H_
#define PERFHIVE_SERVER_UPKEEP_RETENTION_LOOP_H_

#include <thread>

#include "server/log/server_log.h"
#include "server/upkeep/loop_control.h"
#include "store/store.h"

namespace perfhive {

class RetentionLoop {
 public:
  // A policy with neither an age nor a size deletes nothing; the loop then only waits.
  RetentionLoop(Store& store, RetentionPolicy policy, ServerLog& log, LoopControl& control)
      : store_(store), policy_(policy), log_(log), control_(control) {}
  RetentionLoop(const RetentionLoop&) = delete;
  RetentionLoop& operator=(const RetentionLoop&) = delete;
  ~RetentionLoop() { Stop(); }

  // The first pass comes a minute after the start.
  void Start();
  // Asks every loop of the control to stop, and waits for this one's pass to end.
  void Stop();

 private:
  void Run();

  Store& store_;
  const RetentionPolicy policy_;
  ServerLog& log_;
  LoopControl& control_;
  std::thread thread_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_UPKEEP_RETENTION_LOOP_H_
