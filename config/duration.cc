#include "config/duration.h"

#include <cstdint>
#include <limits>

namespace perfhive {

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  auto error = [&](std::string_view why) {
    return Status::InvalidArgument("invalid duration \"" + std::string(text) +
                                   "\": " + std::string(why) + " (e.g. 10s, 100ms, 5m, 1h, 1m30s)");
  };
  if (text.empty()) return error("empty");
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] < '0' || text[i] > '9') return error("expected a number");
    int64_t number = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (number > (std::numeric_limits<int64_t>::max() - 9) / 10) return error("too long");
      number = number * 10 + (text[i] - '0');
      ++i;
    }
    size_t unit_start = i;
    while (i < text.size() && (text[i] < '0' || text[i] > '9')) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    int64_t scale;
    if (unit == "ms") {
      scale = 1;
    } else if (unit == "s") {
      scale = 1000;
    } else if (unit == "m") {
      scale = 60 * 1000;
    } else if (unit == "h") {
      scale = 3600 * 1000;
    } else if (unit.empty()) {
      return error("a unit is missing");
    } else {
      return error("unknown unit \"" + std::string(unit) + "\"");
    }
    if (number > (std::numeric_limits<int64_t>::max() - total) / scale) return error("too long");
    total += number * scale;
  }
  if (total == 0) return error("must be more than zero");
  return std::chrono::milliseconds(total);
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  int64_t ms = duration.count();
  if (ms == 0) return "0s";
  std::string text;
  struct Unit {
    int64_t scale;
    const char* name;
  };
  for (Unit unit : {Unit{3600 * 1000, "h"}, Unit{60 * 1000, "m"}, Unit{1000, "s"}, Unit{1, "ms"}}) {
    if (ms >= unit.scale) {
      text += std::to_string(ms / unit.scale) + unit.name;
      ms %= unit.scale;
    }
  }
  return text;
}

}  // namespace perfhive
