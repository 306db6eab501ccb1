#include "server/server_log.h"

#include <cstdio>

#include "perfdata/time_text.h"

namespace perfhive {
namespace {

std::string Timestamp() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return FormatRfc3339(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(), 3);
}

// Values with spaces, quotes or '=' are quoted so that the line splits unambiguously.
std::string Quoted(std::string_view value) {
  bool plain = !value.empty() && value.find_first_of(" \"=\n\t") == std::string_view::npos;
  if (plain) return std::string(value);
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c == '\n' ? ' ' : c;
  }
  return quoted + "\"";
}

}  // namespace

void ServerLog::WarnOncePerBurst(std::string_view event, const std::string& key,
                                 const Fields& fields) {
  uint64_t repeated = 0;
  {
    std::lock_guard lock(mutex_);
    auto now = std::chrono::steady_clock::now();
    auto [it, first] = bursts_.try_emplace(std::string(event) + "/" + key, Burst{now, 0});
    if (!first && now - it->second.started < burst_window_) {
      ++it->second.suppressed;
      return;
    }
    repeated = it->second.suppressed;
    it->second = Burst{now, 0};
  }
  Write("warn", event, fields, repeated);
}

void ServerLog::Write(std::string_view level, std::string_view event, const Fields& fields,
                      uint64_t repeated) {
  std::string line = Timestamp() + " level=" + std::string(level) + " event=" + std::string(event);
  for (const auto& [key, value] : fields) line += " " + key + "=" + Quoted(value);
  if (repeated > 0) line += " repeated=" + std::to_string(repeated);
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace perfhive
