#include "query/units.h"

#include "perfdata/winperf.h"

namespace perfhive::query {

std::string UnitOf(uint32_t type, std::string_view counter_name) {
  const bool bytes = counter_name.find("Bytes") != std::string_view::npos ||
                     counter_name.find("bytes") != std::string_view::npos;
  if (type == winperf::kElapsedTime || type == winperf::kAverageTimer) return "s";
  switch (type & winperf::kDisplayMask) {
    case winperf::kDisplayPercent:
      return "%";
    case winperf::kDisplayPerSec:
      return bytes ? "bytes/sec" : "/sec";
    case winperf::kDisplaySeconds:
      return "s";
    default:
      return bytes ? "bytes" : "";
  }
}

}  // namespace perfhive::query
