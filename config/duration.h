// Durations as people write them in flags and the config file: "10s", "100ms", "5m", "1h",
// "1m30s".

#ifndef PERFHIVE_CONFIG_DURATION_H_
#define PERFHIVE_CONFIG_DURATION_H_

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

// One or more <integer><unit> parts, units ms, s, m, h; the result must be positive. An error
// names the text and what was expected.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// The shortest text ParseDuration reads back to `duration` ("10s", "1m30s", "250ms").
std::string FormatDuration(std::chrono::milliseconds duration);

}  // namespace perfhive

#endif  // PERFHIVE_CONFIG_DURATION_H_
