// The store's inventories (docs/store_format.md, "Inventories"): one row per host, query and
// change, recorded as snapshots are appended, in any order, across a restart and an upgrade.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "store/store.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::MakeAppend;
using testing::OpenStore;
using testing::SampleNs;
using testing::TempDir;

// A snapshot taken at 2025-03-01 10:00:`second` UTC holding Process, and Memory when asked.
std::vector<uint8_t> Taken(int second, bool with_memory) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time(
      {2025, 3, 6, 1, 10, 0, static_cast<uint16_t>(second), 0});
  ObjectBuilder& process = builder.AddObject(title_index::kProcess);
  process.AddCounter({.name_index = 6, .type = winperf::kCounterLargeRawcount});
  process.AddCounter({.name_index = 184, .type = winperf::kCounterLargeRawcount});
  uint32_t instance = process.AddInstance("svchost", 4);
  process.SetValue(instance, 0, second);
  process.SetValue(instance, 1, 2 * second);
  if (with_memory) {
    ObjectBuilder& memory = builder.AddObject(title_index::kMemory);
    memory.set_no_instances();
    memory.AddCounter({.name_index = 24, .type = winperf::kCounterLargeRawcount});
    memory.SetValue(0, 0, 100 + second);
  }
  return builder.Build();
}

const SnapshotInventory kWithMemory{
    {{title_index::kMemory, {24}}, {title_index::kProcess, {6, 184}}}};
const SnapshotInventory kWithoutMemory{{{title_index::kProcess, {6, 184}}}};

// (since second, has Memory) of each version of `host`.
std::vector<std::pair<int64_t, bool>> Versions(Store& store, const std::string& host,
                                               const std::string& query = "Global") {
  Result<std::vector<query::HostInventories>> hosts = store.catalog().Inventories(INT64_MAX);
  EXPECT_TRUE(hosts.ok()) << hosts.error();
  std::vector<std::pair<int64_t, bool>> versions;
  if (!hosts.ok()) return versions;
  for (const query::HostInventories& inventories : *hosts) {
    if (inventories.host != host) continue;
    for (const query::InventoryVersion& version : inventories.versions) {
      if (version.query != query) continue;
      EXPECT_TRUE(version.inventory == kWithMemory || version.inventory == kWithoutMemory);
      versions.push_back(
          {(version.since_ns - SampleNs(0)) / 1'000'000'000, version.inventory == kWithMemory});
    }
  }
  return versions;
}

Status Append(Store& store, const std::string& host, int second, bool with_memory,
              const std::string& query = "Global") {
  Result<AppendResult> appended =
      store.Append(MakeAppend(host, "boot-1", second, Taken(second, with_memory), query));
  return appended.ok() ? Status() : appended.status();
}

TEST(StoreInventoriesTest, TheBuildersSnapshotsHoldWhatTheTestExpects) {
  std::vector<uint8_t> raw = Taken(1, true);
  EXPECT_EQ(InventoryOf(*SnapshotReader::Open(raw)), kWithMemory);
  raw = Taken(1, false);
  EXPECT_EQ(InventoryOf(*SnapshotReader::Open(raw)), kWithoutMemory);
}

TEST(StoreInventoriesTest, AVersionIsRecordedOnlyWhenTheInventoryChanges) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(
      store->catalog()
          .UpsertHost({"web01", "Windows Server 2022", "10.0.20348", "agent", "1.0.0", "boot-1"}, 1)
          .ok());
  for (auto [second, memory] : {std::pair{1, true}, {2, true}, {3, false}, {4, false}, {5, true}}) {
    ASSERT_TRUE(Append(*store, "web01", second, memory).ok());
  }
  // The same sample again (a resend) changes nothing.
  ASSERT_TRUE(Append(*store, "web01", 3, false).ok());
  EXPECT_EQ(Versions(*store, "web01"),
            (std::vector<std::pair<int64_t, bool>>{{1, true}, {3, false}, {5, true}}));
  Result<std::vector<query::HostInventories>> hosts = store->catalog().Inventories(INT64_MAX);
  ASSERT_TRUE(hosts.ok());
  ASSERT_EQ(hosts->size(), 1u);
  EXPECT_EQ(hosts->front().versions.front().agent_version, "1.0.0");
  EXPECT_EQ(hosts->front().versions.front().os_version, "10.0.20348");

  // Up to a time: the versions from then on are left out.
  hosts = store->catalog().Inventories(SampleNs(4));
  ASSERT_TRUE(hosts.ok());
  ASSERT_EQ(hosts->size(), 1u);
  EXPECT_EQ(hosts->front().versions.size(), 2u);
}

TEST(StoreInventoriesTest, ALateSampleIsRecordedAndTheSamplesAfterItKeepTheirs) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  for (int second : {1, 2, 4, 5}) ASSERT_TRUE(Append(*store, "web01", second, true).ok());
  // A spool sent after newer samples: second 3 lacked Memory; 4 and 5 had it.
  ASSERT_TRUE(Append(*store, "web01", 3, false).ok());
  EXPECT_EQ(Versions(*store, "web01"),
            (std::vector<std::pair<int64_t, bool>>{{1, true}, {3, false}, {4, true}}));
  // Older than every version, holding what the first holds: the first starts earlier.
  ASSERT_TRUE(Append(*store, "web01", 0, true).ok());
  EXPECT_EQ(Versions(*store, "web01"),
            (std::vector<std::pair<int64_t, bool>>{{0, true}, {3, false}, {4, true}}));
  // And one that holds something else starts a version of its own before it.
  TempDir other_dir;
  auto other = OpenStore(other_dir.path());
  for (int second : {4, 5}) ASSERT_TRUE(Append(*other, "web02", second, true).ok());
  ASSERT_TRUE(Append(*other, "web02", 2, false).ok());
  EXPECT_EQ(Versions(*other, "web02"),
            (std::vector<std::pair<int64_t, bool>>{{2, false}, {4, true}}));
}

TEST(StoreInventoriesTest, HostsAndQueriesHaveVersionsOfTheirOwn) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(Append(*store, "web01", 1, true).ok());
  ASSERT_TRUE(Append(*store, "web02", 1, false).ok());
  ASSERT_TRUE(Append(*store, "web01", 2, false, "Costly").ok());
  ASSERT_TRUE(Append(*store, "web01", 3, true).ok());
  EXPECT_EQ(Versions(*store, "web01"), (std::vector<std::pair<int64_t, bool>>{{1, true}}));
  EXPECT_EQ(Versions(*store, "web01", "Costly"),
            (std::vector<std::pair<int64_t, bool>>{{2, false}}));
  EXPECT_EQ(Versions(*store, "web02"), (std::vector<std::pair<int64_t, bool>>{{1, false}}));
}

TEST(StoreInventoriesTest, ARestartGoesOnFromTheRecordedVersionsAndAnUpdateIsNoted) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(store->catalog()
                    .UpsertHost({"web01", "Windows", "10.0.17763", "agent", "1.0.0", "boot-1"}, 1)
                    .ok());
    ASSERT_TRUE(Append(*store, "web01", 1, true).ok());
  }
  auto store = OpenStore(dir.path());
  ASSERT_TRUE(Append(*store, "web01", 2, true).ok());
  ASSERT_TRUE(store->catalog()
                  .UpsertHost({"web01", "Windows", "10.0.20348", "agent", "1.1.0", "boot-2"}, 3)
                  .ok());
  ASSERT_TRUE(Append(*store, "web01", 3, false).ok());
  EXPECT_EQ(Versions(*store, "web01"),
            (std::vector<std::pair<int64_t, bool>>{{1, true}, {3, false}}));
  Result<std::vector<query::HostInventories>> hosts = store->catalog().Inventories(INT64_MAX);
  ASSERT_TRUE(hosts.ok());
  const std::vector<query::InventoryVersion>& versions = hosts->at(0).versions;
  EXPECT_EQ(versions[0].agent_version, "1.0.0");
  EXPECT_EQ(versions[1].agent_version, "1.1.0");
  EXPECT_EQ(versions[1].os_version, "10.0.20348");
}

TEST(StoreInventoriesTest, AVersionNineStoreRecordsFromItsNextAppend) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(Append(*store, "web01", 1, true).ok());
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 9));
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(Versions(*store, "web01").empty());
  ASSERT_TRUE(Append(*store, "web01", 2, true).ok());
  EXPECT_EQ(Versions(*store, "web01"), (std::vector<std::pair<int64_t, bool>>{{2, true}}));
}

}  // namespace
}  // namespace perfhive
