#include "server/upkeep/retention_loop.h"

#include <chrono>
#include <mutex>
#include <string>

#include "port/env.h"

namespace perfhive {

void RetentionLoop::Start() {
  thread_ = std::thread([this] { Run(); });
}

void RetentionLoop::Stop() {
  control_.RequestStop();
  if (thread_.joinable()) thread_.join();
}

void RetentionLoop::Run() {
  std::unique_lock lock(control_.mutex());
  while (!control_.WaitForStop(lock, std::chrono::minutes(1))) {
    if (policy_.max_age_ns == 0 && policy_.max_bytes == 0) continue;
    Result<RetentionResult> result = store_.ApplyRetention(policy_, UnixNanosNow());
    if (!result.ok()) {
      log_.Error("retention", {{"message", result.error()}});
    } else if (result->snapshots_deleted > 0) {
      log_.Info("retention", {{"deleted", std::to_string(result->snapshots_deleted)},
                              {"bytes", std::to_string(result->bytes_deleted)},
                              {"transactions", std::to_string(result->transactions)}});
    }
  }
}

}  // namespace perfhive
