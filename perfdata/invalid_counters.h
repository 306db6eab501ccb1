// Counters that gave no valid value between two consecutive snapshots of one host and query:
// every instance's value failed PDH's checks (a time base that did not advance, a count that went
// backwards, a base that is missing or went backwards; docs/counter_math.md, "Statuses"). One
// pair says little (a service restarted and its 8-byte counts began again); a counter that stays
// so, snapshot after snapshot, is one no chart or alert can use, and nothing else says so. The
// ingest finds them for every pair it receives and the store keeps each run
// (docs/health.md, "Counters without a valid value").

#ifndef PERFHIVE_PERFDATA_INVALID_COUNTERS_H_
#define PERFHIVE_PERFDATA_INVALID_COUNTERS_H_

#include <cstdint>
#include <vector>

#include "perfdata/pdh_status.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {

struct InvalidCounter {
  uint32_t object_index = 0;                   // the object's name title index
  uint32_t counter_index = 0;                  // the counter's name title index
  PdhStatus status = PdhStatus::kInvalidData;  // its first instance's status
  bool operator==(const InvalidCounter&) const = default;
};

// The counters of `newer` that have at least one value and no valid one against `older`, the
// snapshot before it of the same host and query, ordered by object and counter index, each once.
// Not counted as values: types that carry no number (text, no-data, bases: PDH_NO_DATA), and
// two-sample values of an instance or counter `older` lacks (a new process's first interval is
// invalid in PDH too, and says nothing about the counter). An object whose index repeats is
// one object.
std::vector<InvalidCounter> FindInvalidCounters(const SnapshotReader& older,
                                                const SnapshotReader& newer);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_INVALID_COUNTERS_H_
