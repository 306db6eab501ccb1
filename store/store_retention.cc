// Store: retention by age and by size.

#include <functional>
#include <map>

#include "store/keyframe_cache.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace perfhive {

namespace {

struct Removed {
  int64_t snapshots = 0;
  int64_t raw_bytes = 0;
  int64_t stored_bytes = 0;
};

// Snapshots deleted in one transaction at most (compacted groups: a 64th as many groups), then
// the write lock is let go for a moment; and oldest groups deleted by size.
constexpr int64_t kRetentionChunk = 4096;
constexpr int kRetentionGroupsPerChunk = 64;

// Deletes the snapshots `select` (bound to `value` and `limit`) returns as (id, host_id,
// raw_size, stored_size), with their frames, and takes them off their hosts' counts.
Status DeleteSelected(SqliteDb& db, const char* select_sql, int64_t value, int64_t limit,
                      RetentionResult& result) {
  Result<SqliteStatement*> select = db.Prepare(select_sql);
  if (!select.ok()) return select.status();
  (*select)->Bind(1, value).Bind(2, limit);
  std::vector<int64_t> ids;
  std::map<int64_t, Removed> by_host;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    ids.push_back(row.Int(0));
    Removed& removed = by_host[row.Int(1)];
    ++removed.snapshots;
    removed.raw_bytes += row.Int(2);
    removed.stored_bytes += row.Int(3);
  });
  if (!read.ok()) return read;
  Result<SqliteStatement*> delete_snapshot = db.Prepare("DELETE FROM snapshots WHERE id = ?1");
  if (!delete_snapshot.ok()) return delete_snapshot.status();
  Result<SqliteStatement*> delete_frame = db.Prepare("DELETE FROM frames WHERE id = ?1");
  if (!delete_frame.ok()) return delete_frame.status();
  for (int64_t id : ids) {
    if (Status s = (*delete_snapshot)->Bind(1, id).Run(); !s.ok()) return s;
    if (Status s = (*delete_frame)->Bind(1, id).Run(); !s.ok()) return s;
  }
  Result<SqliteStatement*> update = db.Prepare(
      "UPDATE hosts SET snapshots_stored = snapshots_stored - ?2,"
      " raw_bytes_stored = raw_bytes_stored - ?3, stored_bytes = stored_bytes - ?4"
      " WHERE id = ?1");
  if (!update.ok()) return update.status();
  for (const auto& [host_id, removed] : by_host) {
    Status s = (*update)
                   ->Bind(1, host_id)
                   .Bind(2, removed.snapshots)
                   .Bind(3, removed.raw_bytes)
                   .Bind(4, removed.stored_bytes)
                   .Run();
    if (!s.ok()) return s;
    result.snapshots_deleted += removed.snapshots;
    result.bytes_deleted += removed.stored_bytes;
  }
  return Status();
}

}  // namespace

Result<RetentionResult> Store::ApplyRetention(const RetentionPolicy& policy, int64_t now_ns) {
  RetentionResult result;
  // Each chunk is a transaction of its own under the write lock, which is let go in between:
  // appends from every stream go on while a large backlog is deleted, and a crash leaves only
  // whole chunks done (each consistent, the rest for the next pass).
  auto in_chunks = [&](const std::function<Result<bool>()>& delete_chunk) -> Status {
    for (;;) {
      std::lock_guard lock(write_mutex_);
      const int64_t before = result.snapshots_deleted;
      SqliteTransaction transaction(writer_.get());
      if (Status s = transaction.Begin(); !s.ok()) return s;
      Result<bool> more = delete_chunk();
      if (!more.ok()) return more.status();
      if (Status s = transaction.Commit(); !s.ok()) return s;
      ++result.transactions;
      // Before the lock is let go: the writer's open groups may have lost their keyframes, and
      // the next append must read back what is left rather than refer to a deleted one.
      if (result.snapshots_deleted > before) keyframes_->Clear();
      if (!*more) return Status();
    }
  };
  // A chunk of `select` (bound to the cutoff, then the chunk's size); whether it deleted any,
  // and so whether another may.
  auto chunk_of = [&](const char* select_sql, int64_t cutoff) {
    return [&, select_sql, cutoff]() -> Result<bool> {
      int64_t before = result.snapshots_deleted;
      if (Status s = DeleteSelected(*writer_, select_sql, cutoff, kRetentionChunk, result);
          !s.ok()) {
        return s;
      }
      return result.snapshots_deleted > before;
    };
  };
  if (policy.max_age_ns > 0) {
    // By the server's receive time: a host whose clock is wrong cannot have its snapshots
    // deleted early or kept forever. Deltas first, then the keyframes no delta needs any more.
    // A compacted group goes whole, once its newest member is old enough: its members share one
    // block.
    int64_t cutoff = now_ns - policy.max_age_ns;
    for (const char* select_sql :
         {"SELECT id, host_id, raw_size, stored_size FROM snapshots"
          " WHERE receive_time < ?1 AND keyframe_id IS NOT NULL AND block_index IS NULL"
          " LIMIT ?2",
          "SELECT m.id, m.host_id, m.raw_size, m.stored_size FROM"
          " (SELECT id FROM snapshots k WHERE k.receive_time < ?1 AND k.keyframe_id IS NULL"
          "  AND k.block_index IS NOT NULL AND NOT EXISTS (SELECT 1 FROM snapshots n"
          "  WHERE n.keyframe_id = k.id AND n.receive_time >= ?1) LIMIT ?2 / 64) k"
          " JOIN snapshots m ON m.id = k.id OR m.keyframe_id = k.id",
          "SELECT id, host_id, raw_size, stored_size FROM snapshots k"
          " WHERE receive_time < ?1 AND keyframe_id IS NULL AND NOT EXISTS"
          " (SELECT 1 FROM snapshots d WHERE d.keyframe_id = k.id) LIMIT ?2"}) {
      if (Status s = in_chunks(chunk_of(select_sql, cutoff)); !s.ok()) return s;
    }
  }
  if (policy.max_bytes > 0) {
    // Whole groups, in the order their keyframes were written. What is stored comes from the
    // hosts' counts, not from a scan of every snapshot.
    Status s = in_chunks([&]() -> Result<bool> {
      Result<int64_t> total = writer_->QueryInt("SELECT COALESCE(SUM(stored_bytes), 0) FROM hosts");
      if (!total.ok()) return total.status();
      int64_t remaining = *total;
      for (int groups = 0; remaining > policy.max_bytes; ++groups) {
        if (groups == kRetentionGroupsPerChunk) return true;
        Result<int64_t> oldest = writer_->QueryInt(
            "SELECT COALESCE(MIN(id), 0) FROM snapshots WHERE keyframe_id IS NULL");
        if (!oldest.ok()) return oldest.status();
        if (*oldest == 0) break;
        int64_t before = result.bytes_deleted;
        Status deleted = DeleteSelected(*writer_,
                                        "SELECT id, host_id, raw_size, stored_size FROM snapshots"
                                        " WHERE id = ?1 OR keyframe_id = ?1 LIMIT ?2",
                                        *oldest, INT64_MAX, result);
        if (!deleted.ok()) return deleted;
        remaining -= result.bytes_deleted - before;
      }
      return false;
    });
    if (!s.ok()) return s;
  }
  if (result.snapshots_deleted > 0) {
    std::lock_guard lock(write_mutex_);
    // A gap goes once the host's stored history no longer reaches back to it.
    if (Status s = writer_->Exec(
            "DELETE FROM instance_gaps WHERE back < COALESCE((SELECT MIN(sample_time) FROM"
            " snapshots s WHERE s.host_id = instance_gaps.host_id), 9223372036854775807)");
        !s.ok()) {
      return s;
    }
    // Give the freed pages back to the file system (auto_vacuum=INCREMENTAL).
    if (Status s = writer_->Exec("PRAGMA incremental_vacuum"); !s.ok()) return s;
  }
  return result;
}

}  // namespace perfhive
