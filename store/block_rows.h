// The `blocks` table: one row per compacted group, holding what the store knows of each of its
// snapshots (store/block_members.h) beside the block, which stays in `frames` under the group's
// id (docs/store_format.md, "Blocks: one row per compacted group"). These functions are the
// table's SQL; the callers hold the connection and its transaction.

#ifndef PERFHIVE_STORE_BLOCK_ROWS_H_
#define PERFHIVE_STORE_BLOCK_ROWS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/block_members.h"

namespace perfhive {

class BlockRowCache;
class SqliteDb;

struct BlockRow {
  int64_t id = 0;  // the group's first keyframe: its frame holds the block
  int64_t host_id = 0;
  std::string query;
  int64_t stored_size = 0;           // the block's bytes
  std::vector<BlockMember> members;  // in the order of the block
};

// The block row `id`; nothing when there is none (never compacted, merged into an earlier block,
// or deleted by retention). With `cache`, as ForEachBlockBetween.
Result<std::shared_ptr<const BlockRow>> ReadBlockRow(SqliteDb& db, int64_t id,
                                                     BlockRowCache* cache = nullptr);

// Writes `row` (replacing the row of its id), with the times and sizes its members add up to.
Status PutBlockRow(SqliteDb& db, const BlockRow& row);

// Calls `visit` on the blocks of `host_id` with a member taken in [from_ns, to_ns) (and of
// `query`, when given): by their first sample time, or their last one descending with `newest`,
// until it returns false. With `cache`, rows decoded before are taken from it, and those decoded
// now are put in it.
Status ForEachBlockBetween(SqliteDb& db, int64_t host_id, int64_t from_ns, int64_t to_ns,
                           const std::optional<std::string>& query, bool newest,
                           const std::function<bool(const BlockRow&)>& visit,
                           BlockRowCache* cache = nullptr);

// The earliest sample time (the latest, with `newest`) of a member of the host's compacted groups
// of `query` taken in [from_ns, to_ns), other than `except_ns`.
Result<std::optional<int64_t>> NearestMemberTime(SqliteDb& db, int64_t host_id,
                                                 const std::string& query, int64_t from_ns,
                                                 int64_t to_ns, bool newest, int64_t except_ns);

// The compacted group of keyframe `keyframe_id`, moved from its rows in `snapshots` into a block
// row (its members' frames are the caller's): what each member's row said, in the order of
// `block_order` (the block's), which must be the group's ids. Errors when the rows are not
// that group.
Status MoveRowsIntoBlockRow(SqliteDb& db, int64_t keyframe_id,
                            const std::vector<int64_t>& block_order, int64_t block_size);

// Moves every group compacted by a version before blocks had rows of their own (schema
// version 13 and before: members kept their rows, with `block_index` set) into a block row.
Status MoveOldCompactedGroups(SqliteDb& db);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_BLOCK_ROWS_H_
