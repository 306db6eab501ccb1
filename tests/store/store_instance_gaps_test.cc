// The store's instance gaps (docs/store_format.md, "Instance gaps"): kept with the snapshot that
// closed them, once however often it is sent, per host; read up to a time; gone with the history
// that reaches back to them; and in a store of the version before, from its next appends.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/well_known_indexes.h"
#include "store/store.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::MakeAppend;
using testing::OpenStore;
using testing::SampleNs;
using testing::TempDir;

constexpr uint32_t kGapDisks = 236;

// A snapshot taken at 2025-03-06 10:00:`second` UTC, its sequence `second`.
SnapshotToAppend TakenWithGaps(const std::string& host, int second, std::vector<InstanceGap> gaps) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time(
      {2025, 3, 6, 1, 10, 0, static_cast<uint16_t>(second), 0});
  ObjectBuilder& disks = builder.AddObject(kGapDisks);
  disks.AddCounter({.name_index = 6, .type = winperf::kCounterLargeRawcount});
  disks.SetValue(disks.AddInstance("C:"), 0, second);
  SnapshotToAppend append = MakeAppend(host, "boot-1", second, builder.Build());
  append.instance_gaps = std::move(gaps);
  return append;
}

InstanceGap DiskGap(const std::string& instance, int gone_s, int back_s) {
  return {kGapDisks, instance, SampleNs(gone_s), SampleNs(back_s)};
}

std::map<std::string, std::vector<InstanceGap>> StoredGaps(Store& store,
                                                           int64_t at_ns = INT64_MAX) {
  Result<std::map<std::string, std::vector<InstanceGap>>> gaps =
      store.catalog().InstanceGaps(at_ns);
  EXPECT_TRUE(gaps.ok()) << gaps.error();
  return gaps.ok() ? *gaps : std::map<std::string, std::vector<InstanceGap>>{};
}

TEST(StoreInstanceGapsTest, GapsAreKeptOncePerHostAndReadUpToATime) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append(TakenWithGaps("web01", 1, {})).ok());
  ASSERT_TRUE(
      store->Append(TakenWithGaps("web01", 5, {DiskGap("C:", 2, 5), DiskGap("D:", 3, 5)})).ok());
  ASSERT_TRUE(store->Append(TakenWithGaps("web02", 9, {DiskGap("C:", 7, 9)})).ok());
  // Sent again (a resend after a lost answer): the same gaps, kept once.
  ASSERT_TRUE(
      store->Append(TakenWithGaps("web01", 5, {DiskGap("C:", 2, 5), DiskGap("D:", 3, 5)})).ok());

  std::map<std::string, std::vector<InstanceGap>> gaps = StoredGaps(*store);
  EXPECT_EQ(gaps["web01"], (std::vector<InstanceGap>{DiskGap("C:", 2, 5), DiskGap("D:", 3, 5)}));
  EXPECT_EQ(gaps["web02"], (std::vector<InstanceGap>{DiskGap("C:", 7, 9)}));
  // At a time before web02's came back, it had none.
  EXPECT_FALSE(StoredGaps(*store, SampleNs(8)).contains("web02"));
}

TEST(StoreInstanceGapsTest, AGapGoesWithTheHistoryThatReachesBackToIt) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Append(TakenWithGaps("web01", 1, {})).ok());
  ASSERT_TRUE(store->Append(TakenWithGaps("web01", 5, {DiskGap("C:", 2, 5)})).ok());
  ASSERT_TRUE(store->Append(TakenWithGaps("web02", 20, {})).ok());
  ASSERT_TRUE(store->Append(TakenWithGaps("web02", 30, {DiskGap("C:", 25, 30)})).ok());
  // Keep what was received from second 10 on (MakeAppend receives at its sequence's second):
  // all of web01's history goes, and its gap with it.
  RetentionPolicy policy;
  policy.max_age_ns = 1'000'000'000LL * 20;
  Result<RetentionResult> retention =
      store->ApplyRetention(policy, 1'000'000'000LL * (1'740'823'200LL + 30));
  ASSERT_TRUE(retention.ok()) << retention.error();
  ASSERT_EQ(retention->snapshots_deleted, 2);
  std::map<std::string, std::vector<InstanceGap>> gaps = StoredGaps(*store);
  EXPECT_FALSE(gaps.contains("web01"));
  EXPECT_EQ(gaps["web02"], (std::vector<InstanceGap>{DiskGap("C:", 25, 30)}));
}

TEST(StoreInstanceGapsTest, AVersionTwelveStoreKeepsGapsFromItsNextAppends) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(store->Append(TakenWithGaps("web01", 1, {})).ok());
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 12));
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(StoredGaps(*store).empty());
  ASSERT_TRUE(store->Append(TakenWithGaps("web01", 5, {DiskGap("C:", 2, 5)})).ok());
  EXPECT_EQ(StoredGaps(*store)["web01"], (std::vector<InstanceGap>{DiskGap("C:", 2, 5)}));
}

}  // namespace
}  // namespace perfhive
