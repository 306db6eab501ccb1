// The store's runs of counters without a valid value (docs/store_format.md, "Invalid counters"):
// a row from a run's second pair to its end, per host, query and counter; across a restart, with
// pairs out of order, and in a store of the version before.

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

constexpr InvalidCounter kStuck{title_index::kProcess, 6, PdhStatus::kNegativeDenominator};
constexpr InvalidCounter kReset{title_index::kProcess, 184, PdhStatus::kNegativeValue};

// A snapshot taken at 2025-03-01 10:00:`second` UTC (what it holds does not matter here: the
// caller says which counters had no valid value).
std::vector<uint8_t> Taken(int second) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time(
      {2025, 3, 6, 1, 10, 0, static_cast<uint16_t>(second), 0});
  ObjectBuilder& process = builder.AddObject(title_index::kProcess);
  process.AddCounter({.name_index = 6, .type = winperf::kCounterLargeRawcount});
  process.SetValue(process.AddInstance("svchost", 4), 0, second);
  return builder.Build();
}

Status Append(Store& store, const std::string& host, int second,
              std::optional<std::vector<InvalidCounter>> invalid,
              const std::string& query = "Global") {
  SnapshotToAppend append = MakeAppend(host, "boot-1", second, Taken(second), query);
  append.invalid_counters = std::move(invalid);
  Result<AppendResult> appended = store.Append(std::move(append));
  return appended.ok() ? Status() : appended.status();
}

// Each run of `host` as (query, counter index, status, since second).
std::vector<std::tuple<std::string, uint32_t, PdhStatus, int64_t>> Runs(Store& store,
                                                                        const std::string& host) {
  Result<std::map<std::string, std::vector<query::InvalidCounterRun>>> hosts =
      store.catalog().InvalidCounterRuns();
  EXPECT_TRUE(hosts.ok()) << hosts.error();
  std::vector<std::tuple<std::string, uint32_t, PdhStatus, int64_t>> runs;
  if (!hosts.ok() || !hosts->contains(host)) return runs;
  for (const query::InvalidCounterRun& run : hosts->at(host)) {
    EXPECT_EQ(run.counter.object_index, title_index::kProcess);
    runs.push_back({run.query, run.counter.counter_index, run.counter.status,
                    (run.since_ns - SampleNs(0)) / 1'000'000'000});
  }
  return runs;
}

using RunList = std::vector<std::tuple<std::string, uint32_t, PdhStatus, int64_t>>;

TEST(StoreInvalidCountersTest, ARunIsKeptFromItsSecondPairUntilItsEnd) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "web01", 1, std::nullopt).ok());  // the first: no pair
  ASSERT_TRUE(Append(*store, "web01", 2, std::vector{kStuck}).ok());
  EXPECT_TRUE(Runs(*store, "web01").empty());  // one pair alone: a reset, not a fault
  ASSERT_TRUE(Append(*store, "web01", 3, std::vector{kStuck, kReset}).ok());
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 2}}));
  // A snapshot stored without a pair checked (a reconnection's keyframe) leaves the runs.
  ASSERT_TRUE(Append(*store, "web01", 4, std::nullopt).ok());
  ASSERT_TRUE(Append(*store, "web01", 5, std::vector{kStuck}).ok());
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 2}}));
  // kReset's run ended at 5 after one pair; kStuck's ends at 6.
  ASSERT_TRUE(Append(*store, "web01", 6, std::vector<InvalidCounter>{}).ok());
  EXPECT_TRUE(Runs(*store, "web01").empty());
}

TEST(StoreInvalidCountersTest, HostsAndQueriesHaveTheirOwnRuns) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  for (int second = 1; second <= 3; ++second) {
    ASSERT_TRUE(Append(*store, "web01", second, std::vector{kStuck}).ok());
    ASSERT_TRUE(Append(*store, "web01", second, std::vector<InvalidCounter>{}, "230").ok());
    ASSERT_TRUE(Append(*store, "web02", second, std::vector{kReset}, "230").ok());
  }
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 1}}));
  EXPECT_EQ(Runs(*store, "web02"), (RunList{{"230", 184, PdhStatus::kNegativeValue, 1}}));
}

TEST(StoreInvalidCountersTest, APairOlderThanTheNewestCheckedChangesNothing) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Append(*store, "web01", 10, std::vector{kStuck}).ok());
  ASSERT_TRUE(Append(*store, "web01", 11, std::vector{kStuck}).ok());
  // A spool sent after newer samples: its pairs are not part of the run.
  ASSERT_TRUE(Append(*store, "web01", 5, std::vector<InvalidCounter>{}).ok());
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 10}}));
}

TEST(StoreInvalidCountersTest, ARestartedStoreGoesOnWithTheRunsItWrote) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(Append(*store, "web01", 1, std::vector{kStuck}).ok());
    ASSERT_TRUE(Append(*store, "web01", 2, std::vector{kStuck}).ok());
    ASSERT_TRUE(Append(*store, "web01", 3, std::vector{kStuck, kReset}).ok());  // kReset: a pair
  }
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 1}}));
  // The stuck counter stays so: its run keeps its start. kReset's one pair before the restart
  // was not kept, so its run starts again.
  ASSERT_TRUE(Append(*store, "web01", 4, std::vector{kStuck, kReset}).ok());
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 1}}));
  ASSERT_TRUE(Append(*store, "web01", 5, std::vector{kReset}).ok());
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 184, PdhStatus::kNegativeValue, 4}}));
}

TEST(StoreInvalidCountersTest, AVersionElevenStoreKeepsRunsFromItsNextAppends) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    ASSERT_TRUE(Append(*store, "web01", 1, std::nullopt).ok());
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 11));
  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(Runs(*store, "web01").empty());
  ASSERT_TRUE(Append(*store, "web01", 2, std::vector{kStuck}).ok());
  ASSERT_TRUE(Append(*store, "web01", 3, std::vector{kStuck}).ok());
  EXPECT_EQ(Runs(*store, "web01"), (RunList{{"Global", 6, PdhStatus::kNegativeDenominator, 2}}));
}

}  // namespace
}  // namespace perfhive
