// How the CLI's tables show times: RFC 3339 in UTC to the second, with how long ago.

#ifndef PERFHIVE_CLI_TIME_DISPLAY_H_
#define PERFHIVE_CLI_TIME_DISPLAY_H_

#include <cstdint>
#include <string>

namespace perfhive::cli {

// "7m ago", "2h ago": how long before `now_ns`, roughly.
std::string AgoText(int64_t then_ns, int64_t now_ns);
// "2026-12-02T03:00:00Z (7m ago)"; "-" for 0 (unset).
std::string SinceText(int64_t unix_nanos, int64_t now_ns);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_TIME_DISPLAY_H_
