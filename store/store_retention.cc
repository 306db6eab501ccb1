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

// Snapshots deleted in one transaction at most (compacted groups: 64 groups), then
// the write lock is let go for a moment; and oldest groups deleted by size.
constexpr int64_t kRetentionChunk = 4096;
constexpr int kRetentionGroupsPerChunk = 64;

// Takes what was deleted off its hosts' counts, and adds it to `result`.
Status TakeOffHosts(SqliteDb& db, const std::map<int64_t, Removed>& by_host,
                    RetentionResult& result) {
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

// Deletes what `select` (bound to `value` and `limit`) returns from `table` (`snapshots`, or
// `blocks`: compacted groups) as (id, host_id, snapshots, raw_size, stored_size), with the
// frames under those ids, and takes them off their hosts' counts.
Status DeleteSelected(SqliteDb& db, const char* table, const char* select_sql, int64_t value,
                      int64_t limit, RetentionResult& result) {
  Result<SqliteStatement*> select = db.Prepare(select_sql);
  if (!select.ok()) return select.status();
  (*select)->Bind(1, value).Bind(2, limit);
  std::vector<int64_t> ids;
  std::map<int64_t, Removed> by_host;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    ids.push_back(row.Int(0));
    Removed& removed = by_host[row.Int(1)];
    removed.snapshots += row.Int(2);
    removed.raw_bytes += row.Int(3);
    removed.stored_bytes += row.Int(4);
  });
  if (!read.ok()) return read;
  const std::string delete_sql = std::string("DELETE FROM ") + table + " WHERE id = ?1";
  Result<SqliteStatement*> delete_row = db.Prepare(delete_sql.c_str());
  if (!delete_row.ok()) return delete_row.status();
  Result<SqliteStatement*> delete_frame = db.Prepare("DELETE FROM frames WHERE id = ?1");
  if (!delete_frame.ok()) return delete_frame.status();
  for (int64_t id : ids) {
    if (Status s = (*delete_row)->Bind(1, id).Run(); !s.ok()) return s;
    if (Status s = (*delete_frame)->Bind(1, id).Run(); !s.ok()) return s;
  }
  return TakeOffHosts(db, by_host, result);
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
  auto chunk_of = [&](const char* table, const char* select_sql, int64_t cutoff, int64_t limit) {
    return [&, table, select_sql, cutoff, limit]() -> Result<bool> {
      int64_t before = result.snapshots_deleted;
      if (Status s = DeleteSelected(*writer_, table, select_sql, cutoff, limit, result); !s.ok()) {
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
         {"SELECT id, host_id, 1, raw_size, stored_size FROM snapshots"
          " WHERE receive_time < ?1 AND keyframe_id IS NOT NULL LIMIT ?2",
          "SELECT id, host_id, 1, raw_size, stored_size FROM snapshots k"
          " WHERE receive_time < ?1 AND keyframe_id IS NULL AND NOT EXISTS"
          " (SELECT 1 FROM snapshots d WHERE d.keyframe_id = k.id) LIMIT ?2"}) {
      if (Status s = in_chunks(chunk_of("snapshots", select_sql, cutoff, kRetentionChunk));
          !s.ok()) {
        return s;
      }
    }
    if (Status s = in_chunks(chunk_of("blocks",
                                      "SELECT id, host_id, snapshots, raw_size, stored_size"
                                      " FROM blocks WHERE last_receive_time < ?1 LIMIT ?2",
                                      cutoff, kRetentionGroupsPerChunk));
        !s.ok()) {
      return s;
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
        Result<int64_t> oldest_block = writer_->QueryInt("SELECT COALESCE(MIN(id), 0) FROM blocks");
        if (!oldest_block.ok()) return oldest_block.status();
        if (*oldest == 0 && *oldest_block == 0) break;
        int64_t before = result.bytes_deleted;
        const bool block = *oldest_block != 0 && (*oldest == 0 || *oldest_block < *oldest);
        Status deleted =
            block ? DeleteSelected(*writer_, "blocks",
                                   "SELECT id, host_id, snapshots, raw_size, stored_size"
                                   " FROM blocks WHERE id = ?1 LIMIT ?2",
                                   *oldest_block, 1, result)
                  : DeleteSelected(*writer_, "snapshots",
                                   "SELECT id, host_id, 1, raw_size, stored_size FROM snapshots"
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
            "DELETE FROM instance_gaps WHERE back < MIN(COALESCE((SELECT MIN(sample_time) FROM"
            " snapshots s WHERE s.host_id = instance_gaps.host_id), 9223372036854775807),"
            " COALESCE((SELECT MIN(first_time) FROM blocks b WHERE b.host_id ="
            " instance_gaps.host_id), 9223372036854775807))");
        !s.ok()) {
      return s;
    }
    // Give the freed pages back to the file system (auto_vacuum=INCREMENTAL).
    if (Status s = writer_->Exec("PRAGMA incremental_vacuum"); !s.ok()) return s;
  }
  return result;
}

}  // namespace perfhive
