// Countdown: waits for a number of completions that arrive on other threads (the store's
// asynchronous appends), and counts those that failed. For the benchmarks.

#ifndef PERFHIVE_TESTS_BENCH_COUNTDOWN_H_
#define PERFHIVE_TESTS_BENCH_COUNTDOWN_H_

#include <condition_variable>
#include <mutex>

namespace perfhive::bench {

class Countdown {
 public:
  void Add(int n) {
    std::lock_guard lock(mutex_);
    pending_ += n;
  }
  void Done(bool ok) {
    std::lock_guard lock(mutex_);
    if (!ok) ++failed_;
    if (--pending_ == 0) zero_.notify_all();
  }
  // Waits until every completion added has come; how many failed.
  int Wait() {
    std::unique_lock lock(mutex_);
    zero_.wait(lock, [this] { return pending_ == 0; });
    return failed_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable zero_;
  int pending_ = 0;
  int failed_ = 0;
};

}  // namespace perfhive::bench

#endif  // PERFHIVE_TESTS_BENCH_COUNTDOWN_H_
