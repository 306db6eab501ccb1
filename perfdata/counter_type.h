// Names and properties of CounterType values (PERF_COUNTER_COUNTER, ...).

#ifndef PERFHIVE_PERFDATA_COUNTER_TYPE_H_
#define PERFHIVE_PERFDATA_COUNTER_TYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfhive {

// The winperf.h name of a counter type ("PERF_100NSEC_TIMER"), or the type in hex
// ("0x12345678") when it has none.
std::string CounterTypeName(uint32_t type);

// The type whose winperf.h name this is, if any.
std::optional<uint32_t> CounterTypeFromName(std::string_view name);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_COUNTER_TYPE_H_
