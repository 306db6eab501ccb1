// Compacted groups' rows as decoded, kept for the reads that come back to them. A query lists a
// host's samples several times (the sample before its range, the range, the sample after), and
// each listing would otherwise decode the same block's members again: 360 of them for a merged
// block, most of a short range's listing.

#ifndef PERFHIVE_STORE_BLOCK_ROW_CACHE_H_
#define PERFHIVE_STORE_BLOCK_ROW_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "store/block_rows.h"

namespace perfhive {

// Thread-safe; rows are shared, never changed. A row is known by its id, its greatest member id
// and its member count: merging another block into it changes the last two, and ids are not
// given twice by a process, so a cached row is never one the database no longer holds as such.
class BlockRowCache {
 public:
  // Holds rows of `max_members` members in all at most, the least recently used dropped first.
  explicit BlockRowCache(size_t max_members) : max_members_(max_members) {}

  // The row cached for block `id` with that last member id and member count, or null.
  std::shared_ptr<const BlockRow> Find(int64_t id, int64_t last_id, int64_t snapshots);
  void Put(std::shared_ptr<const BlockRow> row);

 private:
  using Key = std::tuple<int64_t, int64_t, int64_t>;
  struct Entry {
    std::shared_ptr<const BlockRow> row;
    std::list<Key>::iterator use;
  };
  static Key KeyOf(const BlockRow& row);

  const size_t max_members_;
  std::mutex mutex_;
  std::map<Key, Entry> rows_;
  std::list<Key> uses_;  // most recently used first
  size_t members_ = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_BLOCK_ROW_CACHE_H_
