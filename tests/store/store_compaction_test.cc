// Closed groups compacted into columnar blocks by the store's compaction pass: every snapshot
// reads back byte for byte (ReadSnapshot checks SHA-256; ReadSnapshots is compared), partial reads
// hold the wanted objects as stored, the counts of stored bytes follow, idle groups are closed
// and their streams go on in new groups, reads listed before a pass still read after it, a
// version 4 store (frames only) opens, reads and has every closed group compacted, and a stream's
// compacted groups merge into one block once they add up to it.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "port/sha256.h"
#include "store/store.h"
#include "tests/store/section_test_util.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::MakeAppend;
using testing::TempDir;

// A store whose groups close after 10 snapshots.
std::unique_ptr<Store> OpenTenSnapshotGroupStore(const std::string& dir) {
  StoreOptions options;
  options.group_size = 10;
  return testing::OpenStore(dir, options);
}

// A pass that takes no group as idle: those whose stream started another.
CompactionResult CompactClosed(Store& store) {
  Result<CompactionResult> result = store.CompactClosedGroups(0);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? *result : CompactionResult{};
}

// Sample `t` of a host whose processes come and go.
std::vector<uint8_t> Sample(uint64_t t) {
  return testing::HostSnapshot(t, {.processes = 12 + static_cast<int>(t % 5)});
}

void AppendSamples(Store& store, uint64_t from, uint64_t to) {
  for (uint64_t t = from; t < to; ++t) {
    Result<AppendResult> appended = store.Append(MakeAppend("web01", "boot", t, Sample(t)));
    ASSERT_TRUE(appended.ok()) << appended.error();
  }
}

// Every snapshot of web01 reads back exactly, one by one and all at once; returns them listed.
std::vector<SnapshotInfo> ExpectEveryReadExact(Store& store, size_t count) {
  Result<std::vector<SnapshotInfo>> listed = store.ListSnapshots("web01", 0, INT64_MAX);
  EXPECT_TRUE(listed.ok()) << listed.error();
  if (!listed.ok()) return {};
  EXPECT_EQ(listed->size(), count);
  Result<std::vector<std::vector<uint8_t>>> all = store.ReadSnapshots(*listed);
  EXPECT_TRUE(all.ok()) << all.error();
  for (size_t i = 0; i < listed->size(); ++i) {
    const SnapshotInfo& info = (*listed)[i];
    Result<std::vector<uint8_t>> raw = store.ReadSnapshot(info);
    EXPECT_TRUE(raw.ok()) << raw.error();
    if (!raw.ok()) continue;
    EXPECT_EQ(Sha256(*raw), Sha256(Sample(info.sequence))) << "sequence " << info.sequence;
    if (all.ok()) {
      EXPECT_EQ((*all)[i], *raw) << "sequence " << info.sequence;
    }
  }
  return *listed;
}

// Snapshots listed earlier read back exactly, whole and in part (Thread and its parent Process).
void ExpectListedReadExactly(Store& store, const std::vector<SnapshotInfo>& listed) {
  Result<std::vector<std::vector<uint8_t>>> read = store.ReadSnapshots(listed);
  ASSERT_TRUE(read.ok()) << read.error();
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ((*read)[i], Sample(listed[i].sequence)) << "sequence " << listed[i].sequence;
  }
  Result<std::vector<std::vector<uint8_t>>> part = store.ReadSnapshots(
      listed, [](size_t, uint32_t object) { return object == title_index::kThread; });
  ASSERT_TRUE(part.ok()) << part.error();
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(testing::ObjectsAsStored((*part)[i], Sample(listed[i].sequence)),
              (std::vector<uint32_t>{title_index::kProcess, title_index::kThread}));
  }
}

// Each group of the listing by its keyframe, with its members' places in its block.
std::map<int64_t, std::vector<int64_t>> GroupsOf(const std::vector<SnapshotInfo>& listed) {
  std::map<int64_t, std::vector<int64_t>> groups;
  for (const SnapshotInfo& info : listed) {
    groups[info.keyframe_id != 0 ? info.keyframe_id : info.id].push_back(info.block_index);
  }
  return groups;
}

// The stored bytes the listing's rows add up to are the host's and the store's count.
void ExpectStoredBytesAddUp(Store& store, const std::vector<SnapshotInfo>& listed) {
  int64_t stored = 0;
  for (const SnapshotInfo& info : listed) stored += info.stored_size;
  EXPECT_EQ((*store.catalog().FindHost("web01"))->stored_bytes, stored);
  EXPECT_EQ(store.Totals()->stored_bytes, stored);
}

TEST(StoreCompactionTest, ClosedGroupsBecomeBlocksThatReadBackExactly) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 35);
  const CompactionResult compacted_groups = CompactClosed(*store);
  std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 35);
  // Every closed group is a block, its members in order; the open one (the last) is frames.
  const std::map<int64_t, std::vector<int64_t>> groups = GroupsOf(listed);
  ASSERT_GE(groups.size(), 4u);  // of 10 at most; a delta too large starts one early
  EXPECT_EQ(compacted_groups.groups, static_cast<int64_t>(groups.size()) - 1);
  EXPECT_EQ(compacted_groups.snapshots, 35 - static_cast<int64_t>(groups.rbegin()->second.size()));
  EXPECT_EQ(compacted_groups.groups_changed, 0);
  EXPECT_FALSE(compacted_groups.more);
  // A second pass finds nothing left to do.
  EXPECT_EQ(CompactClosed(*store).groups, 0);
  for (const auto& [keyframe, indexes] : groups) {
    for (size_t i = 0; i < indexes.size(); ++i) {
      const bool open = keyframe == groups.rbegin()->first;
      EXPECT_EQ(indexes[i], open ? -1 : static_cast<int64_t>(i)) << "group of " << keyframe;
    }
  }
  // The same appends as frames only take more, and the host's count is the database's.
  TempDir frames_dir;
  auto frames = OpenTenSnapshotGroupStore(frames_dir.path());
  ASSERT_NE(frames, nullptr);
  AppendSamples(*frames, 0, 35);
  Result<StoreTotals> compacted = store->Totals();
  Result<StoreTotals> not_compacted = frames->Totals();
  ASSERT_TRUE(compacted.ok() && not_compacted.ok());
  EXPECT_LT(compacted->stored_bytes, not_compacted->stored_bytes);
  EXPECT_EQ((*store->catalog().FindHost("web01"))->stored_bytes, compacted->stored_bytes);
  EXPECT_EQ(not_compacted->stored_bytes - compacted->stored_bytes, compacted_groups.bytes_saved);
  // Appends go on after a reopen, and the next pass takes the groups they close.
  store.reset();
  store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 35, 45);
  EXPECT_EQ(CompactClosed(*store).groups, 1);
  ExpectEveryReadExact(*store, 45);
}

TEST(StoreCompactionTest, PartialReadsOfBlocksHoldTheWantedObjectsAsStored) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 25);
  ASSERT_GE(CompactClosed(*store).groups, 1);
  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok());
  Result<std::vector<std::vector<uint8_t>>> read = store->ReadSnapshots(
      *listed, [](size_t, uint32_t object) { return object == title_index::kThread; });
  ASSERT_TRUE(read.ok()) << read.error();
  for (size_t i = 0; i < listed->size(); ++i) {
    const std::vector<uint8_t> raw = Sample((*listed)[i].sequence);
    std::vector<uint32_t> objects = testing::ObjectsAsStored((*read)[i], raw);
    // A block restores the objects wanted and their parents alone; frames bring the small
    // neighbours that share a section with them.
    if ((*listed)[i].block_index >= 0) {
      EXPECT_EQ(objects, (std::vector<uint32_t>{title_index::kProcess, title_index::kThread}));
    } else {
      EXPECT_EQ(std::ranges::count(objects, title_index::kThread), 1);
    }
  }
}

TEST(StoreCompactionTest, AVersionFourStoreReadsAndItsClosedGroupsAreCompactedAfterOpen) {
  TempDir dir;
  {
    auto store = OpenTenSnapshotGroupStore(dir.path());
    ASSERT_NE(store, nullptr);
    AppendSamples(*store, 0, 25);
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 4));
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  ExpectEveryReadExact(*store, 25);
  // Groups closed before the upgrade are compacted by the first passes, as are those closed
  // after, a budget of groups at a time.
  AppendSamples(*store, 25, 35);
  Result<CompactionResult> first = store->CompactClosedGroups(0, 2);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->groups, 2);
  EXPECT_TRUE(first->more);
  CompactionResult rest = CompactClosed(*store);
  EXPECT_GE(rest.groups, 1);
  EXPECT_FALSE(rest.more);
  std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 35);
  const int64_t open_group =
      listed.back().keyframe_id != 0 ? listed.back().keyframe_id : listed.back().id;
  for (const SnapshotInfo& info : listed) {
    const int64_t group = info.keyframe_id != 0 ? info.keyframe_id : info.id;
    EXPECT_EQ(info.block_index < 0, group == open_group) << "sequence " << info.sequence;
  }
}

// Regression: the pages of the frames a pass replaced stayed in the database file as free pages,
// so the data directory did not shrink until later appends reused them.
TEST(StoreCompactionTest, APassGivesThePagesItFreedBackToTheFileSystem) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  for (uint64_t t = 0; t < 59; ++t) {
    Result<AppendResult> appended =
        store->Append(MakeAppend("web01", "boot", t, testing::HostSnapshot(t, {.processes = 600})));
    ASSERT_TRUE(appended.ok()) << appended.error();
  }
  Result<StoreTotals> before = store->Totals();
  ASSERT_TRUE(before.ok());
  ASSERT_GE(CompactClosed(*store).groups, 4);
  Result<StoreTotals> after = store->Totals();
  ASSERT_TRUE(after.ok());
  EXPECT_LT(after->file_bytes,
            before->file_bytes - (before->stored_bytes - after->stored_bytes) / 2)
      << "stored bytes " << before->stored_bytes << " -> " << after->stored_bytes;
}

// Regression: a host that stopped sending kept its last group as frames for good.
TEST(StoreCompactionTest, AnIdleGroupIsCompactedAndItsStreamGoesOnInANewGroup) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  // Groups of web01's samples: 0-2 and 3-12 (a delta too large starts a group early), then 13-19
  // open.
  AppendSamples(*store, 0, 20);
  std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 20);
  ASSERT_EQ(listed[13].keyframe_id, 0);
  ASSERT_EQ(listed[19].keyframe_id, listed[13].id);
  const int64_t last_received = listed.back().receive_time_ns;
  // Its newest member arrived at the cutoff: not idle yet.
  Result<CompactionResult> pass = store->CompactClosedGroups(last_received);
  ASSERT_TRUE(pass.ok()) << pass.error();
  EXPECT_EQ(pass->snapshots, 13);
  pass = store->CompactClosedGroups(last_received + 1);
  ASSERT_TRUE(pass.ok()) << pass.error();
  EXPECT_EQ(pass->groups, 1);
  EXPECT_EQ(pass->snapshots, 7);
  listed = ExpectEveryReadExact(*store, 20);
  for (const SnapshotInfo& info : listed) EXPECT_GE(info.block_index, 0) << info.sequence;
  // The stream's next sample starts a group; the one after joins it, also after a reopen.
  AppendSamples(*store, 20, 22);
  listed = ExpectEveryReadExact(*store, 22);
  EXPECT_EQ(listed[20].keyframe_id, 0);
  EXPECT_EQ(listed[20].block_index, -1);
  EXPECT_EQ(listed[21].keyframe_id, listed[20].id);
  store.reset();
  store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 22, 24);
  listed = ExpectEveryReadExact(*store, 24);
  EXPECT_EQ(listed[23].keyframe_id, listed[20].id);
  // A reopened store whose latest group was compacted starts a new one too.
  pass = store->CompactClosedGroups(INT64_MAX);
  ASSERT_TRUE(pass.ok()) << pass.error();
  EXPECT_EQ(pass->snapshots, 4);
  store.reset();
  store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 24, 26);
  listed = ExpectEveryReadExact(*store, 26);
  EXPECT_EQ(listed[24].keyframe_id, 0);
  EXPECT_EQ(listed[25].keyframe_id, listed[24].id);
}

// Regression: a read listed its snapshots, a pass compacted their group, and the read then
// found no frames ("snapshot N has no frame").
TEST(StoreCompactionTest, SnapshotsListedBeforeAPassStillReadAfterIt) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 23);  // groups 0-2, 3-12 and 13-22
  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok());
  for (const SnapshotInfo& info : *listed) ASSERT_EQ(info.block_index, -1);
  ASSERT_EQ(store->CompactClosedGroups(INT64_MAX)->snapshots, 23);
  ExpectListedReadExactly(*store, *listed);
}

// A block chooses the pieces a read wants once per recipe and run of positions `wanted` answers
// alike: positions of another run (other title databases) get their own choice, not the first's.
TEST(StoreCompactionTest, ABlocksPiecesAreChosenOncePerRunOfLikeAnswers) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 23);
  ASSERT_EQ(store->CompactClosedGroups(INT64_MAX)->snapshots, 23);
  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok());
  // Positions before 8 want Thread (and so its parent Process), the others nothing but the
  // header; groups 3-12 and 13-22 each hold positions of both runs.
  std::vector<uint32_t> runs(listed->size());
  for (size_t i = 0; i < runs.size(); ++i) runs[i] = i < 8 ? 0 : 8;
  Result<std::vector<std::vector<uint8_t>>> part = store->ReadSnapshots(
      *listed,
      [](size_t position, uint32_t object) {
        return position < 8 && object == title_index::kThread;
      },
      runs);
  ASSERT_TRUE(part.ok()) << part.error();
  for (size_t i = 0; i < listed->size(); ++i) {
    std::vector<uint32_t> objects =
        testing::ObjectsAsStored((*part)[i], Sample((*listed)[i].sequence));
    const std::vector<uint32_t> expected =
        i < 8 ? std::vector<uint32_t>{title_index::kProcess, title_index::kThread}
              : std::vector<uint32_t>{};
    EXPECT_EQ(objects, expected) << "position " << i;
  }
}

// Passes that race appends (every group idle at once, so the open group is taken while its
// stream adds to it) lose nothing and count what the database holds.
TEST(StoreCompactionTest, PassesRacingAppendsLoseNothing) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  std::atomic<bool> appending = true;
  CompactionResult total;
  std::thread compaction([&] {
    while (appending) {
      Result<CompactionResult> pass = store->CompactClosedGroups(INT64_MAX);
      ASSERT_TRUE(pass.ok()) << pass.error();
      total.groups += pass->groups;
      total.groups_changed += pass->groups_changed;
    }
  });
  AppendSamples(*store, 0, 59);  // one sample time a second in a minute
  appending = false;
  compaction.join();
  total.groups += store->CompactClosedGroups(INT64_MAX)->groups;
  EXPECT_GT(total.groups, 0);
  ExpectStoredBytesAddUp(*store, ExpectEveryReadExact(*store, 59));
}

// A store whose groups close after 10 snapshots and whose compacted groups merge by 20 (the
// samples' clock allows 60 of them).
std::unique_ptr<Store> OpenMergingStore(const std::string& dir) {
  StoreOptions options;
  options.group_size = 10;
  options.merged_block_snapshots = 20;
  return testing::OpenStore(dir, options);
}

TEST(StoreCompactionTest, AStreamsCompactedGroupsMergeIntoOneBlockOnceTheyAddUpToIt) {
  TempDir dir;
  auto store = OpenMergingStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 43);  // groups 0-2, 3-12, 13-22, 23-32 and 33-42, the last open
  const CompactionResult pass = CompactClosed(*store);
  EXPECT_EQ(pass.groups_merged, 2);  // 0-2 with 3-12, and 13-22 with 23-32
  EXPECT_GT(pass.merged_bytes_saved, 0);
  const std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 43);
  // Each merged block holds its members in order under the first group's keyframe.
  const std::map<int64_t, std::vector<int64_t>> groups = GroupsOf(listed);
  ASSERT_EQ(groups.size(), 3u);
  std::vector<size_t> sizes;
  for (const auto& [keyframe, indexes] : groups) {
    sizes.push_back(indexes.size());
    if (keyframe == groups.rbegin()->first) continue;  // the open group
    for (size_t i = 0; i < indexes.size(); ++i) EXPECT_EQ(indexes[i], static_cast<int64_t>(i));
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{13, 20, 10}));
  ExpectStoredBytesAddUp(*store, listed);
  // Merged blocks take less than the blocks of their groups did: the same appends, not merged.
  TempDir unmerged_dir;
  auto unmerged = OpenTenSnapshotGroupStore(unmerged_dir.path());
  ASSERT_NE(unmerged, nullptr);
  AppendSamples(*unmerged, 0, 43);
  EXPECT_EQ(CompactClosed(*unmerged).groups_merged, 0);
  EXPECT_EQ(unmerged->Totals()->stored_bytes - store->Totals()->stored_bytes,
            pass.merged_bytes_saved);
  // A second pass has nothing to merge; a reopened store goes on appending, compacting and
  // merging with every snapshot read back exactly.
  EXPECT_EQ(CompactClosed(*store).groups_merged, 0);
  store.reset();
  store = OpenMergingStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 43, 60);
  CompactClosed(*store);
  ExpectStoredBytesAddUp(*store, ExpectEveryReadExact(*store, 60));
}

// A read lists a group's members as a block, a pass merges that block into an earlier group's,
// and the read still finds every member where it went.
TEST(StoreCompactionTest, SnapshotsListedBeforeAMergeStillReadAfterIt) {
  TempDir dir;
  auto store = OpenMergingStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 14);
  ASSERT_EQ(CompactClosed(*store).groups_merged, 0);  // 13 compacted: fewer than 20
  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok());
  const size_t blocks_listed = GroupsOf(*listed).size();
  AppendSamples(*store, 14, 34);
  ASSERT_GE(CompactClosed(*store).groups_merged, 1);
  Result<std::vector<SnapshotInfo>> now = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(now.ok());
  EXPECT_LT(GroupsOf(*now).size(), blocks_listed + 2);  // two groups closed, and fewer groups
  ExpectListedReadExactly(*store, *listed);
}

// Retention by size deletes the oldest group whole: a merged block and all its members.
TEST(StoreCompactionTest, RetentionDeletesAMergedBlockWhole) {
  TempDir dir;
  auto store = OpenMergingStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 43);
  ASSERT_EQ(CompactClosed(*store).groups_merged, 2);
  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok());
  const size_t oldest = GroupsOf(*listed).begin()->second.size();
  Result<RetentionResult> retention =
      store->ApplyRetention({.max_bytes = store->Totals()->stored_bytes - 1}, 0);
  ASSERT_TRUE(retention.ok()) << retention.error();
  EXPECT_EQ(retention->snapshots_deleted, static_cast<int64_t>(oldest));
  const std::vector<SnapshotInfo> left = ExpectEveryReadExact(*store, 43 - oldest);
  EXPECT_EQ(left.front().sequence, oldest);
  ExpectStoredBytesAddUp(*store, left);
}

// How many rows `table` of the closed or open store in `dir` holds.
int64_t RowsIn(const std::string& dir, const std::string& table) {
  sqlite3* db = nullptr;
  int64_t rows = -1;
  sqlite3_stmt* count = nullptr;
  const std::string sql = "SELECT COUNT(*) FROM " + table;
  if (sqlite3_open((dir + "/perfhive.db").c_str(), &db) == SQLITE_OK &&
      sqlite3_prepare_v2(db, sql.c_str(), -1, &count, nullptr) == SQLITE_OK &&
      sqlite3_step(count) == SQLITE_ROW) {
    rows = sqlite3_column_int64(count, 0);
  }
  sqlite3_finalize(count);
  sqlite3_close(db);
  return rows;
}

// Everything a listing says of each snapshot but where it is kept.
std::vector<std::tuple<int64_t, int64_t, int64_t, std::string, uint64_t, Sha256Digest, int64_t>>
IdentitiesOf(const std::vector<SnapshotInfo>& listed) {
  std::vector<std::tuple<int64_t, int64_t, int64_t, std::string, uint64_t, Sha256Digest, int64_t>>
      identities;
  for (const SnapshotInfo& info : listed) {
    identities.emplace_back(info.id, info.sample_time_ns, info.receive_time_ns, info.instance_id,
                            info.sequence, info.sha256, info.raw_size);
  }
  return identities;
}

// A compacted group is one row of `blocks`, not a row per snapshot, and its snapshots list as
// they did before: the same ids, clocks, runs, sequences and digests, whole ranges, ranges inside
// a block, and the first or last few across blocks and frames.
TEST(StoreCompactionTest, ACompactedGroupIsOneRowAndListsAsItsSnapshotsDid) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 25);
  Result<std::vector<SnapshotInfo>> before = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(before.ok());
  const int64_t groups = CompactClosed(*store).groups;
  ASSERT_GE(groups, 2);
  const std::vector<SnapshotInfo> after = ExpectEveryReadExact(*store, 25);
  EXPECT_EQ(IdentitiesOf(after), IdentitiesOf(*before));
  EXPECT_EQ(RowsIn(dir.path(), "blocks"), groups);
  EXPECT_EQ(RowsIn(dir.path(), "snapshots"),
            std::ranges::count_if(after, [](const SnapshotInfo& i) { return i.block_index < 0; }));
  EXPECT_GT(after[0].block_index, -1);
  EXPECT_EQ(after[24].block_index, -1);  // the open group
  for (const auto& [keyframe, places] : GroupsOf(after)) {
    if (places[0] < 0) continue;
    for (size_t i = 0; i < places.size(); ++i) {
      EXPECT_EQ(places[i], static_cast<int64_t>(i)) << "group " << keyframe;
    }
  }
  ExpectStoredBytesAddUp(*store, after);

  const auto sequences = [](const Result<std::vector<SnapshotInfo>>& listed) {
    std::vector<uint64_t> out;
    if (listed.ok()) {
      for (const SnapshotInfo& info : *listed) out.push_back(info.sequence);
    }
    return out;
  };
  EXPECT_EQ(
      sequences(store->ListSnapshots("web01", after[12].sample_time_ns, after[15].sample_time_ns)),
      (std::vector<uint64_t>{12, 13, 14}));
  EXPECT_EQ(sequences(store->ListSnapshots("web01", 0, INT64_MAX, std::nullopt, 3)),
            (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(sequences(store->ListSnapshots("web01", 0, after[22].sample_time_ns, std::nullopt, 4,
                                           /*newest=*/true)),
            (std::vector<uint64_t>{18, 19, 20, 21}));
  EXPECT_EQ(sequences(store->ListSnapshots("web01", 0, INT64_MAX, "Costly")),
            std::vector<uint64_t>());
  EXPECT_EQ(sequences(store->ListSnapshots("web01", 0, INT64_MAX, std::nullopt, 0)),
            std::vector<uint64_t>());
}

// Regression: SQLite gives a new row the id after the greatest row left, so once a compacted
// group's rows were gone the next append took the id of a snapshot in its block (and failed on
// its frame's id). New ids stay above every id given, also after a restart.
TEST(StoreCompactionTest, IdsOfCompactedSnapshotsAreNotGivenAgain) {
  TempDir dir;
  int64_t last_id = 0;
  {
    auto store = OpenTenSnapshotGroupStore(dir.path());
    ASSERT_NE(store, nullptr);
    AppendSamples(*store, 0, 20);
    // Every group closed as idle, the newest included.
    Result<CompactionResult> compacted = store->CompactClosedGroups(INT64_MAX);
    ASSERT_TRUE(compacted.ok()) << compacted.error();
    ASSERT_GE(compacted->groups, 2);
    ASSERT_EQ(RowsIn(dir.path(), "snapshots"), 0);
    last_id = ExpectEveryReadExact(*store, 20).back().id;
    Result<AppendResult> next = store->Append(MakeAppend("web01", "boot", 20, Sample(20)));
    ASSERT_TRUE(next.ok()) << next.error();
    EXPECT_GT(next->id, last_id);
    last_id = next->id;
    ASSERT_TRUE(store->CompactClosedGroups(INT64_MAX).ok());
  }
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  Result<AppendResult> next = store->Append(MakeAppend("web01", "boot", 21, Sample(21)));
  ASSERT_TRUE(next.ok()) << next.error();
  EXPECT_GT(next->id, last_id);
  ExpectEveryReadExact(*store, 22);
}

// A sample sent again once its group is compacted is still known by its identity: the same bytes
// are a duplicate of the stored snapshot, other bytes a conflict.
TEST(StoreCompactionTest, ASampleSentAgainAfterItsGroupWasCompactedIsKnown) {
  TempDir dir;
  auto store = OpenTenSnapshotGroupStore(dir.path());
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 25);
  ASSERT_GE(CompactClosed(*store).groups, 2);
  const std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 25);
  ASSERT_GE(listed[13].block_index, 0);
  Result<AppendResult> again = store->Append(MakeAppend("web01", "boot-2", 99, Sample(13)));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->id, listed[13].id);
  Result<AppendResult> conflict = store->Append(
      MakeAppend("web01", "boot-2", 100, testing::HostSnapshot(13, {.processes = 40})));
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.status().code(), StatusCode::kAlreadyExists) << conflict.error();
  ExpectEveryReadExact(*store, 25);
}

// A store of schema version 13 kept a compacted group's members in rows of their own: on open
// they move into block rows, and every snapshot lists and reads as before.
TEST(StoreCompactionTest, AVersionThirteenStoresCompactedGroupsMoveIntoBlockRowsOnOpen) {
  TempDir dir;
  std::vector<SnapshotInfo> before;
  {
    auto store = OpenMergingStore(dir.path());
    ASSERT_NE(store, nullptr);
    AppendSamples(*store, 0, 43);
    ASSERT_EQ(CompactClosed(*store).groups_merged, 2);
    before = ExpectEveryReadExact(*store, 43);
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 13));
  ASSERT_EQ(RowsIn(dir.path(), "snapshots"), 43);
  auto store = OpenMergingStore(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(RowsIn(dir.path(), "snapshots"),
            43 - static_cast<int64_t>(std::ranges::count_if(
                     before, [](const SnapshotInfo& info) { return info.block_index >= 0; })));
  const std::vector<SnapshotInfo> after = ExpectEveryReadExact(*store, 43);
  EXPECT_EQ(IdentitiesOf(after), IdentitiesOf(before));
  EXPECT_EQ(GroupsOf(after), GroupsOf(before));
  ExpectStoredBytesAddUp(*store, after);
  AppendSamples(*store, 43, 45);
  ExpectEveryReadExact(*store, 45);
}

}  // namespace
}  // namespace perfhive
