// Store: retention by age and by size.

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

// Deletes the snapshots `select` (bound to `value`) returns as (id, host_id, raw_size,
// stored_size), with their frames, and takes them off their hosts' counts.
Status DeleteSelected(SqliteDb& db, const char* select_sql, int64_t value,
                      RetentionResult& result) {
  Result<SqliteStatement*> select = db.Prepare(select_sql);
  if (!select.ok()) return select.status();
  (*select)->Bind(1, value);
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
  std::lock_guard lock(write_mutex_);
  RetentionResult result;
  SqliteTransaction transaction(writer_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  if (policy.max_age_ns > 0) {
    // By the server's receive time: a host whose clock is wrong cannot have its snapshots
    // deleted early or kept forever. Deltas first, then the keyframes no delta needs any more.
    // A compacted group goes whole, once its newest member is old enough: its members share one
    // block.
    int64_t cutoff = now_ns - policy.max_age_ns;
    Status s = DeleteSelected(*writer_,
                              "SELECT id, host_id, raw_size, stored_size FROM snapshots"
                              " WHERE receive_time < ?1 AND keyframe_id IS NOT NULL"
                              " AND block_index IS NULL",
                              cutoff, result);
    if (!s.ok()) return s;
    s = DeleteSelected(*writer_,
                       "SELECT m.id, m.host_id, m.raw_size, m.stored_size FROM snapshots k"
                       " JOIN snapshots m ON m.id = k.id OR m.keyframe_id = k.id"
                       " WHERE k.keyframe_id IS NULL AND k.block_index IS NOT NULL"
                       " AND k.receive_time < ?1 AND NOT EXISTS (SELECT 1 FROM snapshots n"
                       " WHERE n.keyframe_id = k.id AND n.receive_time >= ?1)",
                       cutoff, result);
    if (!s.ok()) return s;
    s = DeleteSelected(*writer_,
                       "SELECT id, host_id, raw_size, stored_size FROM snapshots k"
                       " WHERE receive_time < ?1 AND keyframe_id IS NULL AND NOT EXISTS"
                       " (SELECT 1 FROM snapshots d WHERE d.keyframe_id = k.id)",
                       cutoff, result);
    if (!s.ok()) return s;
  }
  if (policy.max_bytes > 0) {
    // Whole groups, in the order their keyframes were written.
    Result<int64_t> total =
        writer_->QueryInt("SELECT COALESCE(SUM(stored_size), 0) FROM snapshots");
    if (!total.ok()) return total.status();
    int64_t remaining = *total;
    while (remaining > policy.max_bytes) {
      Result<int64_t> oldest =
          writer_->QueryInt("SELECT COALESCE(MIN(id), 0) FROM snapshots WHERE keyframe_id IS NULL");
      if (!oldest.ok()) return oldest.status();
      if (*oldest == 0) break;
      int64_t before = result.bytes_deleted;
      Status s = DeleteSelected(*writer_,
                                "SELECT id, host_id, raw_size, stored_size FROM snapshots"
                                " WHERE id = ?1 OR keyframe_id = ?1",
                                *oldest, result);
      if (!s.ok()) return s;
      remaining -= result.bytes_deleted - before;
    }
  }
  if (Status s = transaction.Commit(); !s.ok()) return s;
  if (result.snapshots_deleted > 0) {
    // The writer's open groups may have lost their keyframes; it reads back what is left.
    keyframes_->Clear();
    // Give the freed pages back to the file system (auto_vacuum=INCREMENTAL).
    if (Status s = writer_->Exec("PRAGMA incremental_vacuum"); !s.ok()) return s;
  }
  return result;
}

}  // namespace perfhive
