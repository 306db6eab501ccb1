// Store: a closed group rewritten as one columnar block (docs/store_format.md, "Closed groups as
// columnar blocks").

#include <algorithm>
#include <vector>

#include "port/sha256.h"
#include "store/group_columns.h"
#include "store/group_restorer.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace perfhive {

namespace {

struct Member {
  int64_t id = 0;
  int64_t host_id = 0;
  int64_t stored_size = 0;
  Sha256Digest sha256{};
  std::vector<uint8_t> frame;
};

}  // namespace

Status Store::CompactGroup(int64_t keyframe_id) {
  Result<SqliteStatement*> select = writer_->Prepare(
      "SELECT s.id, s.host_id, s.stored_size, s.sha256, s.raw_size, s.block_index, f.frame"
      " FROM snapshots s JOIN frames f ON f.id = s.id"
      " WHERE s.id = ?1 OR s.keyframe_id = ?1 ORDER BY s.id");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, keyframe_id);
  std::vector<Member> members;
  uint64_t raw_total = 0;
  bool compacted = false;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    Member& member = members.emplace_back();
    member.id = row.Int(0);
    member.host_id = row.Int(1);
    member.stored_size = row.Int(2);
    std::span<const uint8_t> sha = row.Blob(3);
    std::copy_n(sha.begin(), std::min(sha.size(), member.sha256.size()), member.sha256.begin());
    raw_total += static_cast<uint64_t>(row.Int(4));
    compacted = compacted || !row.IsNull(5);
    member.frame.assign(row.Blob(6).begin(), row.Blob(6).end());
  });
  if (!read.ok()) return read;
  // The keyframe first (the smallest id of its group); a group of one gains nothing.
  if (compacted || members.size() < 2 || members[0].id != keyframe_id ||
      members.size() > kMaxBlockSnapshots || raw_total > kMaxBlockRawBytes) {
    return Status();
  }
  std::vector<std::vector<uint8_t>> raws;
  GroupRestorer restorer(keyframe_id, members[0].frame);
  for (size_t i = 0; i < members.size(); ++i) {
    Result<std::vector<uint8_t>> raw = restorer.Restore(members[i].frame, i == 0, nullptr);
    // A group that does not restore as stored is left as it is, for ReadSnapshot to report.
    if (!raw.ok() || Sha256(*raw) != members[i].sha256) return Status();
    raws.push_back(std::move(raw).value());
  }
  std::vector<std::span<const uint8_t>> spans(raws.begin(), raws.end());
  std::vector<uint8_t> block = EncodeGroupColumns(spans, options_.level);
  // The frames go only once the block gives every member back exactly.
  Result<GroupColumns> parsed = GroupColumns::Parse(block);
  if (!parsed.ok()) return Status();
  for (size_t i = 0; i < raws.size(); ++i) {
    Result<std::vector<uint8_t>> back = parsed->Restore(i);
    if (!back.ok() || *back != raws[i]) return Status();
  }
  int64_t frames_size = 0;
  for (const Member& member : members) frames_size += member.stored_size;
  if (static_cast<int64_t>(block.size()) >= frames_size) return Status();

  Result<SqliteStatement*> put_block =
      writer_->Prepare("UPDATE frames SET frame = ?2 WHERE id = ?1");
  if (!put_block.ok()) return put_block.status();
  if (Status s = (*put_block)->Bind(1, keyframe_id).BindBlob(2, block).Run(); !s.ok()) return s;
  Result<SqliteStatement*> drop_frame = writer_->Prepare("DELETE FROM frames WHERE id = ?1");
  if (!drop_frame.ok()) return drop_frame.status();
  // The block's bytes are shared out among its members, the remainder to the keyframe, so that
  // sums of stored_size stay what the database holds.
  Result<SqliteStatement*> mark =
      writer_->Prepare("UPDATE snapshots SET block_index = ?2, stored_size = ?3 WHERE id = ?1");
  if (!mark.ok()) return mark.status();
  const int64_t count = static_cast<int64_t>(members.size());
  const int64_t share = static_cast<int64_t>(block.size()) / count;
  for (int64_t i = 0; i < count; ++i) {
    const Member& member = members[static_cast<size_t>(i)];
    if (i > 0) {
      if (Status s = (*drop_frame)->Bind(1, member.id).Run(); !s.ok()) return s;
    }
    const int64_t size = i == 0 ? static_cast<int64_t>(block.size()) - share * (count - 1) : share;
    if (Status s = (*mark)->Bind(1, member.id).Bind(2, i).Bind(3, size).Run(); !s.ok()) return s;
  }
  Result<SqliteStatement*> count_host =
      writer_->Prepare("UPDATE hosts SET stored_bytes = stored_bytes - ?2 WHERE id = ?1");
  if (!count_host.ok()) return count_host.status();
  return (*count_host)
      ->Bind(1, members[0].host_id)
      .Bind(2, frames_size - static_cast<int64_t>(block.size()))
      .Run();
}

}  // namespace perfhive
