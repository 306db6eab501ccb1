// CompactionLoop: turns the store's closed groups into columnar blocks, on its own thread, until
// the server stops. A group is closed within seconds of filling up; one its stream stopped adding
// to (a host gone quiet) once it has been idle for kCompactIdleGroupsAfter.

#ifndef PERFHIVE_SERVER_UPKEEP_COMPACTION_LOOP_H_
#define PERFHIVE_SERVER_UPKEEP_COMPACTION_LOOP_H_

#include <chrono>
#include <cstddef>
#include <thread>

#include "server/log/server_log.h"
#include "server/upkeep/loop_control.h"
#include "store/store.h"

namespace perfhive {

class CompactionLoop {
 public:
  // How often the pass looks for closed groups, and how long a group must have had no append to
  // count as closed (its host went quiet: a new group starts when it speaks again). A group of
  // 60 fills in a minute at 1 s, ten at 10 s: a host idle longer than that has stopped.
  static constexpr std::chrono::seconds kCompactionInterval{10};
  static constexpr std::chrono::seconds kCompactIdleGroupsAfter{15 * 60};
  // The groups compacted per call, so that a stop is not held up by a long pass (the first
  // after an upgrade takes every group stored before).
  static constexpr size_t kCompactionGroupsPerCall = 256;

  CompactionLoop(Store& store, ServerLog& log, LoopControl& control)
      : store_(store), log_(log), control_(control) {}
  CompactionLoop(const CompactionLoop&) = delete;
  CompactionLoop& operator=(const CompactionLoop&) = delete;
  ~CompactionLoop() { Stop(); }

  // The first pass comes kCompactionInterval after the start.
  void Start();
  // Asks every loop of the control to stop, and waits for this one's budget to end.
  void Stop();

 private:
  void Run();
  // Compacts one budget of groups; whether more are waiting.
  bool CompactSome();

  Store& store_;
  ServerLog& log_;
  LoopControl& control_;
  std::thread thread_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_UPKEEP_COMPACTION_LOOP_H_
