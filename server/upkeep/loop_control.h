// LoopControl: what the server's background loops (RetentionLoop, CompactionLoop,
// StreamUpkeepLoop, AlertingLoop) share: one mutex and one condition variable, on which each
// waits for its next pass, so that one stop request reaches every loop at once and a SIGHUP wakes
// the stream upkeep and the alerting loop at once. The loops hold the mutex while they wait and
// check; retention also holds it through its pass, so the other loops' next step, a stop and a
// reload wait for that pass to end.

#ifndef PERFHIVE_SERVER_UPKEEP_LOOP_CONTROL_H_
#define PERFHIVE_SERVER_UPKEEP_LOOP_CONTROL_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

namespace perfhive {

class LoopControl {
 public:
  LoopControl() = default;
  LoopControl(const LoopControl&) = delete;
  LoopControl& operator=(const LoopControl&) = delete;

  // Asks every loop to stop; each ends the step it is in. Asking again changes nothing.
  void RequestStop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
  }

  // Asks the stream upkeep for a pass now, one that says why, and the alerting loop to read its
  // rules again (SIGHUP).
  void RequestReload() {
    std::lock_guard lock(mutex_);
    reload_requested_ = true;
    ++reloads_;
    wake_.notify_all();
  }

  // For the loops: the mutex they hold while they wait and check.
  std::mutex& mutex() { return mutex_; }

  // Waits up to `period` under `lock` (of mutex()) for a stop; whether one was asked for.
  bool WaitForStop(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::duration period) {
    return wake_.wait_for(lock, period, [this] { return stopping_; });
  }
  // Waits up to `period` under `lock` for a stop or a reload.
  void WaitForStopOrReload(std::unique_lock<std::mutex>& lock,
                           std::chrono::steady_clock::duration period) {
    wake_.wait_for(lock, period, [this] { return stopping_ || reload_requested_; });
  }
  // Waits up to `period` under `lock` for a stop or a reload asked for after the `seen`th;
  // whether one was (`seen` is then the newest).
  bool WaitForStopOrReloadAfter(std::unique_lock<std::mutex>& lock,
                                std::chrono::steady_clock::duration period, uint64_t& seen) {
    wake_.wait_for(lock, period, [&] { return stopping_ || reloads_ != seen; });
    return std::exchange(seen, reloads_) != reloads_;
  }
  // Under the lock: how many reloads were asked for.
  uint64_t reloads() const { return reloads_; }
  // Under the lock: whether a stop was asked for.
  bool stopping() const { return stopping_; }
  // Under the lock: whether a reload was asked for since the last call.
  bool TakeReload() { return std::exchange(reload_requested_, false); }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool reload_requested_ = false;
  uint64_t reloads_ = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_UPKEEP_LOOP_CONTROL_H_
