#include "cli/time_display.h"

#include <algorithm>

#include "perfdata/time_text.h"

namespace perfhive::cli {

std::string AgoText(int64_t then_ns, int64_t now_ns) {
  const int64_t seconds = std::max<int64_t>(0, (now_ns - then_ns) / 1'000'000'000);
  if (seconds < 120) return std::to_string(seconds) + "s ago";
  if (seconds < 2 * 3600) return std::to_string(seconds / 60) + "m ago";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h ago";
  return std::to_string(seconds / 86400) + "d ago";
}

std::string SinceText(int64_t unix_nanos, int64_t now_ns) {
  if (unix_nanos == 0) return "-";
  return FormatRfc3339(unix_nanos, 0) + " (" + AgoText(unix_nanos, now_ns) + ")";
}

}  // namespace perfhive::cli
