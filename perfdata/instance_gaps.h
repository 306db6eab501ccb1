// Instances that went and came back: a service restarted, a provider unloaded and reloaded, a
// disk or network adapter that dropped out for a while. The object is still there, so nothing at
// the object's level says so; its charts have a hole and its alerts a reset. The ingest follows
// each stream's snapshots through an InstanceGapTracker, and the store keeps the gaps it closes
// (docs/health.md, "Instances that come and go").
//
// An instance is its name (decoded, as paths name it); instances that share a name (svchost) are
// one. What counts as a gap keeps out the churn that is normal: the instance had been there at
// least kSettledPresence before it went, and it came back within kLongestGap. Objects with more
// than kMostInstancesFollowed instances (Process and Thread on a busy host, whose instances come
// and go all day) are not followed; a restarted service shows in its own objects. A snapshot
// without the object says nothing of its instances (the object's own gap is its finding).

#ifndef PERFHIVE_PERFDATA_INSTANCE_GAPS_H_
#define PERFHIVE_PERFDATA_INSTANCE_GAPS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/snapshot_reader.h"

namespace perfhive {

struct InstanceGap {
  uint32_t object_index = 0;  // the object's name title index
  std::string instance;       // its name, UTF-8
  int64_t gone_ns = 0;        // the sample time of the first snapshot without it
  int64_t back_ns = 0;        // and of the first with it again
  bool operator==(const InstanceGap&) const = default;
};

inline constexpr int64_t kSettledPresenceNs = 5LL * 60 * 1'000'000'000;
inline constexpr int64_t kLongestGapNs = 15LL * 60 * 1'000'000'000;
inline constexpr int32_t kMostInstancesFollowed = 256;

// Follows the instances of one stream's snapshots (one host and query), in the order taken.
class InstanceGapTracker {
 public:
  // Notes `snapshot`, taken at `sample_ns`; returns the gaps it closes, in the snapshot's order. A
  // snapshot older than the last one noted (a clock stepped back) starts afresh.
  std::vector<InstanceGap> Note(const SnapshotReader& snapshot, int64_t sample_ns);

 private:
  struct Seen {
    int64_t first_ns = 0;  // since when it has been there without a gap
    int64_t last_ns = 0;   // the last snapshot with it
    int64_t gone_ns = 0;   // the first snapshot without it after last_ns; 0: not gone
  };
  // Names are looked up as the snapshot stores them (raw bytes), without a copy.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  // An object's instances by their names' raw bytes, and when the object was last in a snapshot.
  struct FollowedObject {
    std::unordered_map<std::string, Seen, NameHash, std::equal_to<>> instances;
    int64_t last_ns = 0;
  };

  std::unordered_map<uint32_t, FollowedObject> objects_;
  int64_t last_ns_ = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_INSTANCE_GAPS_H_
