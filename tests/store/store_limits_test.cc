// Retention and failures: what the store deletes and how it reports a full disk.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>

#include "store/store.h"
#include "tests/store/section_test_util.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using testing::MakeAppend;
using testing::ReadBack;
using testing::SmallSnapshot;
using testing::TempDir;

// Sample s of web01: SystemTime's seconds go round a minute, PerfTime tells them apart.
std::vector<uint8_t> NthSnapshot(int s) { return SmallSnapshot(s % 60, s, 20, s); }

// Appends snapshots 0..count-1 of one host, received one second apart (MakeAppend), in groups of
// the store's groups; returns their ids.
std::vector<int64_t> AppendSeries(Store& store, int count) {
  std::vector<int64_t> ids;
  for (int i = 0; i < count; ++i) {
    Result<AppendResult> r = store.Append(MakeAppend("web01", "boot", i, NthSnapshot(i)));
    EXPECT_TRUE(r.ok()) << r.error();
    ids.push_back(r.ok() ? r->id : 0);
  }
  return ids;
}

std::vector<uint64_t> StoredSequences(Store& store) {
  std::vector<uint64_t> out;
  Result<std::vector<SnapshotInfo>> list = store.ListSnapshots("web01", 0, INT64_MAX);
  for (const SnapshotInfo& info : *list) {
    out.push_back(info.sequence);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every snapshot of web01 reads back as AppendSeries appended it.
void ExpectEveryReadBack(Store& store) {
  Result<std::vector<SnapshotInfo>> list = store.ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(list.ok()) << list.error();
  for (const SnapshotInfo& info : *list) {
    Result<std::vector<uint8_t>> raw = store.ReadSnapshot(info);
    ASSERT_TRUE(raw.ok()) << raw.error();
    EXPECT_EQ(*raw, NthSnapshot(static_cast<int>(info.sequence)));
  }
}

// The stored sizes of web01's snapshots, added up one by one.
int64_t StoredSizeOfEverySnapshot(Store& store) {
  int64_t total = 0;
  Result<std::vector<SnapshotInfo>> list = store.ListSnapshots("web01", 0, INT64_MAX);
  EXPECT_TRUE(list.ok()) << list.error();
  if (list.ok()) {
    for (const SnapshotInfo& info : *list) total += info.stored_size;
  }
  return total;
}

// Receive time of MakeAppend's sequence s.
int64_t ReceivedNs(int s) { return (1'740'823'200LL + s) * 1'000'000'000LL; }

TEST(StoreRetentionTest, ByAgeKeepsKeyframesThatNewerDeltasNeed) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 4;  // groups: 0-3, 4-7, 8-11
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok());
  AppendSeries(**store, 12);
  // Everything received before second 6 is too old: 0..3 go, 4 (keyframe of 5, 6, 7) stays, 5
  // goes.
  RetentionPolicy policy;
  policy.max_age_ns = 1'000'000'000LL * 10;
  Result<RetentionResult> result = (*store)->ApplyRetention(policy, ReceivedNs(16));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->snapshots_deleted, 5);
  EXPECT_EQ(StoredSequences(**store), (std::vector<uint64_t>{4, 6, 7, 8, 9, 10, 11}));
  ExpectEveryReadBack(**store);
  HostRecord host = *(*(*store)->catalog().FindHost("web01"));
  EXPECT_EQ(host.snapshots_stored, 7);
  EXPECT_EQ(host.snapshots_received, 12);
  // Appends go on after retention, in a group whose keyframe exists.
  ASSERT_TRUE((*store)->Append(MakeAppend("web01", "boot", 12, NthSnapshot(12))).ok());
  EXPECT_EQ(StoredSequences(**store).size(), 8u);
}

TEST(StoreRetentionTest, ByAgeDeletesACompactedGroupWhole) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 4;  // groups: 0-3 and 4-7 closed (blocks), 8-11 open (frames)
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok());
  AppendSeries(**store, 12);
  Result<CompactionResult> compacted = (*store)->CompactClosedGroups(0);
  ASSERT_TRUE(compacted.ok()) << compacted.error();
  ASSERT_EQ(compacted->groups, 2);
  Result<StoreTotals> before = (*store)->Totals();
  ASSERT_TRUE(before.ok());
  // Received before second 6: 0..3 go (their block is all old), 4 and 5 stay with 6 and 7.
  RetentionPolicy policy;
  policy.max_age_ns = 1'000'000'000LL * 10;
  Result<RetentionResult> result = (*store)->ApplyRetention(policy, ReceivedNs(16));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->snapshots_deleted, 4);
  EXPECT_EQ(StoredSequences(**store), (std::vector<uint64_t>{4, 5, 6, 7, 8, 9, 10, 11}));
  ExpectEveryReadBack(**store);
  // The host's stored bytes are what the database holds.
  Result<StoreTotals> after = (*store)->Totals();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->stored_bytes, before->stored_bytes - result->bytes_deleted);
  EXPECT_EQ(after->stored_bytes, StoredSizeOfEverySnapshot(**store));
  // Then 4..7 go together, once 7 is old.
  result = (*store)->ApplyRetention(policy, ReceivedNs(18));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->snapshots_deleted, 4);
  EXPECT_EQ(StoredSequences(**store), (std::vector<uint64_t>{8, 9, 10, 11}));
}

// Regression: a new store set auto_vacuum after WAL mode, which SQLite ignores, so retention's
// incremental_vacuum gave nothing back and the data directory never shrank.
TEST(StoreRetentionTest, DeletedSnapshotsGiveTheirPagesBackToTheFileSystem) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 10;
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok());
  for (uint64_t t = 0; t < 59; ++t) {
    Result<AppendResult> appended = (*store)->Append(
        MakeAppend("web01", "boot", t, testing::HostSnapshot(t, {.processes = 600})));
    ASSERT_TRUE(appended.ok()) << appended.error();
  }
  Result<StoreTotals> before = (*store)->Totals();
  ASSERT_TRUE(before.ok());
  RetentionPolicy policy;
  policy.max_age_ns = 1'000'000'000LL * 10;
  Result<RetentionResult> result = (*store)->ApplyRetention(policy, ReceivedNs(59));
  ASSERT_TRUE(result.ok()) << result.error();
  ASSERT_GE(result->snapshots_deleted, 40);
  Result<StoreTotals> after = (*store)->Totals();
  ASSERT_TRUE(after.ok());
  EXPECT_LT(after->file_bytes, before->file_bytes / 2)
      << "stored bytes " << before->stored_bytes << " -> " << after->stored_bytes;
}

// A store made as the server made them before (WAL mode first, auto_vacuum then ignored) says
// so, for the server to tell its administrator how to convert it; a new one gives pages back.
TEST(StoreRetentionTest, AStoreThatKeepsItsFreedPagesSaysSo) {
  TempDir old_dir;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((old_dir.path() + "/perfhive.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA auto_vacuum=INCREMENTAL;", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Result<std::unique_ptr<Store>> old_store = Store::Open(old_dir.path());
  ASSERT_TRUE(old_store.ok()) << old_store.error();
  EXPECT_FALSE((*old_store)->gives_pages_back());
  TempDir new_dir;
  Result<std::unique_ptr<Store>> new_store = Store::Open(new_dir.path());
  ASSERT_TRUE(new_store.ok()) << new_store.error();
  EXPECT_TRUE((*new_store)->gives_pages_back());
}

TEST(StoreRetentionTest, BySizeDeletesWholeGroupsOldestFirst) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 4;
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok());
  AppendSeries(**store, 12);
  int64_t total = (*store)->Totals()->stored_bytes;
  int64_t last_group = 0;
  Result<std::vector<SnapshotInfo>> list = (*store)->ListSnapshots("web01", 0, INT64_MAX);
  for (const SnapshotInfo& info : *list) {
    if (info.sequence >= 8) last_group += info.stored_size;
  }
  RetentionPolicy policy;
  policy.max_bytes = total - 1;  // one byte over: the oldest group goes
  Result<RetentionResult> result = (*store)->ApplyRetention(policy, 0);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(StoredSequences(**store), (std::vector<uint64_t>{4, 5, 6, 7, 8, 9, 10, 11}));
  policy.max_bytes = last_group;
  ASSERT_TRUE((*store)->ApplyRetention(policy, 0).ok());
  EXPECT_EQ(StoredSequences(**store), (std::vector<uint64_t>{8, 9, 10, 11}));
  EXPECT_EQ((*store)->Totals()->stored_bytes, last_group);
}

// Regression: retention deleted a whole backlog in one transaction under the write lock, so
// every stream's appends waited for all of it. It now deletes in chunks of its own transactions;
// what it deletes is the same, the counts stay what the database holds, and an append after it
// starts a group whose keyframe exists.
TEST(StoreRetentionTest, ABacklogOfSeveralChunksIsDeletedAsInOnePass) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 10;
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok());
  AppendSeries(**store, 9000);
  // Received before second 8995: all but 8990 (the keyframe 8995..8999 need) and those.
  RetentionPolicy policy;
  policy.max_age_ns = 1'000'000'000LL * 10;
  Result<RetentionResult> result = (*store)->ApplyRetention(policy, ReceivedNs(9005));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->snapshots_deleted, 8994);
  EXPECT_GE(result->transactions, 3);  // 8,994 deltas and keyframes in chunks of 4,096
  EXPECT_EQ(StoredSequences(**store), (std::vector<uint64_t>{8990, 8995, 8996, 8997, 8998, 8999}));
  ExpectEveryReadBack(**store);
  Result<StoreTotals> totals = (*store)->Totals();
  ASSERT_TRUE(totals.ok()) << totals.error();
  EXPECT_EQ(totals->snapshots, 6);
  EXPECT_EQ(totals->keyframes, 1);
  EXPECT_EQ(totals->stored_bytes, StoredSizeOfEverySnapshot(**store));
  ASSERT_TRUE((*store)->Append(MakeAppend("web01", "boot", 9000, NthSnapshot(9000))).ok());
  ExpectEveryReadBack(**store);
}

TEST(StoreRetentionTest, BySizeGroupsOfSeveralChunksGoOldestFirst) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 10;
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok());
  AppendSeries(**store, 1000);  // 100 groups
  int64_t last_group = 0;
  Result<std::vector<SnapshotInfo>> list = (*store)->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(list.ok());
  for (const SnapshotInfo& info : *list) {
    if (info.sequence >= 990) last_group += info.stored_size;
  }
  RetentionPolicy policy;
  policy.max_bytes = last_group;
  Result<RetentionResult> result = (*store)->ApplyRetention(policy, 0);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->snapshots_deleted, 990);
  std::vector<uint64_t> last;
  for (uint64_t s = 990; s < 1000; ++s) last.push_back(s);
  EXPECT_EQ(StoredSequences(**store), last);
  EXPECT_EQ((*store)->Totals()->stored_bytes, StoredSizeOfEverySnapshot(**store));
  ExpectEveryReadBack(**store);
}

TEST(StoreFailureTest, FullDatabaseIsAnErrorNamingTheFile) {
  TempDir dir;
  StoreOptions options;
  options.max_page_count = 40;  // 160 KB with 4 KB pages
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok()) << store.error();
  std::vector<int64_t> stored;
  Status failure;
  for (int i = 0; i < 200 && failure.ok(); ++i) {
    // Distinct bytes that do not compress away, so the file fills.
    std::vector<uint8_t> raw = SmallSnapshot(i % 60, 7919 * i, 200 + i);
    Result<AppendResult> r = (*store)->Append(MakeAppend("web01", "boot", i, raw));
    if (r.ok()) {
      stored.push_back(r->id);
    } else {
      failure = r.status();
    }
  }
  ASSERT_FALSE(failure.ok()) << "never full";
  EXPECT_THAT(failure.message(), HasSubstr("store " + dir.path() + "/perfhive.db: "));
  EXPECT_THAT(failure.message(), HasSubstr("full"));
  // What was acknowledged before stays readable, and the store keeps answering.
  ASSERT_FALSE(stored.empty());
  for (int64_t id : stored) EXPECT_TRUE(ReadBack(**store, "web01", id).ok());
  EXPECT_FALSE((*store)->Append(MakeAppend("web01", "boot", 999, SmallSnapshot(1, 1, 900))).ok());
}

}  // namespace
}  // namespace perfhive
