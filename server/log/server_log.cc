#include "server/log/server_log.h"

#include "perfdata/display_text.h"
#include "perfdata/time_text.h"

namespace perfhive {
namespace {

std::string Timestamp() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  return FormatRfc3339(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count(), 3);
}

// The value as the log shows it: escaped, cut, and quoted when it would not split as one value.
std::string Quoted(std::string_view value) {
  std::string shown = EscapeForDisplay(TruncateUtf8(value, ServerLog::kMaxValueBytes));
  bool plain = !shown.empty() && shown.find_first_of(" \"=") == std::string::npos;
  if (plain) return shown;
  std::string quoted = "\"";
  for (char c : shown) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

void ServerLog::WarnOncePerBurst(std::string_view event, const std::string& key,
                                 const Fields& fields) {
  uint64_t repeated = 0;
  uint64_t forgotten = 0;
  bool suppressed = false;
  {
    std::lock_guard lock(mutex_);
    auto now = std::chrono::steady_clock::now();
    std::string burst_key = std::string(event) + "/" + key;
    if (bursts_.size() >= kMaxBurstKeys && !bursts_.contains(burst_key)) {
      forgotten = ForgetEndedBursts(now);
      // Every key still in its window: this one joins its event's shared burst.
      if (bursts_.size() >= kMaxBurstKeys) {
        burst_key = std::string(event) + "/(keys over the limit)";
      }
    }
    auto [it, first] = bursts_.try_emplace(burst_key, Burst{now, 0});
    if (!first && now - it->second.started < burst_window_) {
      ++it->second.suppressed;
      suppressed = true;
    } else {
      repeated = it->second.suppressed;
      it->second = Burst{now, 0};
    }
  }
  if (forgotten > 0) {
    Write("warn", "bursts_forgotten", {{"keys_over", std::to_string(kMaxBurstKeys)}}, forgotten);
  }
  if (suppressed) return;
  Write("warn", event, fields, repeated);
}

uint64_t ServerLog::ForgetEndedBursts(std::chrono::steady_clock::time_point now) {
  uint64_t unreported = 0;
  std::erase_if(bursts_, [&](const auto& entry) {
    if (now - entry.second.started < burst_window_) return false;
    unreported += entry.second.suppressed;
    return true;
  });
  return unreported;
}

void ServerLog::Write(std::string_view level, std::string_view event, const Fields& fields,
                      uint64_t repeated) {
  std::string line = Timestamp() + " level=" + std::string(level) + " event=" + std::string(event);
  for (const auto& [key, value] : fields) line += " " + key + "=" + Quoted(value);
  if (repeated > 0) line += " repeated=" + std::to_string(repeated);
  line += "\n";
  // One call per line: the lines of concurrent events do not interleave.
  std::fwrite(line.data(), 1, line.size(), out_);
}

}  // namespace perfhive
