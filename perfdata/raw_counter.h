// RawCounter: one counter's raw sample with everything its formula may need, like PDH's
// PDH_RAW_COUNTER: the value read by CounterSize, the base (the next definition's value, for
// types that have one), the multi-counter item count, and the sample's time bases.

#ifndef PERFHIVE_PERFDATA_RAW_COUNTER_H_
#define PERFHIVE_PERFDATA_RAW_COUNTER_H_

#include <cstdint>

#include "perfdata/snapshot_reader.h"

namespace perfhive {

// The time bases of one sample: the data block's and the object's.
struct SampleTimes {
  int64_t perf_time = 0;        // block PerfTime, ticks
  int64_t perf_freq = 0;        // block PerfFreq, ticks per second
  int64_t perf_time_100ns = 0;  // block PerfTime100nSec
  int64_t object_time = 0;      // object PerfTime
  int64_t object_freq = 0;      // object PerfFreq

  static SampleTimes Of(const SnapshotReader& snapshot, const ObjectView& object) {
    return {snapshot.perf_time(), snapshot.perf_freq(), snapshot.perf_time_100ns(),
            object.perf_time(), object.perf_freq()};
  }
};

// A counter's sample as the calculator needs it. The has_* flags say what could be read; the
// calculator turns anything missing into a status, never a number.
struct RawCounter {
  uint32_t type = 0;
  uint32_t size = 0;       // CounterSize: the width deltas are computed in
  bool has_value = false;  // false for sizes other than 4 and 8 (text, no data, malformed)
  uint64_t value = 0;
  bool has_base = false;  // the type needs a base and the next definition is a readable base
  uint32_t base_size = 0;
  uint64_t base = 0;
  bool has_multi_count = false;
  uint64_t multi_count = 0;
  SampleTimes times;
};

// Whether the type takes its base from the next counter definition.
bool NeedsBase(uint32_t type);
// Whether a type is a base (or timestamp) counter, shown only through the counter it serves:
// one of winperf.h's base types with either size flag (real providers write PERF_AVERAGE_BASE
// and PERF_RAW_BASE with PERF_SIZE_LARGE: 0x40030502, 0x40030503).
bool IsBaseType(uint32_t type);

// Reads the counter `definition` of one instance; `next` is the definition after it in the
// object (nullptr for the last one), which holds the base of types that need one. The base is
// taken only when `next` is a base type with a 4- or 8-byte value, read by its own CounterSize;
// otherwise has_base stays false. The item count of a PERF_MULTI_COUNTER type comes from a
// following PERF_COUNTER_MULTI_BASE, else from the DWORD right after the value. No allocation.
RawCounter ReadRawCounter(const SampleTimes& times, const CounterDefinitionView& definition,
                          const CounterDefinitionView* next, const CounterBlockView& block);

// The same for the definition `definition` points at among object.counters(), with the times
// of `snapshot` and `object`: what a walk over a snapshot calls for every value.
RawCounter ReadRawCounter(const SnapshotReader& snapshot, const ObjectView& object,
                          CounterDefinitionRange::iterator definition,
                          const InstanceView& instance);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_RAW_COUNTER_H_
