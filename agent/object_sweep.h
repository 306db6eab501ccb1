// ObjectSweep: once an hour, times each object of a host's snapshots asked for alone (its index
// as the query), a few a tick, and hands the whole sweep to the shipper when it ends
// (docs/health.md, "Slow objects"). A query for one object makes the source collect only that
// object's provider (Perflib calls the one provider; the procfs source reads only its files;
// a remote host answers one RegQueryValue), so the time it takes is that provider's: what no
// collector shows, and what makes a whole read slow or makes ticks skip.
//
// Due and Note run on the sampler's io thread; Time runs where the read runs.

#ifndef PERFHIVE_AGENT_OBJECT_SWEEP_H_
#define PERFHIVE_AGENT_OBJECT_SWEEP_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "perfhive/v1/ingest.pb.h"
#include "sources/snapshot_source.h"

namespace perfhive {

class ObjectSweep {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ObjectSweep(Clock::duration every = std::chrono::hours(1)) : every_(every) {}

  // At a tick: the objects to time with this tick's read, in order; empty when no sweep runs,
  // or it knows no object yet (it learns them from the snapshots, Note).
  std::vector<uint32_t> Due(Clock::time_point now);

  // Times `objects` one after another, each asked for alone, until `budget` is spent (the first
  // is always timed: a slow one is what the sweep is for).
  static std::vector<v1::ObjectTiming> Time(SnapshotSource& source,
                                            std::span<const uint32_t> objects,
                                            Clock::duration budget);

  // After the tick: what Time timed, and the tick's snapshot (null when it failed), whose
  // objects join the sweep. The finished sweep when this ended one, for the shipper.
  std::optional<v1::ObjectTimings> Note(std::vector<v1::ObjectTiming> timed,
                                        const std::vector<uint8_t>* snapshot, Clock::time_point now,
                                        std::chrono::nanoseconds interval);

 private:
  const Clock::duration every_;
  Clock::time_point due_{};  // the next sweep starts at the first tick from then
  bool active_ = false;
  std::set<uint32_t> seen_;       // queued or timed in this sweep
  std::deque<uint32_t> pending_;  // to time, in the order the snapshots hold them
  std::vector<v1::ObjectTiming> timed_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_OBJECT_SWEEP_H_
