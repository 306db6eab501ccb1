#include "store/block_row_cache.h"

#include <algorithm>

namespace perfhive {

BlockRowCache::Key BlockRowCache::KeyOf(const BlockRow& row) {
  int64_t last_id = 0;
  for (const BlockMember& member : row.members) last_id = std::max(last_id, member.id);
  return {row.id, last_id, static_cast<int64_t>(row.members.size())};
}

std::shared_ptr<const BlockRow> BlockRowCache::Find(int64_t id, int64_t last_id,
                                                    int64_t snapshots) {
  std::lock_guard lock(mutex_);
  auto found = rows_.find({id, last_id, snapshots});
  if (found == rows_.end()) return nullptr;
  uses_.splice(uses_.begin(), uses_, found->second.use);
  return found->second.row;
}

void BlockRowCache::Put(std::shared_ptr<const BlockRow> row) {
  if (row->members.size() > max_members_) return;
  const Key key = KeyOf(*row);
  std::lock_guard lock(mutex_);
  if (rows_.contains(key)) return;
  members_ += row->members.size();
  uses_.push_front(key);
  rows_.emplace(key, Entry{std::move(row), uses_.begin()});
  while (members_ > max_members_) {
    auto oldest = rows_.find(uses_.back());
    members_ -= oldest->second.row->members.size();
    rows_.erase(oldest);
    uses_.pop_back();
  }
}

}  // namespace perfhive
