// Store: listing and restoring snapshots.

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "store/group_decoder.h"
#include "store/host_key.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace perfhive {

namespace {

constexpr const char* kSnapshotColumns =
    "SELECT s.id, h.name, s.query, s.sample_time, s.receive_time, s.instance_id, s.sequence,"
    " s.sha256, s.raw_size, s.stored_size, s.keyframe_id, s.block_index"
    " FROM snapshots s JOIN hosts h ON h.id = s.host_id";

SnapshotInfo SnapshotFromRow(const SqliteStatement& row) {
  SnapshotInfo info;
  info.id = row.Int(0);
  info.host = row.Text(1);
  info.query = row.Text(2);
  info.sample_time_ns = row.Int(3);
  info.receive_time_ns = row.Int(4);
  info.instance_id = row.Text(5);
  info.sequence = static_cast<uint64_t>(row.Int(6));
  std::span<const uint8_t> sha = row.Blob(7);
  std::copy_n(sha.begin(), std::min(sha.size(), info.sha256.size()), info.sha256.begin());
  info.raw_size = row.Int(8);
  info.stored_size = row.Int(9);
  info.keyframe_id = row.IsNull(10) ? 0 : row.Int(10);
  info.block_index = row.IsNull(11) ? -1 : row.Int(11);
  return info;
}

Result<SnapshotInfo> SelectSnapshot(SqliteDb& db, int64_t id) {
  static const std::string sql = std::string(kSnapshotColumns) + " WHERE s.id = ?1";
  Result<SqliteStatement*> select = db.Prepare(sql.c_str());
  if (!select.ok()) return select.status();
  (*select)->Bind(1, id);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Error("no snapshot " + std::to_string(id));
  SnapshotInfo info = SnapshotFromRow(**select);
  (*select)->Reset();
  return info;
}

// Where snapshot `id` is kept as the database holds it now: its group's keyframe (0: it is one)
// and its place in the group's block (-1: it has a frame).
struct Place {
  int64_t keyframe_id = 0;
  int64_t block_index = -1;
};
Result<Place> PlaceNow(SqliteDb& db, int64_t id) {
  Result<SqliteStatement*> select =
      db.Prepare("SELECT keyframe_id, block_index FROM snapshots WHERE id = ?1");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, id);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Error("no snapshot " + std::to_string(id));
  Place place{(*select)->IsNull(0) ? 0 : (*select)->Int(0),
              (*select)->IsNull(1) ? -1 : (*select)->Int(1)};
  (*select)->Reset();
  return place;
}

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

}  // namespace

Result<std::vector<SnapshotInfo>> Store::ListSnapshots(const std::string& host, int64_t from_ns,
                                                       int64_t to_ns,
                                                       const std::optional<std::string>& query,
                                                       std::optional<size_t> limit, bool newest) {
  ReaderPool::Lease reader = readers_->Acquire();
  static const std::string where = std::string(kSnapshotColumns) +
                                   " WHERE h.name_key = ?1 AND s.sample_time >= ?2 AND"
                                   " s.sample_time < ?3 AND (?4 IS NULL OR s.query = ?4)";
  static const std::string oldest_sql = where + " ORDER BY s.sample_time, s.id LIMIT ?5";
  static const std::string newest_sql = where + " ORDER BY s.sample_time DESC, s.id DESC LIMIT ?5";
  Result<SqliteStatement*> select =
      reader->Prepare(newest ? newest_sql.c_str() : oldest_sql.c_str());
  if (!select.ok()) return select.status();
  std::string key = HostKey(host);
  // SQLite reads a negative LIMIT as none.
  (*select)
      ->Bind(1, key)
      .Bind(2, from_ns)
      .Bind(3, to_ns)
      .Bind(5, limit ? static_cast<int64_t>(*limit) : -1);
  if (query) {
    (*select)->Bind(4, *query);
  } else {
    (*select)->BindNull(4);
  }
  std::vector<SnapshotInfo> snapshots;
  Status read = (*select)->ForEachRow(
      [&](const SqliteStatement& row) { snapshots.push_back(SnapshotFromRow(row)); });
  if (!read.ok()) return read;
  if (newest) std::reverse(snapshots.begin(), snapshots.end());
  return snapshots;
}

Result<SnapshotInfo> Store::GetSnapshotInfo(int64_t id) {
  ReaderPool::Lease reader = readers_->Acquire();
  return SelectSnapshot(*reader, id);
}

Result<std::vector<uint8_t>> Store::ReadSnapshot(int64_t id) {
  ReaderPool::Lease reader = readers_->Acquire();
  // One state of the database for the row and its frames: compaction may replace them.
  std::optional<SqliteTransaction> read(reader.get());
  if (Status s = read->BeginRead(); !s.ok()) return s;
  Result<SnapshotInfo> info = SelectSnapshot(*reader, id);
  if (!info.ok()) return info.status();
  const GroupMember member{.is_keyframe = info->keyframe_id == 0, .block_index = info->block_index};
  const int64_t keyframe_id = member.is_keyframe ? id : info->keyframe_id;
  Result<std::vector<uint8_t>> stored = ReadFrame(*reader, keyframe_id);
  if (!stored.ok()) return stored.status();
  std::vector<uint8_t> own_frame;
  if (!member.is_keyframe && member.block_index < 0) {
    Result<std::vector<uint8_t>> frame = ReadFrame(*reader, id);
    if (!frame.ok()) return frame.status();
    own_frame = std::move(*frame);
  }
  read.reset();
  reader.Release();
  Result<std::unique_ptr<GroupDecoder>> group = OpenGroup(keyframe_id, std::move(*stored));
  Result<std::vector<uint8_t>> raw = Status::Error("not restored");
  if (group.ok()) {
    GroupMember restored = member;
    restored.frame = own_frame;
    raw = (*group)->Restore(restored, nullptr);
  } else {
    raw = group.status();
  }
  if (!raw.ok()) return RestoreError(path(), id, raw.status());
  if (Sha256(*raw) != info->sha256) {
    return Status::DataLoss("store " + path() + ": snapshot " + std::to_string(id) +
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
    // By the keyframe a group was listed under: whether it is kept as it was listed (as frames,
    // or as the block under that keyframe), checked once per group.
    std::map<int64_t, bool> unchanged;
    std::map<std::string, int64_t, std::less<>> open;  // each query's group, as restored below
    for (size_t i = 0; i < infos.size(); ++i) {
      const SnapshotInfo& info = infos[i];
      const int64_t listed_keyframe = info.keyframe_id != 0 ? info.keyframe_id : info.id;
      GroupMember& member = members[i];
      member.block_index = info.block_index;
      if (i < wanted_runs.size()) member.wanted_run = wanted_runs[i];
      auto [checked, first] = unchanged.try_emplace(listed_keyframe, true);
      if (first) {
        Result<Place> keyframe = PlaceNow(*reader, listed_keyframe);
        if (!keyframe.ok()) return keyframe.status();
        checked->second =
            keyframe->keyframe_id == 0 && (keyframe->block_index >= 0) == (info.block_index >= 0);
      }
      int64_t keyframe_id = listed_keyframe;
      if (!checked->second) {
        Result<Place> now = PlaceNow(*reader, info.id);
        if (!now.ok()) return now.status();
        keyframe_id = now->keyframe_id != 0 ? now->keyframe_id : info.id;
        member.block_index = now->block_index;
      }
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
      " (SELECT COUNT(*) FROM snapshots WHERE keyframe_id IS NULL),"
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
