#include "agent/logger.h"

#include <cstdio>

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
  using namespace std::chrono;
  auto now = floor<milliseconds>(env_.SystemNow());
  auto day = floor<days>(now);
  year_month_day date(day);
  hh_mm_ss time(now - day);
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<int>(time.hours().count()),
                static_cast<int>(time.minutes().count()), static_cast<int>(time.seconds().count()),
                static_cast<int>(time.subseconds().count()));
  out_ << stamp << ' ' << LevelName(level) << ' ' << message << '\n';
  out_.flush();
}

}  // namespace perfhive
