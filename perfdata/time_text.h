// Times as people and scripts write them: RFC 3339 in UTC ("2026-11-22T10:00:01Z", with
// fractional seconds when there are any), and relative spans ("10m", "2h", "1d").

#ifndef PERFHIVE_PERFDATA_TIME_TEXT_H_
#define PERFHIVE_PERFDATA_TIME_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {

// Unix nanoseconds as RFC 3339 UTC. With `fraction_digits` -1, milliseconds are written when not
// zero and nanoseconds when finer; 0 to 9 writes exactly that many digits (truncated).
std::string FormatRfc3339(int64_t unix_nanos, int fraction_digits = -1);

// A data block's SYSTEMTIME as written, always with milliseconds: "2026-11-22T10:00:01.250Z".
// Not checked: a malformed one is shown as it is.
std::string FormatSystemTime(const SystemTime& time);

// "2026-11-22T10:00:01Z", "2026-11-22T10:00:01.250Z", "2026-11-22T11:00:01+01:00",
// "2026-11-22 10:00:01Z" (a space for the T). Errors point at what is wrong.
Result<int64_t> ParseRfc3339(std::string_view text);

// "90s", "10m", "2h", "1d", "1w", "500ms" as nanoseconds.
Result<int64_t> ParseSpan(std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TIME_TEXT_H_
