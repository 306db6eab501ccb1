#include "agent/object_sweep.h"

#include <algorithm>
#include <string>
#include <utility>

#include "perfdata/snapshot_reader.h"
#include "port/env.h"

namespace perfhive {

std::vector<uint32_t> ObjectSweep::Due(Clock::time_point now) {
  if (!active_ && now >= due_) {
    active_ = true;
    seen_.clear();
    pending_.clear();
    timed_.clear();
  }
  if (!active_) return {};
  return std::vector<uint32_t>(pending_.begin(), pending_.end());
}

std::vector<v1::ObjectTiming> ObjectSweep::Time(SnapshotSource& source,
                                                std::span<const uint32_t> objects,
                                                Clock::duration budget) {
  std::vector<v1::ObjectTiming> timed;
  const Clock::time_point start = Clock::now();
  for (uint32_t object : objects) {
    if (!timed.empty() && Clock::now() - start >= budget) break;
    const Clock::time_point asked = Clock::now();
    Result<std::vector<uint8_t>> reply = source.TakeSnapshot(std::to_string(object));
    const Clock::duration took = Clock::now() - asked;
    v1::ObjectTiming& timing = timed.emplace_back();
    timing.set_object_index(object);
    timing.set_nanos(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
    if (reply.ok()) {
      timing.set_bytes(reply->size());
    } else {
      timing.set_error(reply.error());
    }
  }
  // Warnings of these reads are the sweep's, not the next snapshot's: dropped.
  source.TakeWarnings();
  return timed;
}

std::optional<v1::ObjectTimings> ObjectSweep::Note(std::vector<v1::ObjectTiming> timed,
                                                   const std::vector<uint8_t>* snapshot,
                                                   Clock::time_point now,
                                                   std::chrono::nanoseconds interval) {
  if (!active_) return std::nullopt;
  for (v1::ObjectTiming& timing : timed) {
    auto at = std::find(pending_.begin(), pending_.end(), timing.object_index());
    if (at == pending_.end()) continue;  // a sweep ended and began since it was handed out
    pending_.erase(at);
    timed_.push_back(std::move(timing));
  }
  if (snapshot != nullptr) {
    if (Result<SnapshotReader> reader = SnapshotReader::Open(*snapshot); reader.ok()) {
      for (const ObjectView& object : reader->objects()) {
        if (!object.has_data()) continue;
        if (seen_.insert(object.name_index()).second) pending_.push_back(object.name_index());
      }
    }
  }
  if (!pending_.empty() || timed_.empty()) return std::nullopt;
  v1::ObjectTimings sweep;
  sweep.set_measured_unix_nanos(UnixNanosNow());
  sweep.set_interval_nanos(interval.count());
  std::sort(timed_.begin(), timed_.end(), [](const v1::ObjectTiming& a, const v1::ObjectTiming& b) {
    return a.object_index() < b.object_index();
  });
  for (v1::ObjectTiming& timing : timed_) *sweep.add_objects() = std::move(timing);
  timed_.clear();
  active_ = false;
  due_ = now + every_;
  return sweep;
}

}  // namespace perfhive
