// FakeClockEnv: an Env whose clocks move only when a test moves them or code sleeps, each sleep
// recorded and returning at once; files are the real ones. Header-only: the Windows cross build,
// which does not build tests/support, uses it too.

#ifndef PERFHIVE_TESTS_SUPPORT_FAKE_CLOCK_ENV_H_
#define PERFHIVE_TESTS_SUPPORT_FAKE_CLOCK_ENV_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "port/env.h"

namespace perfhive::testing {

class FakeClockEnv : public Env {
 public:
  std::chrono::steady_clock::time_point SteadyNow() override { return now_; }
  // The wall clock moves with the steady one, from the Unix epoch or set_system_origin.
  std::chrono::system_clock::time_point SystemNow() override {
    return system_origin_ +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(now_.time_since_epoch());
  }
  void SleepFor(std::chrono::nanoseconds duration) override {
    sleeps_.push_back(duration);
    now_ += duration;
  }

  Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes) override {
    return real_.WriteFileAtomically(path, bytes);
  }
  Status WriteSecretFileAtomically(const std::string& path,
                                   std::span<const uint8_t> bytes) override {
    return real_.WriteSecretFileAtomically(path, bytes);
  }
  Result<std::vector<uint8_t>> ReadFile(const std::string& path) override {
    return real_.ReadFile(path);
  }
  Result<std::vector<std::string>> ListDirectory(const std::string& dir) override {
    return real_.ListDirectory(dir);
  }
  Status CreateDirectories(const std::string& dir) override { return real_.CreateDirectories(dir); }
  Status RemoveFile(const std::string& path) override { return real_.RemoveFile(path); }
  Result<uint64_t> FileSize(const std::string& path) override { return real_.FileSize(path); }
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    return real_.LockFile(path);
  }

  void Advance(std::chrono::steady_clock::duration duration) { now_ += duration; }
  void set_system_origin(std::chrono::system_clock::time_point origin) { system_origin_ = origin; }
  // Every SleepFor so far, in order.
  const std::vector<std::chrono::nanoseconds>& sleeps() const { return sleeps_; }

 private:
  Env& real_ = Env::Default();
  std::chrono::steady_clock::time_point now_{};
  std::chrono::system_clock::time_point system_origin_{};
  std::vector<std::chrono::nanoseconds> sleeps_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_FAKE_CLOCK_ENV_H_
