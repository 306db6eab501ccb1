// InventoryVersion: what a host's snapshots of one query held (perfdata/snapshot_inventory.h)
// from a sample time on, as the store records it each time it changes, with what the host said
// of itself then: the history the fleet's counter health (query/counter_health.h) reads.

#ifndef PERFHIVE_QUERY_INVENTORY_HISTORY_H_
#define PERFHIVE_QUERY_INVENTORY_HISTORY_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "perfdata/disabled_provider.h"
#include "perfdata/invalid_counters.h"
#include "perfdata/snapshot_inventory.h"

namespace perfhive::query {

struct InventoryVersion {
  std::string query;     // the agent's query: "Global", "Costly", "230 238"
  int64_t since_ns = 0;  // the sample time of the first snapshot holding it
  SnapshotInventory inventory;
  std::string agent_version;  // the host's when it was recorded
  std::string os_version;
  std::string plan_revision;
};

// A host's inventory versions: of each query, every one recorded, by query then time.
struct HostInventories {
  std::string host;
  std::vector<InventoryVersion> versions;
};

// What a host's agent reports it lost of the host's data since it started, and when a count last
// grew (server clock).
struct CollectionLosses {
  int64_t agent_started_ns = 0;
  uint64_t skipped_ticks = 0;  // a read still running when the next was due
  uint64_t failed_reads = 0;   // snapshots that could not be taken
  uint64_t dropped = 0;        // dropped by the spool's limit while unsent
  uint64_t refused = 0;        // refused by the server
  uint64_t unreadable = 0;     // spooled, then unreadable
  uint64_t unspoolable = 0;    // larger than the whole spool
  int64_t grew_ns = 0;

  uint64_t lost() const { return dropped + refused + unreadable + unspoolable; }
  bool operator==(const CollectionLosses&) const = default;
};

// A provider its host's agent reports disabled, since the server first heard so (server clock).
struct DisabledProviderSince {
  DisabledProvider provider;
  int64_t since_ns = 0;
};

// A host's counter that has had no valid value since `since_ns` (perfdata/invalid_counters.h),
// as the store keeps it: the sample time of the newer snapshot of the run's first pair. The store
// keeps a run from its second pair on (one pair alone is a reset, not a fault) while it lasts.
struct InvalidCounterRun {
  std::string query;       // the agent's query whose snapshots showed it
  InvalidCounter counter;  // with the status of the run's first value
  int64_t since_ns = 0;
};

// How long a host's source took to return each object asked for alone, as its agent last
// reported a sweep over them (docs/health.md, "Slow objects").
struct ObjectTiming {
  uint32_t object_index = 0;
  int64_t nanos = 0;
  uint64_t bytes = 0;
  std::string error;  // the read failed: why
};
struct ObjectTimings {
  int64_t measured_ns = 0;  // when the sweep ended (agent clock)
  int64_t interval_ns = 0;  // the agent's sampling interval then
  std::vector<ObjectTiming> objects;
};

// An object that takes this long alone is slow: a second, or a tenth of the agent's interval
// when that is shorter (0: not known), since its read then delays every tick's by that much.
inline std::chrono::nanoseconds SlowObjectThreshold(std::chrono::nanoseconds interval) {
  const std::chrono::nanoseconds second = std::chrono::seconds(1);
  return interval.count() > 0 ? std::min(second, interval / 10) : second;
}

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_INVENTORY_HISTORY_H_
