// ConsoleSessions: the web console's logged-in readers, kept by the server. A login opens a
// session under an opaque ID (32 random bytes, in hexadecimal), which is all the browser's cookie
// holds; the session keeps the token it logged in with, so that every request is checked against
// the token table again. A session ends at logout, after kIdle without a request, kLifetime after
// its login, and when the server stops (sessions live in memory: a restart, which also reloads the
// tokens file, logs everyone out). A copied cookie stops working when its session ends. At most
// kMaxSessions are kept; beyond, the one unused longest is ended to make room.

#ifndef PERFHIVE_SERVER_HTTP_CONSOLE_SESSIONS_H_
#define PERFHIVE_SERVER_HTTP_CONSOLE_SESSIONS_H_

#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"

namespace perfhive {

class ConsoleSessions {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kIdle = std::chrono::hours(12);
  static constexpr Clock::duration kLifetime = std::chrono::hours(7 * 24);
  static constexpr size_t kMaxSessions = 10'000;

  // A new session for `token`: its ID, or an error if no random bytes could be had.
  Result<std::string> Open(std::string token, Clock::time_point now);
  // The token of session `id`, if it is open (and then its idle time starts again).
  std::optional<std::string> Token(std::string_view id, Clock::time_point now);
  // Ends session `id`; nothing if there is none.
  void Close(std::string_view id);
  size_t size() const;

 private:
  struct Session {
    std::string token;
    Clock::time_point opened;
    Clock::time_point used;
  };
  bool Ended(const Session& session, Clock::time_point now) const;
  // Ends the sessions that have ended by time, then, if still full, the one unused longest.
  void MakeRoom(Clock::time_point now);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Session> sessions_;  // by ID
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_HTTP_CONSOLE_SESSIONS_H_
