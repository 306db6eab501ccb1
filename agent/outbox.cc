#include "agent/outbox.h"

#include <algorithm>

#include "agent/server_reports.h"
#include "wire/title_digest.h"

namespace perfhive {

Outbox::Outbox(Spool& spool, std::vector<Spool::Entry> recovered, uint64_t memory_limit_bytes,
               Logger& log)
    : spool_(spool), memory_limit_bytes_(memory_limit_bytes), log_(log) {
  for (Spool::Entry& spooled : recovered) {
    Entry& entry = entries_.emplace_back();
    entry.instance_id = std::move(spooled.record.instance_id);
    entry.sequence = spooled.record.sequence;
    entry.spool_id = spooled.id;
  }
}

void Outbox::Push(SnapshotRecord record) {
  auto shared = std::make_shared<const SnapshotRecord>(std::move(record));
  // Written ahead, outside the lock: the write waits for the disk, and answers must not.
  Result<Spool::Appended> appended = spool_.Append(*shared);
  std::lock_guard lock(mutex_);
  if (!appended.ok()) {
    log_.Error(appended.error());
    if (appended.status().code() == StatusCode::kResourceExhausted) {
      // Larger than the whole spool: it can never be kept.
      ++lost_.unspoolable;
      return;
    }
  }
  Entry& entry = entries_.emplace_back();
  entry.instance_id = shared->instance_id;
  entry.sequence = shared->sequence;
  const uint64_t size = shared->raw.size();
  if (appended.ok()) {
    entry.spool_id = appended->id;
    ForgetDroppedLocked(appended->dropped);
  }
  // Not spooled (a full disk): kept in memory rather than lost now.
  if (!appended.ok() || (connected_ && memory_bytes_ + size <= memory_limit_bytes_)) {
    entry.record = std::move(shared);
    memory_bytes_ += size;
  }
  PurgeDroppedLocked();
  changed_.notify_all();
}

bool Outbox::SpoolLocked(std::list<Entry>::iterator it) {
  if (it->spool_id) return true;
  Result<Spool::Appended> appended = spool_.Append(*it->record);
  if (!appended.ok()) {
    log_.Error(appended.error());
    if (appended.status().code() == StatusCode::kResourceExhausted) {
      ++lost_.unspoolable;
      RemoveEntryLocked(it);
    }
    return false;
  }
  it->spool_id = appended->id;
  ForgetDroppedLocked(appended->dropped);
  return true;
}

void Outbox::ForgetCopyLocked(Entry& entry) {
  if (entry.record == nullptr || !entry.spool_id) return;
  memory_bytes_ -= entry.record->raw.size();
  entry.record = nullptr;
}

void Outbox::ForgetDroppedLocked(const std::vector<uint64_t>& spool_ids) {
  if (spool_ids.empty()) return;
  // Only marked here: callers may be walking the list.
  for (Entry& entry : entries_) {
    if (entry.spool_id && !entry.dropped &&
        std::find(spool_ids.begin(), spool_ids.end(), *entry.spool_id) != spool_ids.end()) {
      entry.dropped = true;
      ++lost_.dropped;
    }
  }
}

void Outbox::PurgeDroppedLocked() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->dropped) {
      if (it->sent) --in_flight_;
      if (it->record != nullptr) memory_bytes_ -= it->record->raw.size();
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
  if (connected) {
    for (auto& [kind, kept] : reports_) kept.pending |= SentOnEveryStream(kept.message);
  }
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto current = it++;
    current->sent = false;
    if (connected) continue;
    if (SpoolLocked(current)) ForgetCopyLocked(*current);
  }
  PurgeDroppedLocked();
  changed_.notify_all();
}

std::vector<TitleRef> Outbox::AdoptTitles(const std::vector<TitleBytes>& titles) {
  std::vector<TitleRef> refs;
  for (const TitleBytes& database : titles) {
    Sha256Digest digest = TitleDigest(database.language, database.counters, database.helps);
    if (Status status = spool_.WriteTitles(database, digest); !status.ok()) {
      log_.Error(status.message());
    }
    refs.push_back(TitleRef{.language = database.language, .sha256 = digest});
    std::lock_guard lock(mutex_);
    titles_.emplace(digest, database);
  }
  std::lock_guard lock(mutex_);
  titles_in_force_ = refs;
  return refs;
}

std::vector<TitleRef> Outbox::titles_in_force() const {
  std::lock_guard lock(mutex_);
  return titles_in_force_;
}

Result<TitleBytes> Outbox::FindTitles(const Sha256Digest& digest) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = titles_.find(digest); it != titles_.end()) return it->second;
  }
  return spool_.ReadTitles(digest);
}

void Outbox::Report(v1::AgentMessage report) {
  std::lock_guard lock(mutex_);
  const v1::AgentMessage::BodyCase kind = report.body_case();
  reports_[kind] = KeptReport{.message = std::move(report), .pending = true};
  changed_.notify_all();
}

Outbox::Outgoing Outbox::NextToSend(size_t window, const std::atomic<bool>& interrupted) {
  std::unique_lock lock(mutex_);
  auto report_pending = [this] {
    return std::any_of(reports_.begin(), reports_.end(),
                       [](const auto& kept) { return kept.second.pending; });
  };
  while (true) {
    auto next = entries_.end();
    changed_.wait(lock, [&] {
      if (interrupted.load() || report_pending()) return true;
      if (in_flight_ >= window) return false;
      next = std::find_if(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.sent; });
      return next != entries_.end();
    });
    if (interrupted.load()) return {};
    if (report_pending()) {
      Outgoing reports;
      for (auto& [kind, kept] : reports_) {
        if (std::exchange(kept.pending, false)) reports.reports.push_back(kept.message);
      }
      return reports;
    }
    next->sent = true;
    ++in_flight_;
    if (next->record != nullptr) return {.reports = {}, .snapshot = next->record};
    uint64_t spool_id = *next->spool_id;
    lock.unlock();
    Result<SnapshotRecord> record = spool_.Read(spool_id);
    lock.lock();
    if (record.ok()) {
      return {.reports = {},
              .snapshot = std::make_shared<const SnapshotRecord>(std::move(record).value())};
    }
    // Still where it was unless the server answered or the spool dropped it meanwhile; only
    // then is it lost to the damage.
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.spool_id == spool_id; });
    if (it != entries_.end() && !it->dropped) {
      log_.Warning(record.error());
      ++lost_.unreadable;
      RemoveEntryLocked(it);
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

std::list<Outbox::Entry>::iterator Outbox::FindLocked(const std::string& instance_id,
                                                      uint64_t sequence) {
  return std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.sequence == sequence && e.instance_id == instance_id && !e.dropped;
  });
}

void Outbox::Remove(const std::string& instance_id, uint64_t sequence) {
  std::lock_guard lock(mutex_);
  if (auto it = FindLocked(instance_id, sequence); it != entries_.end()) RemoveEntryLocked(it);
}

void Outbox::Lose(const std::string& instance_id, uint64_t sequence) {
  std::lock_guard lock(mutex_);
  if (auto it = FindLocked(instance_id, sequence); it != entries_.end()) {
    ++lost_.refused;
    RemoveEntryLocked(it);
  }
}

void Outbox::Unsend(const std::string& instance_id, uint64_t sequence) {
  std::lock_guard lock(mutex_);
  auto it = FindLocked(instance_id, sequence);
  if (it == entries_.end() || !it->sent) return;
  it->sent = false;
  --in_flight_;
  changed_.notify_all();
}

void Outbox::SpillAll() {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.begin(); it != entries_.end();) SpoolLocked(it++);
  PurgeDroppedLocked();
}

size_t Outbox::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

LostSnapshots Outbox::lost() const {
  std::lock_guard lock(mutex_);
  return lost_;
}

}  // namespace perfhive
