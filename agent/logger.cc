#include "agent/logger.h"

#include "perfdata/display_text.h"
#include "perfdata/time_text.h"

namespace perfhive {
namespace {

std::string_view LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?";
}

}  // namespace

void Logger::Log(LogLevel level, std::string_view message) {
  std::lock_guard lock(mutex_);
  if (level == last_level_ && message == last_message_) {
    if (repeats_ == 0) first_repeat_ = env_.SteadyNow();
    ++repeats_;
    if (env_.SteadyNow() - first_repeat_ >= kMaxHoldBack) FlushLocked();
    return;
  }
  FlushLocked();
  last_level_ = level;
  last_message_ = message;
  WriteLine(level, message);
}

void Logger::Flush() {
  std::lock_guard lock(mutex_);
  FlushLocked();
}

void Logger::FlushLocked() {
  if (repeats_ == 0) return;
  WriteLine(last_level_, "(repeated " + std::to_string(repeats_) + " more times) " + last_message_);
  repeats_ = 0;
}

void Logger::WriteLine(LogLevel level, std::string_view message) {
  int64_t unix_nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(env_.SystemNow().time_since_epoch())
          .count();
  out_ << FormatRfc3339(unix_nanos, 3) << ' ' << LevelName(level) << ' '
       << EscapeForDisplay(TruncateUtf8(message, kMaxMessageBytes)) << '\n';
  out_.flush();
}

}  // namespace perfhive
