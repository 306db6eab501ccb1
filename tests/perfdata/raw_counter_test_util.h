// Helpers shared by the perfdata tests that build raw counter samples by hand.

#ifndef PERFHIVE_TESTS_PERFDATA_RAW_COUNTER_TEST_UTIL_H_
#define PERFHIVE_TESTS_PERFDATA_RAW_COUNTER_TEST_UTIL_H_

#include <cstdint>

#include "perfdata/raw_counter.h"

namespace perfhive::testing {

// `raw` with a base of `base_size` bytes (4 for the 32-bit bases most types have).
inline RawCounter WithBase(RawCounter raw, uint64_t base, uint32_t base_size = 4) {
  raw.has_base = true;
  raw.base = base;
  raw.base_size = base_size;
  return raw;
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_PERFDATA_RAW_COUNTER_TEST_UTIL_H_
