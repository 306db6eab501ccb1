// Store: listing and restoring snapshots.

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "store/block_row_cache.h"
#include "store/block_rows.h"
#include "store/group_decoder.h"
#include "store/host_key.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace perfhive {

namespace {

constexpr const char* kSnapshotColumns =
    "SELECT id, query, sample_time, receive_time, instance_id, sequence, sha256, raw_size,"
    " stored_size, keyframe_id FROM snapshots";

SnapshotInfo SnapshotFromRow(const SqliteStatement& row, int64_t host_id, const std::string& host) {
  SnapshotInfo info;
  info.id = row.Int(0);
  info.host_id = host_id;
  info.host = host;
  info.query = row.Text(1);
  info.sample_time_ns = row.Int(2);
  info.receive_time_ns = row.Int(3);
  info.instance_id = row.Text(4);
  info.sequence = static_cast<uint64_t>(row.Int(5));
  info.sha256 = row.Digest(6);
  info.raw_size = row.Int(7);
  info.stored_size = row.Int(8);
  info.keyframe_id = row.IsNull(9) ? 0 : row.Int(9);
  return info;
}

// Member `index` of a compacted group, as a snapshot's row would say it: the block's bytes are
// shared out among its members, the remainder to the first, so that sums of stored_size are
// what the database holds.
SnapshotInfo SnapshotFromBlock(const BlockRow& block, size_t index, const std::string& host) {
  const BlockMember& member = block.members[index];
  const auto count = static_cast<int64_t>(block.members.size());
  const int64_t share = block.stored_size / count;
  SnapshotInfo info;
  info.id = member.id;
  info.host_id = block.host_id;
  info.host = host;
  info.query = block.query;
  info.sample_time_ns = member.sample_time_ns;
  info.receive_time_ns = member.receive_time_ns;
  info.instance_id = member.instance_id;
  info.sequence = member.sequence;
  info.sha256 = member.sha256;
  info.raw_size = member.raw_size;
  info.stored_size = index == 0 ? block.stored_size - share * (count - 1) : share;
  info.keyframe_id = member.id == block.id ? 0 : block.id;
  info.block_index = static_cast<int64_t>(index);
  return info;
}

// Where a snapshot is kept as the database holds it now: its group's keyframe and its place in
// the group's block (-1: it has a frame).
struct Place {
  int64_t keyframe_id = 0;
  int64_t block_index = -1;
};

// Finds where listed snapshots are now, within one read transaction: compaction may have moved
// a group's members into a block since they were listed, and merging a block into an earlier
// one. Each group listed is checked once; a moved member is looked for in the blocks found
// already before the database.
class Placer {
 public:
  // `cache` holds rows decoded before (store/block_row_cache.h).
  Placer(SqliteDb& db, BlockRowCache* cache) : db_(db), cache_(cache) {}

  Result<Place> Find(const SnapshotInfo& info) {
    const int64_t listed = info.keyframe_id != 0 ? info.keyframe_id : info.id;
    if (info.block_index < 0) {
      auto [unchanged, first] = frames_unchanged_.try_emplace(listed, false);
      if (first) {
        Result<std::optional<int64_t>> keyframe = KeyframeOfRow(listed);
        if (!keyframe.ok()) return keyframe.status();
        unchanged->second = keyframe->has_value() && **keyframe == 0;
      }
      if (unchanged->second) return Place{listed, -1};
      Result<std::optional<int64_t>> keyframe = KeyframeOfRow(info.id);
      if (!keyframe.ok()) return keyframe.status();
      if (keyframe->has_value()) return Place{**keyframe != 0 ? **keyframe : info.id, -1};
    } else {
      auto [block, first] = blocks_.try_emplace(listed);
      if (first) {
        Result<std::shared_ptr<const BlockRow>> row = ReadBlockRow(db_, listed, cache_);
        if (!row.ok()) return row.status();
        block->second = std::move(*row);
      }
      const auto index = static_cast<size_t>(info.block_index);
      if (block->second && index < block->second->members.size() &&
          block->second->members[index].id == info.id) {
        return Place{listed, info.block_index};
      }
    }
    for (const auto& [id, block] : blocks_) {
      if (!block) continue;
      if (std::optional<Place> place = InBlock(*block, info); place) return *place;
    }
    // A block of the host and query holding the member's sample time, not found before.
    std::optional<Place> found;
    Status read = ForEachBlockBetween(
        db_, info.host_id, info.sample_time_ns, info.sample_time_ns + 1, info.query, false,
        [&](const BlockRow& row) {
          found = InBlock(row, info);
          if (found) blocks_.insert_or_assign(row.id, std::make_shared<const BlockRow>(row));
          return !found;
        },
        cache_);
    if (!read.ok()) return read;
    if (!found) return Status::Error("no snapshot " + std::to_string(info.id));
    return *found;
  }

 private:
  // The keyframe of row `id` (0: it is one); nothing when it has no row.
  Result<std::optional<int64_t>> KeyframeOfRow(int64_t id) {
    Result<SqliteStatement*> select =
        db_.Prepare("SELECT keyframe_id FROM snapshots WHERE id = ?1");
    if (!select.ok()) return select.status();
    (*select)->Bind(1, id);
    Result<bool> row = (*select)->Step();
    if (!row.ok()) return row.status();
    std::optional<int64_t> keyframe;
    if (*row) keyframe = (*select)->IsNull(0) ? 0 : (*select)->Int(0);
    (*select)->Reset();
    return keyframe;
  }

  static std::optional<Place> InBlock(const BlockRow& block, const SnapshotInfo& info) {
    if (block.host_id != info.host_id || block.query != info.query) return {};
    for (size_t i = 0; i < block.members.size(); ++i) {
      if (block.members[i].id == info.id) return Place{block.id, static_cast<int64_t>(i)};
    }
    return {};
  }

  SqliteDb& db_;
  BlockRowCache* cache_;
  std::map<int64_t, bool> frames_unchanged_;  // by keyframe listed
  // By id: those listed (null: no such block now), and those found since.
  std::map<int64_t, std::shared_ptr<const BlockRow>> blocks_;
};

// The frame of snapshot `id`.
Result<std::vector<uint8_t>> ReadFrame(SqliteDb& db, int64_t id) {
  Result<SqliteStatement*> select = db.Prepare("SELECT frame FROM frames WHERE id = ?1");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, id);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  if (!*row)
    return Status::Error("store " + db.path() + ": snapshot " + std::to_string(id) +
                         " has no frame");
  std::span<const uint8_t> frame = (*select)->Blob(0);
  std::vector<uint8_t> out(frame.begin(), frame.end());
  (*select)->Reset();
  return out;
}

// A restore's error, naming the store and the snapshot.
Status RestoreError(const std::string& store, int64_t id, const Status& error) {
  return Status::DataLoss("store " + store + ": snapshot " + std::to_string(id) + ": " +
                          error.message());
}

// Whether `a` comes before `b` in a listing by sample time (then id), or after with `newest`.
bool ListedBefore(const SnapshotInfo& a, const SnapshotInfo& b, bool newest) {
  const auto key = [](const SnapshotInfo& info) { return std::pair(info.sample_time_ns, info.id); };
  return newest ? key(b) < key(a) : key(a) < key(b);
}

}  // namespace

Result<std::vector<SnapshotInfo>> Store::ListSnapshots(const std::string& host, int64_t from_ns,
                                                       int64_t to_ns,
                                                       const std::optional<std::string>& query,
                                                       std::optional<size_t> limit, bool newest) {
  if (limit && *limit == 0) return std::vector<SnapshotInfo>();
  ReaderPool::Lease reader = readers_->Acquire();
  SqliteTransaction read(reader.get());
  if (Status s = read.BeginRead(); !s.ok()) return s;
  Result<SqliteStatement*> find_host =
      reader->Prepare("SELECT id, name FROM hosts WHERE name_key = ?1");
  if (!find_host.ok()) return find_host.status();
  std::string key = HostKey(host);
  (*find_host)->Bind(1, key);
  Result<bool> found = (*find_host)->Step();
  if (!found.ok()) return found.status();
  if (!*found) return std::vector<SnapshotInfo>();
  const int64_t host_id = (*find_host)->Int(0);
  const std::string name = (*find_host)->Text(1);
  (*find_host)->Reset();

  // The snapshots kept as frames (open groups, and those not compacted yet)...
  static const std::string where = std::string(kSnapshotColumns) +
                                   " WHERE host_id = ?1 AND sample_time >= ?2 AND"
                                   " sample_time < ?3 AND (?4 IS NULL OR query = ?4)";
  static const std::string oldest_sql = where + " ORDER BY sample_time, id LIMIT ?5";
  static const std::string newest_sql = where + " ORDER BY sample_time DESC, id DESC LIMIT ?5";
  Result<SqliteStatement*> select =
      reader->Prepare(newest ? newest_sql.c_str() : oldest_sql.c_str());
  if (!select.ok()) return select.status();
  // SQLite reads a negative LIMIT as none.
  (*select)
      ->Bind(1, host_id)
      .Bind(2, from_ns)
      .Bind(3, to_ns)
      .Bind(5, limit ? static_cast<int64_t>(*limit) : -1);
  if (query) {
    (*select)->Bind(4, *query);
  } else {
    (*select)->BindNull(4);
  }
  std::vector<SnapshotInfo> snapshots;
  Status rows = (*select)->ForEachRow([&](const SqliteStatement& row) {
    snapshots.push_back(SnapshotFromRow(row, host_id, name));
  });
  if (!rows.ok()) return rows;
  const size_t rows_listed = snapshots.size();
  // ...and the members of compacted groups, block by block in the listing's order, until no
  // later block can hold one of the first `limit`.
  auto before = [newest](const SnapshotInfo& a, const SnapshotInfo& b) {
    return ListedBefore(a, b, newest);
  };
  Status blocks = ForEachBlockBetween(
      *reader, host_id, from_ns, to_ns, query, newest,
      [&](const BlockRow& block) {
        if (limit && snapshots.size() >= *limit) {
          std::nth_element(snapshots.begin(), snapshots.begin() + (*limit - 1), snapshots.end(),
                           before);
          const int64_t bound = snapshots[*limit - 1].sample_time_ns;
          // Later blocks begin no earlier (end no later, with `newest`) than this one.
          int64_t block_nearest = newest ? INT64_MIN : INT64_MAX;
          for (const BlockMember& member : block.members) {
            block_nearest = newest ? std::max(block_nearest, member.sample_time_ns)
                                   : std::min(block_nearest, member.sample_time_ns);
          }
          if (newest ? block_nearest < bound : block_nearest > bound) return false;
        }
        for (size_t i = 0; i < block.members.size(); ++i) {
          const int64_t t = block.members[i].sample_time_ns;
          if (t >= from_ns && t < to_ns) snapshots.push_back(SnapshotFromBlock(block, i, name));
        }
        return true;
      },
      block_rows_.get());
  if (!blocks.ok()) return blocks;
  if (limit) {
    std::sort(snapshots.begin(), snapshots.end(), before);
    if (snapshots.size() > *limit) snapshots.resize(*limit);
  } else {
    // The rows came sorted, and the blocks' members nearly so (blocks by time, each member in
    // its block's order): a merge, not a sort of the whole range.
    const auto blocks_begin = snapshots.begin() + static_cast<std::ptrdiff_t>(rows_listed);
    if (!std::is_sorted(blocks_begin, snapshots.end(), before)) {
      std::sort(blocks_begin, snapshots.end(), before);
    }
    std::inplace_merge(snapshots.begin(), blocks_begin, snapshots.end(), before);
  }
  if (newest) std::reverse(snapshots.begin(), snapshots.end());
  return snapshots;
}

Result<std::vector<uint8_t>> Store::ReadSnapshot(const SnapshotInfo& info) {
  ReaderPool::Lease reader = readers_->Acquire();
  // One state of the database for the place and the frames: compaction may replace them.
  std::optional<SqliteTransaction> read(reader.get());
  if (Status s = read->BeginRead(); !s.ok()) return s;
  Placer placer(*reader, block_rows_.get());
  Result<Place> place = placer.Find(info);
  if (!place.ok()) return place.status();
  const GroupMember member{.is_keyframe = place->keyframe_id == info.id,
                           .block_index = place->block_index};
  Result<std::vector<uint8_t>> stored = ReadFrame(*reader, place->keyframe_id);
  if (!stored.ok()) return stored.status();
  std::vector<uint8_t> own_frame;
  if (!member.is_keyframe && member.block_index < 0) {
    Result<std::vector<uint8_t>> frame = ReadFrame(*reader, info.id);
    if (!frame.ok()) return frame.status();
    own_frame = std::move(*frame);
  }
  read.reset();
  reader.Release();
  Result<std::unique_ptr<GroupDecoder>> group = OpenGroup(place->keyframe_id, std::move(*stored));
  Result<std::vector<uint8_t>> raw = Status::Error("not restored");
  if (group.ok()) {
    GroupMember restored = member;
    restored.frame = own_frame;
    raw = (*group)->Restore(restored, nullptr);
  } else {
    raw = group.status();
  }
  if (!raw.ok()) return RestoreError(path(), info.id, raw.status());
  if (Sha256(*raw) != info.sha256) {
    return Status::DataLoss("store " + path() + ": snapshot " + std::to_string(info.id) +
                            " restores to bytes whose SHA-256 is not the one stored");
  }
  return raw;
}

Result<std::vector<std::vector<uint8_t>>> Store::ReadSnapshots(
    std::span<const SnapshotInfo> infos, const ObjectsWanted& wanted,
    std::span<const uint32_t> wanted_runs) {
  // The stored bytes first, in one read transaction; restoring them needs no connection, so
  // other readers go on meanwhile.
  std::vector<std::vector<uint8_t>> frames;  // each member's own frame, if it has one
  frames.reserve(infos.size());
  // The bytes stored under the keyframes of groups that a member needs and that are not read
  // as a member's frame: a compacted group's block, or the keyframe of members that follow
  // another group of their query (the range begins inside their group, or a resend of older
  // samples made a group that interleaves with it by sample time).
  std::map<int64_t, std::vector<uint8_t>> group_bytes;
  // Each snapshot as this read finds it, and the keyframe of its group: a group compacted since
  // `infos` were listed reads from its block, and one merged into an earlier group's block since
  // (Store::CompactClosedGroups) from that one.
  std::vector<GroupMember> members(infos.size());
  std::vector<int64_t> keyframes(infos.size());
  {
    ReaderPool::Lease reader = readers_->Acquire();
    SqliteTransaction read(reader.get());
    if (Status status = read.BeginRead(); !status.ok()) return status;
    Placer placer(*reader, block_rows_.get());
    std::map<std::string, int64_t, std::less<>> open;  // each query's group, as restored below
    for (size_t i = 0; i < infos.size(); ++i) {
      const SnapshotInfo& info = infos[i];
      GroupMember& member = members[i];
      if (i < wanted_runs.size()) member.wanted_run = wanted_runs[i];
      Result<Place> place = placer.Find(info);
      if (!place.ok()) return place.status();
      const int64_t keyframe_id = place->keyframe_id;
      member.block_index = place->block_index;
      keyframes[i] = keyframe_id;
      member.is_keyframe = keyframe_id == info.id;
      bool needs_group_bytes = member.block_index >= 0;
      if (!needs_group_bytes) {
        int64_t& group = open[info.query];
        needs_group_bytes = !member.is_keyframe && keyframe_id != group;
        group = keyframe_id;
      }
      if (needs_group_bytes && !group_bytes.contains(keyframe_id)) {
        // A compacted group's block is read once, under its keyframe, for all its members.
        Result<std::vector<uint8_t>> bytes = ReadFrame(*reader, keyframe_id);
        if (!bytes.ok()) return bytes.status();
        group_bytes.emplace(keyframe_id, std::move(*bytes));
      }
      if (member.block_index >= 0) {
        frames.emplace_back();
        continue;
      }
      Result<std::vector<uint8_t>> frame = ReadFrame(*reader, info.id);
      if (!frame.ok()) return frame.status();
      frames.push_back(std::move(*frame));
    }
  }
  // Each query's open group, and the compacted groups by keyframe.
  std::map<std::string, std::unique_ptr<GroupDecoder>, std::less<>> open_groups;
  std::map<int64_t, std::unique_ptr<GroupDecoder>> blocks;
  std::vector<std::vector<uint8_t>> raws;
  raws.reserve(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    const SnapshotInfo& info = infos[i];
    GroupMember& member = members[i];
    const int64_t keyframe_id = keyframes[i];
    std::unique_ptr<GroupDecoder>& group =
        member.block_index >= 0 ? blocks[keyframe_id] : open_groups[info.query];
    const bool own_frame_opens = member.is_keyframe && member.block_index < 0;
    if (own_frame_opens || !group || group->keyframe_id() != keyframe_id) {
      // A keyframe's own frame is its group's (the member then gives none); other groups begin
      // with the bytes read above: a block once, a keyframe's frame each time its query's
      // members come back to its group.
      std::vector<uint8_t> bytes;
      if (own_frame_opens) {
        bytes = std::move(frames[i]);
      } else if (member.block_index >= 0) {
        bytes = std::move(group_bytes[keyframe_id]);
      } else {
        bytes = group_bytes[keyframe_id];
      }
      Result<std::unique_ptr<GroupDecoder>> opened = OpenGroup(keyframe_id, std::move(bytes));
      if (!opened.ok()) return RestoreError(path(), info.id, opened.status());
      group = std::move(*opened);
    }
    if (!own_frame_opens) member.frame = frames[i];
    const ObjectWanted object_wanted = [&wanted, i](uint32_t object) { return wanted(i, object); };
    Result<std::vector<uint8_t>> raw = group->Restore(member, wanted ? &object_wanted : nullptr);
    if (!raw.ok()) return RestoreError(path(), info.id, raw.status());
    raws.push_back(std::move(*raw));
  }
  return raws;
}

Result<std::optional<uint64_t>> Store::LastSequence(const std::string& host,
                                                    const std::string& instance_id) {
  ReaderPool::Lease reader = readers_->Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT r.last_sequence FROM runs r JOIN hosts h ON h.id = r.host_id"
      " WHERE h.name_key = ?1 AND r.instance_id = ?2");
  if (!select.ok()) return select.status();
  std::string key = HostKey(host);
  (*select)->Bind(1, key).Bind(2, instance_id);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  std::optional<uint64_t> last;
  if (*row && !(*select)->IsNull(0)) last = static_cast<uint64_t>((*select)->Int(0));
  (*select)->Reset();
  return last;
}

Result<StoreTotals> Store::Totals() {
  ReaderPool::Lease reader = readers_->Acquire();
  // From the hosts' counts and the keyframe index, not a scan of every snapshot: /metrics asks
  // at every scrape.
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT COALESCE(SUM(snapshots_stored), 0),"
      " (SELECT COUNT(*) FROM snapshots WHERE keyframe_id IS NULL)"
      " + (SELECT COUNT(*) FROM blocks),"
      " COALESCE(SUM(raw_bytes_stored), 0), COALESCE(SUM(stored_bytes), 0) FROM hosts");
  if (!select.ok()) return select.status();
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  StoreTotals totals;
  totals.snapshots = (*select)->Int(0);
  totals.keyframes = (*select)->Int(1);
  totals.raw_bytes = (*select)->Int(2);
  totals.stored_bytes = (*select)->Int(3);
  (*select)->Reset();
  Result<int64_t> pages = reader->QueryInt("PRAGMA page_count");
  if (!pages.ok()) return pages.status();
  Result<int64_t> page_size = reader->QueryInt("PRAGMA page_size");
  if (!page_size.ok()) return page_size.status();
  totals.file_bytes = *pages * *page_size;
  return totals;
}

}  // namespace perfhive
