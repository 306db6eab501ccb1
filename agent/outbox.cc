#include "agent/outbox.h"

#include <algorithm>

namespace perfhive {

Outbox::Outbox(Spool& spool, uint64_t memory_limit_bytes, Logger& log)
    : spool_(spool), memory_limit_bytes_(memory_limit_bytes), log_(log) {
  for (Spool::Entry& recovered : spool_.TakeRecovered()) {
    Entry& entry = entries_.emplace_back();
    entry.instance_id = recovered.record.instance_id;
    entry.sequence = recovered.record.sequence;
    entry.spool_id = recovered.id;
  }
}

void Outbox::Push(SnapshotRecord record) {
  std::lock_guard lock(mutex_);
  Entry entry;
  entry.instance_id = record.instance_id;
  entry.sequence = record.sequence;
  entry.record = std::make_shared<const SnapshotRecord>(std::move(record));
  memory_bytes_ += entry.record->raw.size();
  entries_.push_back(std::move(entry));
  // Not spoolable (a full disk): kept in memory rather than lost now.
  if (!connected_ || memory_bytes_ > memory_limit_bytes_) SpillLocked(std::prev(entries_.end()));
  PurgeDroppedLocked();
  changed_.notify_all();
}

Outbox::Spilled Outbox::SpillLocked(std::list<Entry>::iterator it) {
  if (it->record == nullptr) return Spilled::kYes;
  Result<Spool::Appended> appended = spool_.Append(*it->record);
  if (!appended.ok()) {
    log_.Error(appended.error());
    if (appended.status().code() != StatusCode::kResourceExhausted) return Spilled::kNo;
    // Larger than the whole spool: it can never be kept.
    ++lost_;
    RemoveEntryLocked(it);
    return Spilled::kLost;
  }
  memory_bytes_ -= it->record->raw.size();
  it->record = nullptr;
  it->spool_id = appended->id;
  ForgetDroppedLocked(appended->dropped);
  return Spilled::kYes;
}

void Outbox::ForgetDroppedLocked(const std::vector<uint64_t>& spool_ids) {
  if (spool_ids.empty()) return;
  lost_ += spool_ids.size();
  // Only marked here: callers may be walking the list.
  for (Entry& entry : entries_) {
    if (entry.spool_id &&
        std::find(spool_ids.begin(), spool_ids.end(), *entry.spool_id) != spool_ids.end()) {
      entry.dropped = true;
    }
  }
}

void Outbox::PurgeDroppedLocked() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->dropped) {
      if (it->sent) --in_flight_;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

void Outbox::SetConnected(bool connected) {
  std::lock_guard lock(mutex_);
  connected_ = connected;
  in_flight_ = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto current = it++;
    current->sent = false;
    if (!connected) SpillLocked(current);
  }
  PurgeDroppedLocked();
  changed_.notify_all();
}

std::shared_ptr<const SnapshotRecord> Outbox::NextToSend(size_t window,
                                                         const std::atomic<bool>& interrupted) {
  std::unique_lock lock(mutex_);
  while (true) {
    auto next = entries_.end();
    changed_.wait(lock, [&] {
      if (interrupted.load()) return true;
      if (in_flight_ >= window) return false;
      next = std::find_if(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.sent; });
      return next != entries_.end();
    });
    if (interrupted.load()) return nullptr;
    next->sent = true;
    ++in_flight_;
    if (next->record != nullptr) return next->record;
    uint64_t spool_id = *next->spool_id;
    lock.unlock();
    Result<SnapshotRecord> record = spool_.Read(spool_id);
    lock.lock();
    if (record.ok()) return std::make_shared<const SnapshotRecord>(std::move(record).value());
    log_.Warning(record.error());
    ++lost_;
    // Still where it was unless the server answered or the spool dropped it meanwhile.
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->spool_id == spool_id) {
        RemoveEntryLocked(it);
        break;
      }
    }
  }
}

void Outbox::Wake() {
  std::lock_guard lock(mutex_);
  changed_.notify_all();
}

void Outbox::RemoveEntryLocked(std::list<Entry>::iterator it) {
  if (it->sent) --in_flight_;
  if (it->record != nullptr) memory_bytes_ -= it->record->raw.size();
  if (it->spool_id) spool_.Remove(*it->spool_id);
  entries_.erase(it);
  changed_.notify_all();
}

void Outbox::Remove(const std::string& instance_id, uint64_t sequence) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->sequence == sequence && it->instance_id == instance_id) {
      RemoveEntryLocked(it);
      return;
    }
  }
}

void Outbox::RemoveThrough(const std::string& instance_id, uint64_t sequence) {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto current = it++;
    if (current->instance_id == instance_id && current->sequence <= sequence) {
      RemoveEntryLocked(current);
    }
  }
}

void Outbox::SpillAll() {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) SpillLocked(it++);
  PurgeDroppedLocked();
}

size_t Outbox::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

uint64_t Outbox::lost() const {
  std::lock_guard lock(mutex_);
  return lost_;
}

}  // namespace perfhive
