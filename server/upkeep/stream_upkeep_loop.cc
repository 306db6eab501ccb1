#include "server/upkeep/stream_upkeep_loop.h"

#include <mutex>
#include <string>

namespace perfhive {

void StreamUpkeepLoop::Start() {
  thread_ = std::thread([this] { Run(); });
}

void StreamUpkeepLoop::Stop() {
  control_.RequestStop();
  if (thread_.joinable()) thread_.join();
}

void StreamUpkeepLoop::Run() {
  std::unique_lock lock(control_.mutex());
  while (!control_.stopping()) {
    control_.WaitForStopOrReload(lock, kPassInterval);
    if (control_.stopping()) break;
    bool forced = control_.TakeReload();
    lock.unlock();
    Pass(forced);
    lock.lock();
  }
}

void StreamUpkeepLoop::Pass(bool forced) {
  if (int closed = ingest_.CloseRevokedStreams(); closed > 0) {
    log_.Info("revoked", {{"streams", std::to_string(closed)}});
  }
  ingest_.AskRenewals(std::chrono::system_clock::now());
  if (policies_ != nullptr) ReloadPolicies(forced);
}

void StreamUpkeepLoop::ReloadPolicies(bool forced) {
  const std::string& file = policies_->path();
  Result<bool> changed = policies_->Reload();
  if (!changed.ok()) {
    // The policies in force stay; the file is read again at the next pass.
    log_.WarnOncePerBurst("policies-unreadable", file,
                          {{"file", file}, {"message", changed.error()}});
  } else if (*changed || forced) {
    log_.Info("policies", {{"file", file},
                           {"policies", std::to_string(policies_->book()->policies().size())},
                           {"reason", forced ? "SIGHUP" : "changed"}});
  }
  if (int offered = ingest_.OfferPlans(); offered > 0) {
    log_.Info("plans-sent", {{"streams", std::to_string(offered)}});
  }
}

}  // namespace perfhive
