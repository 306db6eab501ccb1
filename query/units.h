// The unit a counter's value is shown in, from its type's display bits (PERF_DISPLAY_PERCENT,
// _PER_SEC, _SECONDS) and, since no type says "bytes", from its English name.

#ifndef PERFHIVE_QUERY_UNITS_H_
#define PERFHIVE_QUERY_UNITS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace perfhive::query {

// "%", "/sec", "bytes", "bytes/sec", "s", or "" for a plain number.
std::string UnitOf(uint32_t type, std::string_view counter_name);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_UNITS_H_
