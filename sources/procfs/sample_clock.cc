#include "sources/procfs/sample_clock.h"

namespace perfhive {
namespace {

timespec ReadClock(clockid_t clock) {
  timespec time{};
  clock_gettime(clock, &time);
  return time;
}

int64_t To100ns(const timespec& time) {
  return static_cast<int64_t>(time.tv_sec) * 10'000'000 + time.tv_nsec / 100;
}

}  // namespace

int64_t FiletimeFromTimespec(const timespec& time) {
  return To100ns(time) + kFiletimeUnixEpochSeconds * 10'000'000;
}

SystemTime SystemTimeFromTimespec(const timespec& time) {
  tm utc{};
  gmtime_r(&time.tv_sec, &utc);
  SystemTime out;
  out.year = static_cast<uint16_t>(utc.tm_year + 1900);
  out.month = static_cast<uint16_t>(utc.tm_mon + 1);
  out.day_of_week = static_cast<uint16_t>(utc.tm_wday);
  out.day = static_cast<uint16_t>(utc.tm_mday);
  out.hour = static_cast<uint16_t>(utc.tm_hour);
  out.minute = static_cast<uint16_t>(utc.tm_min);
  out.second = static_cast<uint16_t>(utc.tm_sec);
  out.milliseconds = static_cast<uint16_t>(time.tv_nsec / 1'000'000);
  return out;
}

SampleClock SampleClock::Now() {
  SampleClock clock;
  timespec monotonic = ReadClock(CLOCK_MONOTONIC);
  timespec real = ReadClock(CLOCK_REALTIME);
  clock.perf_time = To100ns(monotonic);
  clock.filetime = FiletimeFromTimespec(real);
  clock.system_time = SystemTimeFromTimespec(real);
  return clock;
}

}  // namespace perfhive
