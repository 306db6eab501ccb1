// A snapshot's SystemTime (the host's UTC clock, as SYSTEMTIME) as Unix nanoseconds, the time the
// store orders and selects samples by.

#ifndef PERFHIVE_STORE_SAMPLE_TIME_H_
#define PERFHIVE_STORE_SAMPLE_TIME_H_

#include <cstdint>

#include "base/status.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {

// An error names the field that is out of range (month 13, February 30, ...).
Result<int64_t> UnixNanosFromSystemTime(const SystemTime& time);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_SAMPLE_TIME_H_
