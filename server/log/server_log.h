// ServerLog: the server's structured log, one line per event (logfmt) on stderr:
//   2026-11-23T10:00:01.123Z level=warn event=refused host=web01 seq=17 message="..."
// Values are as often as not texts agents sent (host names, versions, messages quoting them), so
// each is written as EscapeForDisplay shows it (perfdata/display_text.h) and cut at
// kMaxValueBytes: no value breaks a line, forges one, reaches a terminal raw or floods the log.
// A value that is empty or holds a space, '"' or '=' is double-quoted, '"' and '\' inside it
// escaped by '\', so every line splits into key=value pairs unambiguously, and unquoting a value
// gives the escaped text back.
// Repeats of one event for one key within a window are folded into one line with a count, so a
// misbehaving agent cannot flood the log.

#ifndef PERFHIVE_SERVER_LOG_SERVER_LOG_H_
#define PERFHIVE_SERVER_LOG_SERVER_LOG_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfhive {

class ServerLog {
 public:
  using Fields = std::vector<std::pair<std::string, std::string>>;

  // The bytes of a value that are logged; longer ones are cut, their size noted.
  static constexpr size_t kMaxValueBytes = 4096;

  // Lines go to `out` (stderr unless a test reads them back).
  explicit ServerLog(std::chrono::seconds burst_window = std::chrono::seconds(10),
                     std::FILE* out = stderr)
      : burst_window_(burst_window), out_(out) {}

  void Info(std::string_view event, const Fields& fields) { Write("info", event, fields, 0); }
  void Warn(std::string_view event, const Fields& fields) { Write("warn", event, fields, 0); }
  void Error(std::string_view event, const Fields& fields) { Write("error", event, fields, 0); }

  // Logs the first `event` for `key` in each burst window; the ones in between are counted and
  // reported as `repeated=N` on the next line that is written for that key. At most
  // kMaxBurstKeys keys are followed at once (keys are often a client's address and port, one per
  // connection): past that, the ones whose window has ended are forgotten, their uncounted
  // repeats written in one `event=bursts_forgotten` line, and while every key is in its window a
  // new key shares one burst with the others of its event.
  void WarnOncePerBurst(std::string_view event, const std::string& key, const Fields& fields);

  static constexpr size_t kMaxBurstKeys = 1024;
  // Keys followed now (for tests).
  size_t burst_keys() {
    std::lock_guard lock(mutex_);
    return bursts_.size();
  }

 private:
  void Write(std::string_view level, std::string_view event, const Fields& fields,
             uint64_t repeated);
  // Forgets the bursts whose window has ended; returns the repeats they had not reported.
  uint64_t ForgetEndedBursts(std::chrono::steady_clock::time_point now);

  struct Burst {
    std::chrono::steady_clock::time_point started;
    uint64_t suppressed = 0;
  };
  std::chrono::seconds burst_window_;
  std::FILE* out_;
  std::mutex mutex_;
  std::map<std::string, Burst> bursts_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_LOG_SERVER_LOG_H_
