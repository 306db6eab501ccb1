#include "server/upkeep/alerting_loop.h"

#include <chrono>
#include <mutex>

namespace perfhive {

void AlertingLoop::Start() {
  thread_ = std::thread([this] { Run(); });
}

void AlertingLoop::Stop() {
  control_.RequestStop();
  if (thread_.joinable()) thread_.join();
}

void AlertingLoop::Run() {
  std::unique_lock lock(control_.mutex());
  uint64_t reloads_seen = control_.reloads();
  bool forced = false;
  while (!control_.stopping()) {
    lock.unlock();
    alerting_.ReloadRules(forced);
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    alerting_.Evaluate(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
    const std::chrono::nanoseconds interval(alerting_.interval_ns());
    lock.lock();
    forced = control_.WaitForStopOrReloadAfter(lock, interval, reloads_seen);
  }
}

}  // namespace perfhive
