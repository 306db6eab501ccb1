#include "server/upkeep/compaction_loop.h"

#include <cstdint>
#include <mutex>
#include <string>

#include "port/env.h"

namespace perfhive {

void CompactionLoop::Start() {
  thread_ = std::thread([this] { Run(); });
}

void CompactionLoop::Stop() {
  control_.RequestStop();
  if (thread_.joinable()) thread_.join();
}

void CompactionLoop::Run() {
  std::unique_lock lock(control_.mutex());
  while (!control_.WaitForStop(lock, kCompactionInterval)) {
    bool more = true;
    while (more && !control_.stopping()) {
      lock.unlock();
      more = CompactSome();
      lock.lock();
    }
  }
}

bool CompactionLoop::CompactSome() {
  const int64_t idle_before = UnixNanosNow() - kCompactIdleGroupsAfter.count() * 1'000'000'000;
  Result<CompactionResult> result =
      store_.CompactClosedGroups(idle_before, kCompactionGroupsPerCall);
  if (!result.ok()) {
    log_.WarnOncePerBurst("compaction-failed", "store", {{"message", result.error()}});
  } else if (result->groups > 0 || result->groups_merged > 0) {
    log_.Info("compaction", {{"groups", std::to_string(result->groups)},
                             {"snapshots", std::to_string(result->snapshots)},
                             {"bytes_saved", std::to_string(result->bytes_saved)},
                             {"groups_merged", std::to_string(result->groups_merged)},
                             {"merged_bytes_saved", std::to_string(result->merged_bytes_saved)},
                             {"transactions", std::to_string(result->transactions)}});
  }
  return result.ok() && result->more;
}

}  // namespace perfhive
