// Logger: the agent's log, one line per event on stderr with a UTC time and a level. A burst of
// the same message (a server that stays down, a file that stays unreadable) is written once and
// then summed up with a count, so the log stays readable and the disk does not fill. Messages
// quote what remote hosts and servers said (their errors, their names), so each is written as
// EscapeForDisplay shows it and cut at kMaxMessageBytes: one event is always one line, and
// nothing in it reaches a terminal raw.
// The server's log (server/log/server_log.h) is another format (logfmt fields per event, folded per
// key and window) for other readers; the two share the time format (FormatRfc3339) and the
// escaping (perfdata/display_text.h) and nothing else: one logger for both would change what
// each writes.

#ifndef PERFHIVE_AGENT_LOGGER_H_
#define PERFHIVE_AGENT_LOGGER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

#include "port/env.h"

namespace perfhive {

enum class LogLevel { kInfo, kWarning, kError };

class Logger {
 public:
  // The bytes of a message that are logged; longer ones are cut, their size noted.
  static constexpr size_t kMaxMessageBytes = 8192;

  // `out` is written under a lock, so any thread may log.
  Logger(std::ostream& out, Env& env) : out_(out), env_(env) {}
  ~Logger() { Flush(); }
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  void Log(LogLevel level, std::string_view message);
  void Info(std::string_view message) { Log(LogLevel::kInfo, message); }
  void Warning(std::string_view message) { Log(LogLevel::kWarning, message); }
  void Error(std::string_view message) { Log(LogLevel::kError, message); }

  // Writes the count of repeats held back, if any.
  void Flush();

 private:
  // Repeats held back longer than this are summed up even while the burst goes on.
  static constexpr std::chrono::seconds kMaxHoldBack{60};

  void WriteLine(LogLevel level, std::string_view message);
  void FlushLocked();

  std::mutex mutex_;
  std::ostream& out_;
  Env& env_;
  LogLevel last_level_ = LogLevel::kInfo;
  std::string last_message_;
  uint64_t repeats_ = 0;  // of last_message_, not yet written
  std::chrono::steady_clock::time_point first_repeat_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_LOGGER_H_
