// Store: closed groups rewritten as columnar blocks by a pass of their own (docs/store_format.md,
// "Closed groups as columnar blocks").

#include <algorithm>
#include <optional>
#include <vector>

#include "port/sha256.h"
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
      "SELECT s.id, s.stored_size, s.sha256, s.block_index, f.frame"
      " FROM snapshots s JOIN frames f ON f.id = s.id"
      " WHERE s.id = ?1 OR s.keyframe_id = ?1 ORDER BY s.id");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, keyframe_id);
  std::vector<Member> members;
  bool compacted = false;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    Member& member = members.emplace_back();
    member.id = row.Int(0);
    member.stored_size = row.Int(1);
    std::span<const uint8_t> sha = row.Blob(2);
    std::copy_n(sha.begin(), std::min(sha.size(), member.sha256.size()), member.sha256.begin());
    compacted = compacted || !row.IsNull(3);
    member.frame.assign(row.Blob(4).begin(), row.Blob(4).end());
  });
  if (!read.ok()) return read;
  if (compacted || members.empty() || members[0].id != keyframe_id) members.clear();
  return members;
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
  for (size_t i = 0; i < members.size(); ++i) {
    const GroupMember member{.is_keyframe = i == 0,
                             .frame = i == 0 ? std::span<const uint8_t>() : members[i].frame};
    Result<std::vector<uint8_t>> raw = (*frames)->Restore(member, nullptr);
    if (!raw.ok() || Sha256(*raw) != members[i].sha256) return std::nullopt;
    raw_total += raw->size();
    if (raw_total > kMaxBlockRawBytes) return std::nullopt;
    raws.push_back(std::move(raw).value());
  }
  std::vector<std::span<const uint8_t>> spans(raws.begin(), raws.end());
  std::vector<uint8_t> block = EncodeGroupColumns(spans, level);
  // The frames go only once the block gives every member back exactly.
  Result<std::unique_ptr<GroupDecoder>> columns = OpenGroup(keyframe_id, block);
  if (!columns.ok()) return std::nullopt;
  for (size_t i = 0; i < raws.size(); ++i) {
    Result<std::vector<uint8_t>> back =
        (*columns)->Restore({.block_index = static_cast<int64_t>(i)}, nullptr);
    if (!back.ok() || *back != raws[i]) return std::nullopt;
  }
  int64_t frames_size = 0;
  for (const Member& member : members) frames_size += member.stored_size;
  if (static_cast<int64_t>(block.size()) >= frames_size) return std::nullopt;
  return block;
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
  if (result.groups > 0) {
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
  Result<SqliteStatement*> members = writer_->Prepare(
      "SELECT id, block_index FROM snapshots WHERE id = ?1 OR keyframe_id = ?1 ORDER BY id");
  Result<SqliteStatement*> put_block =
      writer_->Prepare("UPDATE frames SET frame = ?2 WHERE id = ?1");
  Result<SqliteStatement*> drop_frame = writer_->Prepare("DELETE FROM frames WHERE id = ?1");
  Result<SqliteStatement*> mark =
      writer_->Prepare("UPDATE snapshots SET block_index = ?2, stored_size = ?3 WHERE id = ?1");
  Result<SqliteStatement*> count_host =
      writer_->Prepare("UPDATE hosts SET stored_bytes = stored_bytes - ?2 WHERE id = ?1");
  for (const auto* statement : {&members, &put_block, &drop_frame, &mark, &count_host}) {
    if (!statement->ok()) return statement->status();
  }
  CompactionResult done;
  for (const CompactedGroup& group : groups) {
    // The group as it is now: the block replaces it only if it still is what was encoded (no
    // member appended to an idle group, none deleted by retention).
    std::vector<int64_t> now;
    bool compacted = false;
    (*members)->Bind(1, group.keyframe_id);
    Status read = (*members)->ForEachRow([&](const SqliteStatement& row) {
      now.push_back(row.Int(0));
      compacted = compacted || !row.IsNull(1);
    });
    if (!read.ok()) return read;
    if (compacted || now != group.member_ids) {
      ++done.groups_changed;
      continue;
    }
    if (Status s = (*put_block)->Bind(1, group.keyframe_id).BindBlob(2, group.block).Run();
        !s.ok()) {
      return s;
    }
    // The block's bytes are shared out among its members, the remainder to the keyframe, so that
    // sums of stored_size stay what the database holds.
    const int64_t count = static_cast<int64_t>(group.member_ids.size());
    const int64_t block_size = static_cast<int64_t>(group.block.size());
    const int64_t share = block_size / count;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t id = group.member_ids[static_cast<size_t>(i)];
      if (i > 0) {
        if (Status s = (*drop_frame)->Bind(1, id).Run(); !s.ok()) return s;
      }
      const int64_t size = i == 0 ? block_size - share * (count - 1) : share;
      if (Status s = (*mark)->Bind(1, id).Bind(2, i).Bind(3, size).Run(); !s.ok()) return s;
    }
    const int64_t saved = group.frames_size - block_size;
    if (Status s = (*count_host)->Bind(1, group.host_id).Bind(2, saved).Run(); !s.ok()) return s;
    // An idle group compacted takes no more members: its stream's next append starts a group.
    keyframes_->Forget(group.host_id, group.query, group.keyframe_id);
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

}  // namespace perfhive
