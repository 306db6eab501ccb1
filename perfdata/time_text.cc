#include "perfdata/time_text.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>

namespace perfhive {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  year -= month <= 2;
  int64_t era = (year >= 0 ? year : year - 399) / 400;
  unsigned year_of_era = static_cast<unsigned>(year - era * 400);
  unsigned day_of_year = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + static_cast<int64_t>(day_of_era) - 719468;
}

void CivilFromDays(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  unsigned day_of_era = static_cast<unsigned>(days - era * 146097);
  unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  unsigned mp = (5 * day_of_year + 2) / 153;
  day = day_of_year - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(year_of_era) + era * 400 + (month <= 2);
}

bool IsLeap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

unsigned DaysInMonth(int64_t year, unsigned month) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

// Reads exactly `digits` decimal digits at `at`.
bool ReadDigits(std::string_view text, size_t& at, int digits, int64_t& value) {
  if (at + digits > text.size()) return false;
  value = 0;
  for (int i = 0; i < digits; ++i) {
    char c = text[at + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  at += digits;
  return true;
}

Status BadTime(std::string_view text, size_t at, std::string_view expected) {
  return Status::InvalidArgument("bad time \"" + std::string(text) + "\" at character " +
                                 std::to_string(at + 1) + ": expected " + std::string(expected) +
                                 " (RFC 3339, e.g. 2026-11-22T10:00:01Z)")
      .WithColumn(at + 1);
}

}  // namespace

std::string FormatRfc3339(int64_t unix_nanos, int fraction_digits) {
  int64_t seconds = unix_nanos / kNanosPerSecond;
  int64_t nanos = unix_nanos % kNanosPerSecond;
  if (nanos < 0) {
    nanos += kNanosPerSecond;
    --seconds;
  }
  int64_t days = seconds / 86400;
  int64_t second_of_day = seconds % 86400;
  if (second_of_day < 0) {
    second_of_day += 86400;
    --days;
  }
  int64_t year;
  unsigned month, day;
  CivilFromDays(days, year, month, day);
  char text[48];
  int length = std::snprintf(
      text, sizeof text, "%04lld-%02u-%02uT%02lld:%02lld:%02lld", static_cast<long long>(year),
      month, day, static_cast<long long>(second_of_day / 3600),
      static_cast<long long>(second_of_day / 60 % 60), static_cast<long long>(second_of_day % 60));
  std::string result(text, static_cast<size_t>(length));
  if (fraction_digits < 0) {
    fraction_digits = nanos == 0 ? 0 : nanos % 1'000'000 == 0 ? 3 : 9;
  }
  if (fraction_digits > 0) {
    std::snprintf(text, sizeof text, ".%09lld", static_cast<long long>(nanos));
    result.append(text, static_cast<size_t>(std::min(fraction_digits, 9) + 1));
  }
  return result + "Z";
}

std::string FormatSystemTime(const SystemTime& time) {
  char text[64];
  std::snprintf(text, sizeof text, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", time.year, time.month,
                time.day, time.hour, time.minute, time.second, time.milliseconds);
  return text;
}

Result<int64_t> ParseRfc3339(std::string_view text) {
  size_t at = 0;
  int64_t year, month, day, hour, minute, second;
  if (!ReadDigits(text, at, 4, year)) return BadTime(text, at, "a four-digit year");
  if (at >= text.size() || text[at++] != '-') return BadTime(text, at - 1, "'-'");
  if (!ReadDigits(text, at, 2, month) || month < 1 || month > 12) {
    return BadTime(text, at, "a month 01-12");
  }
  if (at >= text.size() || text[at++] != '-') return BadTime(text, at - 1, "'-'");
  if (!ReadDigits(text, at, 2, day) || day < 1 ||
      day > DaysInMonth(year, static_cast<unsigned>(month))) {
    return BadTime(text, at, "a day of that month");
  }
  if (at >= text.size() || (text[at] != 'T' && text[at] != 't' && text[at] != ' ')) {
    return BadTime(text, at, "'T' and a time of day");
  }
  ++at;
  if (!ReadDigits(text, at, 2, hour) || hour > 23) return BadTime(text, at, "an hour 00-23");
  if (at >= text.size() || text[at++] != ':') return BadTime(text, at - 1, "':'");
  if (!ReadDigits(text, at, 2, minute) || minute > 59) return BadTime(text, at, "minutes 00-59");
  if (at >= text.size() || text[at++] != ':') return BadTime(text, at - 1, "':'");
  if (!ReadDigits(text, at, 2, second) || second > 60) return BadTime(text, at, "seconds 00-60");
  int64_t nanos = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    int digits = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (digits < 9) nanos = nanos * 10 + (text[at] - '0');
      ++digits;
      ++at;
    }
    if (digits == 0) return BadTime(text, at, "digits after '.'");
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  int64_t offset_seconds = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int sign = text[at++] == '-' ? -1 : 1;
    int64_t offset_hours, offset_minutes;
    if (!ReadDigits(text, at, 2, offset_hours) || offset_hours > 23) {
      return BadTime(text, at, "an offset hour");
    }
    if (at >= text.size() || text[at++] != ':') return BadTime(text, at - 1, "':'");
    if (!ReadDigits(text, at, 2, offset_minutes) || offset_minutes > 59) {
      return BadTime(text, at, "offset minutes");
    }
    offset_seconds = sign * (offset_hours * 3600 + offset_minutes * 60);
  } else {
    return BadTime(text, at, "'Z' or an offset such as +01:00");
  }
  if (at != text.size()) return BadTime(text, at, "the end");
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  // Unix nanoseconds in 64 bits reach from 1677-09-21 to 2262-04-11.
  if (seconds >= INT64_MAX / kNanosPerSecond || seconds <= INT64_MIN / kNanosPerSecond) {
    return Status::InvalidArgument("\"" + std::string(text) +
                                   "\" is out of range: times from 1678 to 2261 are held");
  }
  return seconds * kNanosPerSecond + nanos;
}

Result<int64_t> ParseSpan(std::string_view text) {
  int64_t count = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  std::string_view unit(end, static_cast<size_t>(text.data() + text.size() - end));
  int64_t scale = 0;
  if (unit == "ms") scale = 1'000'000;
  if (unit == "s") scale = kNanosPerSecond;
  if (unit == "m") scale = 60 * kNanosPerSecond;
  if (unit == "h") scale = 3600 * kNanosPerSecond;
  if (unit == "d") scale = 86400 * kNanosPerSecond;
  if (unit == "w") scale = 7 * 86400 * kNanosPerSecond;
  if (error != std::errc() || end == text.data() || count < 0 || scale == 0) {
    return Status::InvalidArgument(
        "bad span \"" + std::string(text) +
        "\": expected a number and a unit (ms, s, m, h, d, w), e.g. 10m");
  }
  if (count > INT64_MAX / scale) {
    return Status::InvalidArgument("span \"" + std::string(text) + "\" is too long");
  }
  return count * scale;
}

}  // namespace perfhive
