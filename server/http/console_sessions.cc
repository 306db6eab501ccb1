#include "server/http/console_sessions.h"

#include <utility>

#include "pki/random_hex.h"

namespace perfhive {

Result<std::string> ConsoleSessions::Open(std::string token, Clock::time_point now) {
  Result<std::string> id = RandomHex(32);
  if (!id.ok()) return Status::Internal("cannot open a console session: " + id.error());
  std::lock_guard lock(mutex_);
  MakeRoom(now);
  sessions_[*id] = Session{.token = std::move(token), .opened = now, .used = now};
  return id;
}

std::optional<std::string> ConsoleSessions::Token(std::string_view id, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(std::string(id));
  if (found == sessions_.end()) return std::nullopt;
  if (Ended(found->second, now)) {
    sessions_.erase(found);
    return std::nullopt;
  }
  found->second.used = now;
  return found->second.token;
}

void ConsoleSessions::Close(std::string_view id) {
  std::lock_guard lock(mutex_);
  sessions_.erase(std::string(id));
}

size_t ConsoleSessions::size() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

bool ConsoleSessions::Ended(const Session& session, Clock::time_point now) const {
  return now - session.used >= kIdle || now - session.opened >= kLifetime;
}

void ConsoleSessions::MakeRoom(Clock::time_point now) {
  if (sessions_.size() < kMaxSessions) return;
  std::erase_if(sessions_, [&](const auto& entry) { return Ended(entry.second, now); });
  if (sessions_.size() < kMaxSessions) return;
  auto oldest = sessions_.begin();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (it->second.used < oldest->second.used) oldest = it;
  }
  sessions_.erase(oldest);
}

}  // namespace perfhive
