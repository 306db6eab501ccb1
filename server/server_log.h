// ServerLog: the server's structured log, one line per event on stderr:
//   2026-11-23T10:00:01.123Z level=warn event=refused host=web01 seq=17 message="..."
// Repeats of one event for one key within a window are folded into one line with a count, so a
// misbehaving agent cannot flood the log.

#ifndef PERFHIVE_SERVER_SERVER_LOG_H_
#define PERFHIVE_SERVER_SERVER_LOG_H_

#include <chrono>
#include <cstdint>
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

  explicit ServerLog(std::chrono::seconds burst_window = std::chrono::seconds(10))
      : burst_window_(burst_window) {}

  void Info(std::string_view event, const Fields& fields) { Write("info", event, fields, 0); }
  void Warn(std::string_view event, const Fields& fields) { Write("warn", event, fields, 0); }
  void Error(std::string_view event, const Fields& fields) { Write("error", event, fields, 0); }

  // Logs the first `event` for `key` in each burst window; the ones in between are counted and
  // reported as `repeated=N` on the next line that is written.
  void WarnOncePerBurst(std::string_view event, const std::string& key, const Fields& fields);

 private:
  void Write(std::string_view level, std::string_view event, const Fields& fields,
             uint64_t repeated);

  struct Burst {
    std::chrono::steady_clock::time_point started;
    uint64_t suppressed = 0;
  };
  std::chrono::seconds burst_window_;
  std::mutex mutex_;
  std::map<std::string, Burst> bursts_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_SERVER_LOG_H_
