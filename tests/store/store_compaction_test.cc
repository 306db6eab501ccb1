// Closed groups compacted into columnar blocks inside the store: every snapshot reads back byte
// for byte (ReadSnapshot checks SHA-256; ReadSnapshots is compared), partial reads hold the
// wanted objects as stored, the counts of stored bytes follow, and a version 4 store (frames
// only) opens, reads and compacts the groups it closes from then on.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
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

std::unique_ptr<Store> OpenCompacting(const std::string& dir, bool compact) {
  StoreOptions options;
  options.group_size = 10;
  options.compact_groups = compact;
  Result<std::unique_ptr<Store>> store = Store::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.error();
  return store.ok() ? std::move(*store) : nullptr;
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
    Result<std::vector<uint8_t>> raw = store.ReadSnapshot(info.id);
    EXPECT_TRUE(raw.ok()) << raw.error();
    if (!raw.ok()) continue;
    EXPECT_EQ(Sha256(*raw), Sha256(Sample(info.sequence))) << "sequence " << info.sequence;
    if (all.ok()) {
      EXPECT_EQ((*all)[i], *raw) << "sequence " << info.sequence;
    }
  }
  return *listed;
}

TEST(StoreCompactionTest, ClosedGroupsBecomeBlocksThatReadBackExactly) {
  TempDir dir;
  auto store = OpenCompacting(dir.path(), true);
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 35);
  std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 35);
  // Every closed group is a block, its members in order; the open one (the last) is frames.
  std::map<int64_t, std::vector<int64_t>> groups;  // keyframe → its members' block indexes
  for (const SnapshotInfo& info : listed) {
    groups[info.keyframe_id != 0 ? info.keyframe_id : info.id].push_back(info.block_index);
  }
  ASSERT_GE(groups.size(), 4u);  // of 10 at most; a delta too large starts one early
  for (const auto& [keyframe, indexes] : groups) {
    for (size_t i = 0; i < indexes.size(); ++i) {
      const bool open = keyframe == groups.rbegin()->first;
      EXPECT_EQ(indexes[i], open ? -1 : static_cast<int64_t>(i)) << "group of " << keyframe;
    }
  }
  // The same appends as frames only take more, and the host's count is the database's.
  TempDir frames_dir;
  auto frames = OpenCompacting(frames_dir.path(), false);
  ASSERT_NE(frames, nullptr);
  AppendSamples(*frames, 0, 35);
  Result<StoreTotals> compacted = store->Totals();
  Result<StoreTotals> not_compacted = frames->Totals();
  ASSERT_TRUE(compacted.ok() && not_compacted.ok());
  EXPECT_LT(compacted->stored_bytes, not_compacted->stored_bytes);
  EXPECT_EQ((*store->FindHost("web01"))->stored_bytes, compacted->stored_bytes);
  // Appends go on after a reopen.
  store.reset();
  store = OpenCompacting(dir.path(), true);
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 35, 45);
  ExpectEveryReadExact(*store, 45);
}

TEST(StoreCompactionTest, PartialReadsOfBlocksHoldTheWantedObjectsAsStored) {
  TempDir dir;
  auto store = OpenCompacting(dir.path(), true);
  ASSERT_NE(store, nullptr);
  AppendSamples(*store, 0, 25);
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

TEST(StoreCompactionTest, AVersionFourStoreReadsAndCompactsTheGroupsItClosesAfterOpen) {
  TempDir dir;
  {
    auto store = OpenCompacting(dir.path(), false);
    ASSERT_NE(store, nullptr);
    AppendSamples(*store, 0, 15);
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 4));
  auto store = OpenCompacting(dir.path(), true);
  ASSERT_NE(store, nullptr);
  ExpectEveryReadExact(*store, 15);
  // The group open at the rewind closes later and is compacted; those closed before stay as
  // frames (no pass compacts them yet).
  Result<std::vector<SnapshotInfo>> before = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(before.ok());
  const int64_t open_group =
      before->back().keyframe_id != 0 ? before->back().keyframe_id : before->back().id;
  AppendSamples(*store, 15, 35);
  std::vector<SnapshotInfo> listed = ExpectEveryReadExact(*store, 35);
  for (const SnapshotInfo& info : listed) {
    if (info.sequence >= 15) continue;
    const int64_t group = info.keyframe_id != 0 ? info.keyframe_id : info.id;
    EXPECT_EQ(info.block_index >= 0, group == open_group) << "sequence " << info.sequence;
  }
}

}  // namespace
}  // namespace perfhive
