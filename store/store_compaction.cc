// Store: closed groups rewritten as columnar blocks by a pass of their own (docs/store_format.md,
// "Closed groups as columnar blocks").

#include <algorithm>
#include <optional>
#include <vector>

#include "port/sha256.h"
#include "store/block_rows.h"
#include "store/group_columns.h"
#include "store/group_decoder.h"
#include "store/keyframe_cache.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace perfhive {

// A closed group read from the database and encoded as a block, ready to replace its frames.
struct Store::CompactedGroup {
  int64_t keyframe_id = 0;
  int64_t host_id = 0;
  std::string query;
  std::vector<int64_t> member_ids;  // the keyframe first, then by id: as the block holds them
  int64_t frames_size = 0;          // what the frames take now
  std::vector<uint8_t> block;
};

// A run of one stream's compacted groups encoded as one block, ready to replace theirs.
struct Store::MergedBlock {
  int64_t host_id = 0;
  std::vector<BlockRow> groups;  // as read; the first's keyframe keeps the merged block
  std::vector<uint8_t> block;
};

namespace {

// Closed groups looked at per read, and replaced per transaction at most: a transaction of 16
// groups of 60 holds the write lock for a few milliseconds.
constexpr int kCandidatesPerRead = 64;
constexpr size_t kGroupsPerTransaction = 16;

struct Candidate {
  int64_t keyframe_id = 0;
  int64_t host_id = 0;
  std::string query;
  size_t members = 0;  // the keyframe included
};

struct Member {
  int64_t id = 0;
  int64_t stored_size = 0;
  Sha256Digest sha256{};
  std::vector<uint8_t> frame;
};

// Groups held as frames with at least one member, after `after_id`, by keyframe id, that are
// closed: their stream has a newer group, or their newest member was received before
// `idle_before_ns`.
Result<std::vector<Candidate>> ClosedGroupsAfter(SqliteDb& db, int64_t after_id,
                                                 int64_t idle_before_ns) {
  Result<SqliteStatement*> select = db.Prepare(
      "SELECT k.id, k.host_id, k.query,"
      " 1 + (SELECT COUNT(*) FROM snapshots d WHERE d.keyframe_id = k.id)"
      " FROM snapshots k INDEXED BY snapshots_uncompacted"
      " WHERE k.keyframe_id IS NULL AND k.block_index IS NULL AND k.id > ?1"
      " AND EXISTS (SELECT 1 FROM snapshots d WHERE d.keyframe_id = k.id)"
      " AND (EXISTS (SELECT 1 FROM snapshots n WHERE n.host_id = k.host_id"
      "              AND n.query = k.query AND n.keyframe_id IS NULL AND n.id > k.id)"
      "      OR EXISTS (SELECT 1 FROM blocks b WHERE b.host_id = k.host_id"
      "                 AND b.query = k.query AND b.id > k.id)"
      "      OR (SELECT d.receive_time FROM snapshots d WHERE d.keyframe_id = k.id"
      "          ORDER BY d.id DESC LIMIT 1) < ?2)"
      " ORDER BY k.id LIMIT ?3");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, after_id).Bind(2, idle_before_ns).Bind(3, kCandidatesPerRead);
  std::vector<Candidate> candidates;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    candidates.push_back(
        Candidate{row.Int(0), row.Int(1), row.Text(2), static_cast<size_t>(row.Int(3))});
  });
  if (!read.ok()) return read;
  return candidates;
}

// The group of `keyframe_id` as stored, the keyframe first; empty when it is not a group of
// frames any more (compacted, or deleted by retention, since it was found).
Result<std::vector<Member>> ReadMembers(SqliteDb& db, int64_t keyframe_id) {
  Result<SqliteStatement*> select = db.Prepare(
      "SELECT s.id, s.stored_size, s.sha256, f.frame"
      " FROM snapshots s JOIN frames f ON f.id = s.id"
      " WHERE s.id = ?1 OR s.keyframe_id = ?1 ORDER BY s.id");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, keyframe_id);
  std::vector<Member> members;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    Member& member = members.emplace_back();
    member.id = row.Int(0);
    member.stored_size = row.Int(1);
    member.sha256 = row.Digest(2);
    member.frame.assign(row.Blob(3).begin(), row.Blob(3).end());
  });
  if (!read.ok()) return read;
  if (members.empty() || members[0].id != keyframe_id) members.clear();
  return members;
}

// Restores `member` through `group` into `raws`, adding its size to `raw_total`: false when it
// does not restore to the bytes of `sha256`, or would take `raws` past a block's limits.
bool RestoreForBlock(GroupDecoder& group, const GroupMember& member, const Sha256Digest& sha256,
                     std::vector<std::vector<uint8_t>>& raws, uint64_t& raw_total) {
  if (raws.size() >= kMaxBlockSnapshots) return false;
  Result<std::vector<uint8_t>> raw = group.Restore(member, nullptr);
  if (!raw.ok() || Sha256(*raw) != sha256) return false;
  raw_total += raw->size();
  if (raw_total > kMaxBlockRawBytes) return false;
  raws.push_back(std::move(raw).value());
  return true;
}

// `raws` as one block under `keyframe_id`, once it is found smaller than the `stored_size` bytes
// they take now and checked to give every one back exactly; nothing otherwise.
std::optional<std::vector<uint8_t>> CheckedBlock(int64_t keyframe_id,
                                                 const std::vector<std::vector<uint8_t>>& raws,
                                                 int64_t stored_size, int level) {
  std::vector<std::span<const uint8_t>> spans(raws.begin(), raws.end());
  std::vector<uint8_t> block = EncodeGroupColumns(spans, level);
  if (static_cast<int64_t>(block.size()) >= stored_size) return std::nullopt;
  // What it replaces goes only once the block gives every member back exactly.
  Result<std::unique_ptr<GroupDecoder>> columns = OpenGroup(keyframe_id, block);
  if (!columns.ok()) return std::nullopt;
  for (size_t i = 0; i < raws.size(); ++i) {
    Result<std::vector<uint8_t>> back =
        (*columns)->Restore({.block_index = static_cast<int64_t>(i)}, nullptr);
    if (!back.ok() || *back != raws[i]) return std::nullopt;
  }
  return block;
}

// The block of a group, once it is checked to give every member back exactly and found smaller
// than the frames; nothing for a group that does not restore (left for ReadSnapshot to report),
// exceeds a block's limits, or would not get smaller.
std::optional<std::vector<uint8_t>> BuildBlock(int64_t keyframe_id,
                                               const std::vector<Member>& members, int level) {
  if (members.size() < 2 || members.size() > kMaxBlockSnapshots) return std::nullopt;
  std::vector<std::vector<uint8_t>> raws;
  raws.reserve(members.size());
  uint64_t raw_total = 0;
  Result<std::unique_ptr<GroupDecoder>> frames = OpenGroup(keyframe_id, members[0].frame);
  if (!frames.ok()) return std::nullopt;
  int64_t frames_size = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    const GroupMember member{.is_keyframe = i == 0,
                             .frame = i == 0 ? std::span<const uint8_t>() : members[i].frame};
    if (!RestoreForBlock(**frames, member, members[i].sha256, raws, raw_total)) {
      return std::nullopt;
    }
    frames_size += members[i].stored_size;
  }
  return CheckedBlock(keyframe_id, raws, frames_size, level);
}

// The compacted groups of the stream (host id, query) not merged yet, oldest first, each as
// (keyframe id, snapshots): those after the newest group holding more than `merged_at_least`.
Result<std::vector<std::pair<int64_t, size_t>>> UnmergedBlocks(SqliteDb& db, int64_t host_id,
                                                               const std::string& query,
                                                               size_t merged_at_least) {
  Result<SqliteStatement*> select = db.Prepare(
      "SELECT id, snapshots FROM blocks INDEXED BY blocks_by_stream"
      " WHERE host_id = ?1 AND query = ?2 ORDER BY id DESC");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, host_id).Bind(2, query);
  std::vector<std::pair<int64_t, size_t>> groups;
  for (;;) {
    Result<bool> row = (*select)->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    const size_t snapshots = static_cast<size_t>((*select)->Int(1));
    if (snapshots > merged_at_least) break;
    groups.emplace_back((*select)->Int(0), snapshots);
  }
  (*select)->Reset();
  std::reverse(groups.begin(), groups.end());
  return groups;
}

// The compacted group of `keyframe_id` (its row) and its block; nothing when it is not such a
// group any more.
struct StoredBlock {
  BlockRow row;
  std::vector<uint8_t> block;
};
Result<std::optional<StoredBlock>> ReadBlock(SqliteDb& db, int64_t keyframe_id) {
  Result<std::shared_ptr<const BlockRow>> row = ReadBlockRow(db, keyframe_id);
  if (!row.ok()) return row.status();
  if (*row == nullptr) return std::optional<StoredBlock>();
  Result<SqliteStatement*> frame = db.Prepare("SELECT frame FROM frames WHERE id = ?1");
  if (!frame.ok()) return frame.status();
  (*frame)->Bind(1, keyframe_id);
  Result<bool> found = (*frame)->Step();
  if (!found.ok()) return found.status();
  if (!*found) return std::optional<StoredBlock>();
  StoredBlock stored{std::move(**row),
                     std::vector<uint8_t>((*frame)->Blob(0).begin(), (*frame)->Blob(0).end())};
  (*frame)->Reset();
  return std::optional<StoredBlock>(std::move(stored));
}

}  // namespace

Result<CompactionResult> Store::CompactClosedGroups(int64_t idle_before_ns, size_t max_groups) {
  std::lock_guard pass(compaction_mutex_);
  CompactionResult result;
  std::vector<CompactedGroup> ready;
  int64_t after_id = 0;
  size_t encoded = 0;
  while (!result.more) {
    std::vector<Candidate> candidates;
    {
      ReaderPool::Lease reader = readers_->Acquire();
      Result<std::vector<Candidate>> found = ClosedGroupsAfter(*reader, after_id, idle_before_ns);
      if (!found.ok()) return found.status();
      candidates = std::move(found).value();
    }
    if (candidates.empty()) break;
    after_id = candidates.back().keyframe_id;
    for (Candidate& candidate : candidates) {
      if (encoded == max_groups) {
        result.more = true;
        break;
      }
      // A group found not worth a block is tried again only once it has grown.
      if (auto left = left_as_frames_.find(candidate.keyframe_id);
          left != left_as_frames_.end() && left->second == candidate.members) {
        continue;
      }
      Result<std::vector<Member>> members = Status::Error("not read");
      {
        ReaderPool::Lease reader = readers_->Acquire();
        SqliteTransaction read(reader.get());
        if (Status s = read.BeginRead(); !s.ok()) return s;
        members = ReadMembers(*reader, candidate.keyframe_id);
      }
      if (!members.ok()) return members.status();
      if (members->empty()) continue;
      ++encoded;
      std::optional<std::vector<uint8_t>> block =
          BuildBlock(candidate.keyframe_id, *members, options_.level);
      if (!block) {
        left_as_frames_[candidate.keyframe_id] = members->size();
        continue;
      }
      CompactedGroup& group = ready.emplace_back();
      group.keyframe_id = candidate.keyframe_id;
      group.host_id = candidate.host_id;
      group.query = std::move(candidate.query);
      for (const Member& member : *members) {
        group.member_ids.push_back(member.id);
        group.frames_size += member.stored_size;
      }
      group.block = std::move(*block);
      if (ready.size() >= kGroupsPerTransaction) {
        if (Status s = ReplaceFramesWithBlocks(ready, result); !s.ok()) return s;
        ready.clear();
      }
    }
  }
  if (!ready.empty()) {
    if (Status s = ReplaceFramesWithBlocks(ready, result); !s.ok()) return s;
  }
  if (options_.merged_block_snapshots > 1) {
    while (!streams_to_merge_.empty()) {
      auto [host_id, query] = *streams_to_merge_.begin();
      streams_to_merge_.erase(streams_to_merge_.begin());
      if (Status s = MergeStreamBlocks(host_id, query, result); !s.ok()) return s;
    }
  }
  if (result.groups > 0 || result.groups_merged > 0) {
    std::lock_guard lock(write_mutex_);
    // Give the pages of the frames replaced back to the file system (auto_vacuum=INCREMENTAL),
    // as retention does: the data directory is what the store holds.
    if (Status s = writer_->Exec("PRAGMA incremental_vacuum"); !s.ok()) return s;
  }
  return result;
}

Status Store::ReplaceFramesWithBlocks(const std::vector<CompactedGroup>& groups,
                                      CompactionResult& result) {
  std::lock_guard lock(write_mutex_);
  SqliteTransaction transaction(writer_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  Result<SqliteStatement*> members =
      writer_->Prepare("SELECT id FROM snapshots WHERE id = ?1 OR keyframe_id = ?1 ORDER BY id");
  Result<SqliteStatement*> put_block =
      writer_->Prepare("UPDATE frames SET frame = ?2 WHERE id = ?1");
  Result<SqliteStatement*> drop_frame = writer_->Prepare("DELETE FROM frames WHERE id = ?1");
  Result<SqliteStatement*> count_host =
      writer_->Prepare("UPDATE hosts SET stored_bytes = stored_bytes - ?2 WHERE id = ?1");
  for (const auto* statement : {&members, &put_block, &drop_frame, &count_host}) {
    if (!statement->ok()) return statement->status();
  }
  CompactionResult done;
  for (const CompactedGroup& group : groups) {
    // The group as it is now: the block replaces it only if it still is what was encoded (no
    // member appended to an idle group, none deleted by retention).
    std::vector<int64_t> now;
    (*members)->Bind(1, group.keyframe_id);
    Status read =
        (*members)->ForEachRow([&](const SqliteStatement& row) { now.push_back(row.Int(0)); });
    if (!read.ok()) return read;
    if (now != group.member_ids) {
      ++done.groups_changed;
      continue;
    }
    if (Status s = (*put_block)->Bind(1, group.keyframe_id).BindBlob(2, group.block).Run();
        !s.ok()) {
      return s;
    }
    const int64_t count = static_cast<int64_t>(group.member_ids.size());
    const int64_t block_size = static_cast<int64_t>(group.block.size());
    for (size_t i = 1; i < group.member_ids.size(); ++i) {
      if (Status s = (*drop_frame)->Bind(1, group.member_ids[i]).Run(); !s.ok()) return s;
    }
    // The members' rows become the group's one row.
    if (Status s = MoveRowsIntoBlockRow(*writer_, group.keyframe_id, group.member_ids, block_size);
        !s.ok()) {
      return s;
    }
    const int64_t saved = group.frames_size - block_size;
    if (Status s = (*count_host)->Bind(1, group.host_id).Bind(2, saved).Run(); !s.ok()) return s;
    // An idle group compacted takes no more members: its stream's next append starts a group.
    keyframes_->Forget(group.host_id, group.query, group.keyframe_id);
    streams_to_merge_.emplace(group.host_id, group.query);
    ++done.groups;
    done.snapshots += count;
    done.bytes_saved += saved;
  }
  if (Status s = transaction.Commit(); !s.ok()) {
    keyframes_->Clear();
    return s;
  }
  result.groups += done.groups;
  result.snapshots += done.snapshots;
  result.bytes_saved += done.bytes_saved;
  result.groups_changed += done.groups_changed;
  ++result.transactions;
  return Status();
}

Status Store::MergeStreamBlocks(int64_t host_id, const std::string& query,
                                CompactionResult& result) {
  const size_t target = options_.merged_block_snapshots;
  for (;;) {
    // The groups not merged yet: blocks of at most half the target (a merged one holds more).
    MergedBlock merged;
    merged.host_id = host_id;
    std::vector<std::vector<uint8_t>> raws;
    {
      ReaderPool::Lease reader = readers_->Acquire();
      SqliteTransaction read(reader.get());
      if (Status s = read.BeginRead(); !s.ok()) return s;
      Result<std::vector<std::pair<int64_t, size_t>>> unmerged =
          UnmergedBlocks(*reader, host_id, query, target / 2);
      if (!unmerged.ok()) return unmerged.status();
      // The oldest of them that fit in one block, once they add up to a whole one.
      size_t total = 0;
      for (const auto& group : *unmerged) total += group.second;
      if (total < target) return Status();
      size_t run = 0, snapshots = 0;
      while (run < unmerged->size() && snapshots + (*unmerged)[run].second <= target) {
        snapshots += (*unmerged)[run++].second;
      }
      if (run < 2) return Status();
      const int64_t first = (*unmerged)[0].first;
      if (auto left = left_unmerged_.find(first);
          left != left_unmerged_.end() && left->second == snapshots) {
        return Status();
      }
      uint64_t raw_total = 0;
      for (size_t g = 0; g < run; ++g) {
        const int64_t keyframe_id = (*unmerged)[g].first;
        Result<std::optional<StoredBlock>> stored = ReadBlock(*reader, keyframe_id);
        if (!stored.ok()) return stored.status();
        if (!stored->has_value()) return Status();  // changed since listed: the next pass
        StoredBlock& block = **stored;
        // Each member restored and checked against its digest before the block goes.
        Result<std::unique_ptr<GroupDecoder>> decoder = OpenGroup(keyframe_id, block.block);
        bool restored = decoder.ok();
        for (size_t i = 0; restored && i < block.row.members.size(); ++i) {
          restored = RestoreForBlock(**decoder, {.block_index = static_cast<int64_t>(i)},
                                     block.row.members[i].sha256, raws, raw_total);
        }
        if (!restored) {
          left_unmerged_[first] = snapshots;
          return Status();
        }
        merged.groups.push_back(std::move(block.row));
      }
    }
    // Encoded and checked without a connection or the write lock.
    int64_t blocks_size = 0;
    for (const BlockRow& group : merged.groups) blocks_size += group.stored_size;
    std::optional<std::vector<uint8_t>> block =
        CheckedBlock(merged.groups[0].id, raws, blocks_size, options_.level);
    if (!block) {
      left_unmerged_[merged.groups[0].id] = raws.size();
      return Status();
    }
    merged.block = std::move(*block);
    const int64_t merged_before = result.groups_merged;
    if (Status s = ReplaceBlocksWithMerged(merged, result); !s.ok()) return s;
    if (result.groups_merged == merged_before) return Status();  // changed meanwhile
  }
}

Status Store::ReplaceBlocksWithMerged(const MergedBlock& merged, CompactionResult& result) {
  std::lock_guard lock(write_mutex_);
  SqliteTransaction transaction(writer_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  Result<SqliteStatement*> put_block =
      writer_->Prepare("UPDATE frames SET frame = ?2 WHERE id = ?1");
  Result<SqliteStatement*> drop_frame = writer_->Prepare("DELETE FROM frames WHERE id = ?1");
  Result<SqliteStatement*> drop_row = writer_->Prepare("DELETE FROM blocks WHERE id = ?1");
  Result<SqliteStatement*> count_host =
      writer_->Prepare("UPDATE hosts SET stored_bytes = stored_bytes - ?2 WHERE id = ?1");
  for (const auto* statement : {&put_block, &drop_frame, &drop_row, &count_host}) {
    if (!statement->ok()) return statement->status();
  }
  // Every group as it was read, or none is merged (retention may have deleted one meanwhile).
  BlockRow merged_row = merged.groups[0];
  merged_row.members.clear();
  int64_t blocks_size = 0;
  for (const BlockRow& group : merged.groups) {
    Result<std::shared_ptr<const BlockRow>> now = ReadBlockRow(*writer_, group.id);
    if (!now.ok()) return now.status();
    if (*now == nullptr || (*now)->members != group.members ||
        (*now)->stored_size != group.stored_size) {
      ++result.groups_changed;
      return Status();
    }
    merged_row.members.insert(merged_row.members.end(), group.members.begin(), group.members.end());
    blocks_size += group.stored_size;
  }
  const int64_t first = merged_row.id;
  if (Status s = (*put_block)->Bind(1, first).BindBlob(2, merged.block).Run(); !s.ok()) return s;
  for (size_t g = 1; g < merged.groups.size(); ++g) {
    if (Status s = (*drop_frame)->Bind(1, merged.groups[g].id).Run(); !s.ok()) return s;
    if (Status s = (*drop_row)->Bind(1, merged.groups[g].id).Run(); !s.ok()) return s;
  }
  merged_row.stored_size = static_cast<int64_t>(merged.block.size());
  if (Status s = PutBlockRow(*writer_, merged_row); !s.ok()) return s;
  const int64_t saved = blocks_size - merged_row.stored_size;
  if (Status s = (*count_host)->Bind(1, merged.host_id).Bind(2, saved).Run(); !s.ok()) return s;
  if (Status s = transaction.Commit(); !s.ok()) return s;
  result.groups_merged += static_cast<int64_t>(merged.groups.size()) - 1;
  result.merged_bytes_saved += saved;
  ++result.transactions;
  return Status();
}

}  // namespace perfhive
