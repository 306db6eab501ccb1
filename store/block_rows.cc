#include "store/block_rows.h"

#include <algorithm>
#include <map>
#include <memory>

#include "store/block_row_cache.h"
#include "store/sqlite.h"

namespace perfhive {

namespace {

// The row `select` is on, from its columns id, host_id, query, stored_size, members.
Result<BlockRow> RowOf(const SqliteStatement& select) {
  BlockRow row;
  row.id = select.Int(0);
  row.host_id = select.Int(1);
  row.query = select.Text(2);
  row.stored_size = select.Int(3);
  Result<std::vector<BlockMember>> members = DecodeBlockMembers(select.Blob(4));
  if (!members.ok()) {
    return Status::DataLoss("block " + std::to_string(row.id) + ": " + members.error());
  }
  row.members = std::move(*members);
  return row;
}

constexpr const char* kRowColumns =
    "SELECT id, host_id, query, stored_size, members, last_id, snapshots FROM blocks";

// The row `select` is on, from `cache` when it holds it, or decoded (and put in `cache`).
Result<std::shared_ptr<const BlockRow>> CachedRowOf(const SqliteStatement& select,
                                                    BlockRowCache* cache) {
  // A cached row is taken without reading its members' bytes.
  std::shared_ptr<const BlockRow> row =
      cache != nullptr ? cache->Find(select.Int(0), select.Int(5), select.Int(6)) : nullptr;
  if (row != nullptr) return row;
  Result<BlockRow> decoded = RowOf(select);
  if (!decoded.ok()) return decoded.status();
  row = std::make_shared<const BlockRow>(std::move(decoded).value());
  if (cache != nullptr) cache->Put(row);
  return row;
}

}  // namespace

Result<std::shared_ptr<const BlockRow>> ReadBlockRow(SqliteDb& db, int64_t id,
                                                     BlockRowCache* cache) {
  static const std::string sql = std::string(kRowColumns) + " WHERE id = ?1";
  Result<SqliteStatement*> select = db.Prepare(sql.c_str());
  if (!select.ok()) return select.status();
  (*select)->Bind(1, id);
  Result<bool> found = (*select)->Step();
  if (!found.ok()) return found.status();
  if (!*found) return std::shared_ptr<const BlockRow>();
  Result<std::shared_ptr<const BlockRow>> row = CachedRowOf(**select, cache);
  (*select)->Reset();
  return row;
}

Status PutBlockRow(SqliteDb& db, const BlockRow& row) {
  if (row.members.empty()) return Status::Error("block " + std::to_string(row.id) + " is empty");
  int64_t first_time = INT64_MAX, last_time = INT64_MIN, last_receive_time = INT64_MIN;
  int64_t raw_size = 0, last_id = 0;
  for (const BlockMember& member : row.members) {
    last_id = std::max(last_id, member.id);
    first_time = std::min(first_time, member.sample_time_ns);
    last_time = std::max(last_time, member.sample_time_ns);
    last_receive_time = std::max(last_receive_time, member.receive_time_ns);
    raw_size += member.raw_size;
  }
  Result<SqliteStatement*> put = db.Prepare(
      "INSERT OR REPLACE INTO blocks (id, host_id, query, first_time, last_time,"
      " last_receive_time, snapshots, raw_size, stored_size, last_id, members)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!put.ok()) return put.status();
  return (*put)
      ->Bind(1, row.id)
      .Bind(2, row.host_id)
      .Bind(3, row.query)
      .Bind(4, first_time)
      .Bind(5, last_time)
      .Bind(6, last_receive_time)
      .Bind(7, static_cast<int64_t>(row.members.size()))
      .Bind(8, raw_size)
      .Bind(9, row.stored_size)
      .Bind(10, last_id)
      .BindBlob(11, EncodeBlockMembers(row.members))
      .Run();
}

Status ForEachBlockBetween(SqliteDb& db, int64_t host_id, int64_t from_ns, int64_t to_ns,
                           const std::optional<std::string>& query, bool newest,
                           const std::function<bool(const BlockRow&)>& visit,
                           BlockRowCache* cache) {
  static const std::string where = std::string(kRowColumns) +
                                   " WHERE host_id = ?1 AND last_time >= ?2 AND first_time < ?3"
                                   " AND (?4 IS NULL OR query = ?4)";
  static const std::string oldest_sql = where + " ORDER BY first_time, id";
  static const std::string newest_sql = where + " ORDER BY last_time DESC, id DESC";
  Result<SqliteStatement*> select = db.Prepare(newest ? newest_sql.c_str() : oldest_sql.c_str());
  if (!select.ok()) return select.status();
  (*select)->Bind(1, host_id).Bind(2, from_ns).Bind(3, to_ns);
  if (query) {
    (*select)->Bind(4, *query);
  } else {
    (*select)->BindNull(4);
  }
  for (;;) {
    Result<bool> found = (*select)->Step();
    if (!found.ok()) return found.status();
    if (!*found) return Status();
    Result<std::shared_ptr<const BlockRow>> row = CachedRowOf(**select, cache);
    if (!row.ok()) {
      (*select)->Reset();
      return row.status();
    }
    if (!visit(**row)) {
      (*select)->Reset();
      return Status();
    }
  }
}

Result<std::optional<int64_t>> NearestMemberTime(SqliteDb& db, int64_t host_id,
                                                 const std::string& query, int64_t from_ns,
                                                 int64_t to_ns, bool newest, int64_t except_ns) {
  std::optional<int64_t> nearest;
  auto nearer = [newest](int64_t a, int64_t b) { return newest ? a > b : a < b; };
  Status read =
      ForEachBlockBetween(db, host_id, from_ns, to_ns, query, newest, [&](const BlockRow& block) {
        // Blocks come by their first time (their last, descending, with `newest`): once one
        // begins past the nearest time found, none after it holds a nearer one.
        std::optional<int64_t> block_nearest;
        for (const BlockMember& member : block.members) {
          if (!block_nearest || nearer(member.sample_time_ns, *block_nearest)) {
            block_nearest = member.sample_time_ns;
          }
        }
        if (nearest && block_nearest && nearer(*nearest, *block_nearest)) return false;
        for (const BlockMember& member : block.members) {
          const int64_t t = member.sample_time_ns;
          if (t < from_ns || t >= to_ns || t == except_ns) continue;
          if (!nearest || nearer(t, *nearest)) nearest = t;
        }
        return true;
      });
  if (!read.ok()) return read;
  return nearest;
}

Status MoveRowsIntoBlockRow(SqliteDb& db, int64_t keyframe_id,
                            const std::vector<int64_t>& block_order, int64_t block_size) {
  Result<SqliteStatement*> select = db.Prepare(
      "SELECT id, host_id, query, sample_time, perf_time, perf_time_100ns, receive_time,"
      " instance_id, sequence, sha256, raw_size FROM snapshots WHERE id = ?1 OR keyframe_id = ?1");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, keyframe_id);
  BlockRow block;
  block.id = keyframe_id;
  block.stored_size = block_size;
  std::map<int64_t, BlockMember> by_id;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    BlockMember& member = by_id[row.Int(0)];
    member.id = row.Int(0);
    if (member.id == keyframe_id) {
      block.host_id = row.Int(1);
      block.query = row.Text(2);
    }
    member.sample_time_ns = row.Int(3);
    if (!row.IsNull(4)) member.perf_time = row.Int(4);
    if (!row.IsNull(5)) member.perf_time_100ns = row.Int(5);
    member.receive_time_ns = row.Int(6);
    member.instance_id = row.Text(7);
    member.sequence = static_cast<uint64_t>(row.Int(8));
    member.sha256 = row.Digest(9);
    member.raw_size = row.Int(10);
  });
  if (!read.ok()) return read;
  if (by_id.size() != block_order.size() || !by_id.contains(keyframe_id)) {
    return Status::Error("group " + std::to_string(keyframe_id) + " has " +
                         std::to_string(by_id.size()) + " snapshots, its block " +
                         std::to_string(block_order.size()));
  }
  for (int64_t id : block_order) {
    auto member = by_id.find(id);
    if (member == by_id.end()) {
      return Status::Error("group " + std::to_string(keyframe_id) + " has no snapshot " +
                           std::to_string(id));
    }
    block.members.push_back(std::move(member->second));
  }
  if (Status s = PutBlockRow(db, block); !s.ok()) return s;
  Result<SqliteStatement*> remove =
      db.Prepare("DELETE FROM snapshots WHERE id = ?1 OR keyframe_id = ?1");
  if (!remove.ok()) return remove.status();
  return (*remove)->Bind(1, keyframe_id).Run();
}

Status MoveOldCompactedGroups(SqliteDb& db) {
  std::vector<int64_t> groups;
  Result<SqliteStatement*> select =
      db.Prepare("SELECT id FROM snapshots WHERE keyframe_id IS NULL AND block_index IS NOT NULL");
  if (!select.ok()) return select.status();
  Status read =
      (*select)->ForEachRow([&](const SqliteStatement& row) { groups.push_back(row.Int(0)); });
  if (!read.ok()) return read;
  Result<SqliteStatement*> order = db.Prepare(
      "SELECT id, block_index FROM snapshots WHERE id = ?1 OR keyframe_id = ?1"
      " ORDER BY block_index");
  if (!order.ok()) return order.status();
  Result<SqliteStatement*> size = db.Prepare("SELECT length(frame) FROM frames WHERE id = ?1");
  if (!size.ok()) return size.status();
  for (int64_t keyframe_id : groups) {
    std::vector<int64_t> block_order;
    bool whole = true;
    (*order)->Bind(1, keyframe_id);
    read = (*order)->ForEachRow([&](const SqliteStatement& row) {
      whole = whole && !row.IsNull(1) && row.Int(1) == static_cast<int64_t>(block_order.size());
      block_order.push_back(row.Int(0));
    });
    if (!read.ok()) return read;
    if (!whole) {
      return Status::DataLoss("compacted group " + std::to_string(keyframe_id) +
                              " does not number its snapshots 0, 1, 2, ... in its block; check "
                              "the store with `sqlite3 perfhive.db 'PRAGMA integrity_check'`");
    }
    (*size)->Bind(1, keyframe_id);
    Result<bool> found = (*size)->Step();
    if (!found.ok()) return found.status();
    const int64_t block_size = *found ? (*size)->Int(0) : 0;
    (*size)->Reset();
    if (Status s = MoveRowsIntoBlockRow(db, keyframe_id, block_order, block_size); !s.ok()) {
      return s;
    }
  }
  return Status();
}

}  // namespace perfhive
