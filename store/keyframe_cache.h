// KeyframeCache: the raw bytes of each stream's current keyframe, which the writer makes deltas
// against, kept in memory up to a byte budget (least recently used dropped first). A dropped or
// unknown keyframe is read back from the database by the store.

#ifndef PERFHIVE_STORE_KEYFRAME_CACHE_H_
#define PERFHIVE_STORE_KEYFRAME_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "store/snapshot_sections.h"

namespace perfhive {

// The open group of one (host, query) stream.
struct Keyframe {
  int64_t id = 0;                         // the keyframe's snapshot id
  std::vector<uint8_t> raw;               // its restored bytes
  std::vector<SnapshotSection> sections;  // as its frame stores them
  int64_t frame_size = 0;                 // its frame's size in the database
  int members = 0;                        // snapshots in the group so far, the keyframe included
};

class KeyframeCache {
 public:
  explicit KeyframeCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The stream's keyframe, or null; valid until the next Put() or Clear().
  Keyframe* Find(int64_t host_id, const std::string& query);
  void Put(int64_t host_id, const std::string& query, Keyframe keyframe);
  // Drops the stream's entry if it is the group of `keyframe_id`: that group takes no more
  // members (it was compacted), so the stream's next append starts a new one.
  void Forget(int64_t host_id, const std::string& query, int64_t keyframe_id);
  void Clear();

 private:
  using Key = std::pair<int64_t, std::string>;
  using Entries = std::list<std::pair<Key, Keyframe>>;  // most recently used first

  size_t max_bytes_;
  size_t bytes_ = 0;
  Entries entries_;
  std::map<Key, Entries::iterator> index_;
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_KEYFRAME_CACHE_H_
