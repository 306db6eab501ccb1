// Times in the JSON answers (proto/alerts_json.h, proto/health_json.h): Unix milliseconds, as
// JavaScript's Date takes them, and null where the answer has none.

#ifndef PERFHIVE_PROTO_JSON_TIMES_H_
#define PERFHIVE_PROTO_JSON_TIMES_H_

#include <cstdint>
#include <nlohmann/json.hpp>

namespace perfhive {

// `unix_nanos` in milliseconds; null for 0 (unset).
inline nlohmann::ordered_json MillisOrNull(int64_t unix_nanos) {
  if (unix_nanos == 0) return nullptr;
  return unix_nanos / 1'000'000;
}

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_JSON_TIMES_H_
