#include "store/keyframe_cache.h"

namespace perfhive {

Keyframe* KeyframeCache::Find(int64_t host_id, const std::string& query) {
  auto found = index_.find(Key(host_id, query));
  if (found == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, found->second);
  return &found->second->second;
}

void KeyframeCache::Put(int64_t host_id, const std::string& query, Keyframe keyframe) {
  Key key(host_id, query);
  if (auto found = index_.find(key); found != index_.end()) {
    bytes_ -= found->second->second.raw.size();
    entries_.erase(found->second);
    index_.erase(found);
  }
  bytes_ += keyframe.raw.size();
  entries_.emplace_front(key, std::move(keyframe));
  index_[key] = entries_.begin();
  // The newest entry stays even when it alone is over the budget: it is about to be used.
  while (bytes_ > max_bytes_ && entries_.size() > 1) {
    bytes_ -= entries_.back().second.raw.size();
    index_.erase(entries_.back().first);
    entries_.pop_back();
  }
}

void KeyframeCache::Forget(int64_t host_id, const std::string& query, int64_t keyframe_id) {
  auto found = index_.find(Key(host_id, query));
  if (found == index_.end() || found->second->second.id != keyframe_id) return;
  bytes_ -= found->second->second.raw.size();
  entries_.erase(found->second);
  index_.erase(found);
}

void KeyframeCache::Clear() {
  entries_.clear();
  index_.clear();
  bytes_ = 0;
}

}  // namespace perfhive
