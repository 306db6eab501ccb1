#include "store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using testing::MakeAppend;
using testing::SampleNs;
using testing::SmallSnapshot;
using testing::TempDir;

std::unique_ptr<Store> OpenStore(const std::string& dir, const StoreOptions& options = {}) {
  Result<std::unique_ptr<Store>> store = Store::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.error();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST(StoreTest, AppendThenReadBackExactly) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::vector<uint8_t> raw = SmallSnapshot(7, 1);
  Result<AppendResult> appended = store->Append(MakeAppend("web01", "boot-1", 1, raw));
  ASSERT_TRUE(appended.ok()) << appended.error();
  EXPECT_FALSE(appended->duplicate);
  EXPECT_EQ(appended->sample_time_ns, SampleNs(7));

  Result<std::vector<uint8_t>> back = store->ReadSnapshot(appended->id);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, raw);

  Result<SnapshotInfo> info = store->GetSnapshotInfo(appended->id);
  ASSERT_TRUE(info.ok()) << info.error();
  EXPECT_EQ(info->host, "web01");
  EXPECT_EQ(info->query, "Global");
  EXPECT_EQ(info->instance_id, "boot-1");
  EXPECT_EQ(info->sequence, 1u);
  EXPECT_EQ(info->raw_size, static_cast<int64_t>(raw.size()));
  EXPECT_EQ(info->sha256, Sha256(raw));
  EXPECT_EQ(info->keyframe_id, 0);
}

TEST(StoreTest, GroupsAreAKeyframeAndDeltasAgainstIt) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 3;
  auto store = OpenStore(dir.path(), options);
  std::vector<std::vector<uint8_t>> raws;
  std::vector<int64_t> ids;
  for (int i = 0; i < 7; ++i) {
    raws.push_back(SmallSnapshot(i, i));
    Result<AppendResult> r = store->Append(MakeAppend("web01", "boot-1", i, raws.back()));
    ASSERT_TRUE(r.ok()) << r.error();
    ids.push_back(r->id);
  }
  std::vector<int64_t> keyframes;
  for (int64_t id : ids) keyframes.push_back(store->GetSnapshotInfo(id)->keyframe_id);
  EXPECT_EQ(keyframes, (std::vector<int64_t>{0, ids[0], ids[0], 0, ids[3], ids[3], 0}));
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(*store->ReadSnapshot(ids[i]), raws[i]);
}

TEST(StoreTest, ManySnapshotsReadBackExactlyFromAnywhereInTheirGroups) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 3;
  auto store = OpenStore(dir.path(), options);
  // Two queries interleaved, so each group's members are not next to each other.
  std::vector<std::vector<uint8_t>> raws;
  for (int i = 0; i < 8; ++i) {
    raws.push_back(SmallSnapshot(i, i, i % 2 == 0 ? 20 : 21));
    std::string query = i % 2 == 0 ? "Global" : "230";
    ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", i + 1, raws.back(), query)).ok());
  }
  // From the second snapshot: the first members read need a keyframe that is not listed.
  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", SampleNs(1), INT64_MAX);
  ASSERT_TRUE(listed.ok()) << listed.error();
  ASSERT_EQ(listed->size(), 7u);
  Result<std::vector<std::vector<uint8_t>>> read = store->ReadSnapshots(*listed);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(*read, std::vector<std::vector<uint8_t>>(raws.begin() + 1, raws.end()));
}

TEST(StoreTest, ManySnapshotsReadBackExactlyWhenGroupsInterleaveBySampleTime) {
  TempDir dir;
  StoreOptions options;
  options.group_size = 3;
  auto store = OpenStore(dir.path(), options);
  // A group of seconds 0, 2, 4, then (a spool resent late) one of seconds 1 and 3.
  std::map<int, std::vector<uint8_t>> raws;
  std::vector<int64_t> ids;
  uint64_t sequence = 0;
  for (int second : {0, 2, 4, 1, 3}) {
    raws[second] = SmallSnapshot(second, second);
    Result<AppendResult> r = store->Append(MakeAppend("web01", "boot-1", ++sequence, raws[second]));
    ASSERT_TRUE(r.ok()) << r.error();
    ids.push_back(r->id);
  }
  std::vector<int64_t> keyframes;
  for (int64_t id : ids) keyframes.push_back(store->GetSnapshotInfo(id)->keyframe_id);
  ASSERT_EQ(keyframes, (std::vector<int64_t>{0, ids[0], ids[0], 0, ids[3]}));

  Result<std::vector<SnapshotInfo>> listed = store->ListSnapshots("web01", 0, INT64_MAX);
  ASSERT_TRUE(listed.ok()) << listed.error();
  Result<std::vector<std::vector<uint8_t>>> read = store->ReadSnapshots(*listed);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(*read,
            (std::vector<std::vector<uint8_t>>{raws[0], raws[1], raws[2], raws[3], raws[4]}));
}

TEST(StoreTest, TitleHistoryPicksTheVersionInForceAsTitlesInForceDoes) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::vector<uint8_t> counters_v1 = {'2', 0, 'S', 'y', 's', 't', 'e', 'm', 0, 0};
  std::vector<uint8_t> counters_v2 = {'2', 0, 'S', 'y', 's', 0, 0};
  Result<Sha256Digest> v1 = store->PutTitleDatabase("009", counters_v1, {});
  Result<Sha256Digest> v2 = store->PutTitleDatabase("009", counters_v2, {});
  ASSERT_TRUE(v1.ok() && v2.ok());
  ASSERT_TRUE(store->SetTitlesInForce("web01", "009", *v2, SampleNs(10)).ok());
  ASSERT_TRUE(store->SetTitlesInForce("web01", "009", *v1, SampleNs(20)).ok());

  Result<std::vector<TitleVersion>> history = store->TitleHistory("WEB01", "009");
  ASSERT_TRUE(history.ok()) << history.error();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].since_ns, SampleNs(10));
  EXPECT_EQ((*history)[0].digest, *v2);
  EXPECT_EQ((*history)[1].since_ns, SampleNs(20));
  EXPECT_EQ((*history)[1].digest, *v1);
  EXPECT_EQ(VersionInForce(*history, SampleNs(5))->digest, *v2);  // before all: the earliest
  EXPECT_EQ(VersionInForce(*history, SampleNs(10))->digest, *v2);
  EXPECT_EQ(VersionInForce(*history, SampleNs(19))->digest, *v2);
  EXPECT_EQ(VersionInForce(*history, SampleNs(20))->digest, *v1);
  EXPECT_EQ(VersionInForce(*history, SampleNs(99))->digest, *v1);
  EXPECT_TRUE(store->TitleHistory("web01", "007")->empty());
  EXPECT_EQ(VersionInForce({}, SampleNs(10)), nullptr);
}

TEST(StoreTest, ResendIsADuplicateAndNotStoredTwice) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::vector<uint8_t> raw = SmallSnapshot(1);
  Result<AppendResult> first = store->Append(MakeAppend("web01", "boot-1", 5, raw));
  ASSERT_TRUE(first.ok());
  Result<AppendResult> again = store->Append(MakeAppend("WEB01", "boot-1", 5, raw));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->id, first->id);
  EXPECT_EQ(store->ListSnapshots("web01", 0, INT64_MAX)->size(), 1u);
  EXPECT_EQ((*store->FindHost("web01"))->snapshots_received, 1);

  // The same key with other bytes is refused, naming the key.
  Result<AppendResult> conflict = store->Append(MakeAppend("web01", "boot-1", 5, SmallSnapshot(2)));
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.error(), HasSubstr("host web01 instance boot-1 sequence 5 is already stored "
                                          "with different bytes"));
  // Another instance id with the same sequence is another snapshot.
  EXPECT_FALSE(store->Append(MakeAppend("web01", "boot-2", 5, raw))->duplicate);
}

TEST(StoreTest, MalformedSnapshotsAreRefusedWithTheReadersMessage) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::vector<uint8_t> raw = SmallSnapshot(1);
  raw[0] = 'X';  // signature "PERF" broken
  Result<AppendResult> r = store->Append(MakeAppend("web01", "boot-1", 1, raw));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error(), HasSubstr("snapshot refused: "));

  SnapshotBuilder builder;  // SystemTime left all zero
  builder.AddObject(2).set_no_instances();
  r = store->Append(MakeAppend("web01", "boot-1", 2, builder.Build()));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error(), HasSubstr("SystemTime: year 0 is outside 1678..2261"));
}

TEST(StoreTest, ListsByTimeRangeAndQuery) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  for (int s = 0; s < 10; ++s) {
    ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", s, SmallSnapshot(s, s))).ok());
  }
  ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", 10, SmallSnapshot(3), "230 238")).ok());
  ASSERT_TRUE(store->Append(MakeAppend("db01", "boot-9", 1, SmallSnapshot(4))).ok());

  Result<std::vector<SnapshotInfo>> range = store->ListSnapshots("Web01", SampleNs(3), SampleNs(6));
  ASSERT_TRUE(range.ok()) << range.error();
  ASSERT_EQ(range->size(), 4u);  // seconds 3, 3 (the other query), 4, 5
  EXPECT_EQ((*range)[0].sample_time_ns, SampleNs(3));
  EXPECT_EQ((*range)[3].sample_time_ns, SampleNs(5));

  Result<std::vector<SnapshotInfo>> global =
      store->ListSnapshots("web01", SampleNs(3), SampleNs(6), std::string("Global"));
  ASSERT_EQ(global->size(), 3u);
  for (const SnapshotInfo& info : *global) EXPECT_EQ(info.query, "Global");
  EXPECT_TRUE(store->ListSnapshots("nobody", 0, INT64_MAX)->empty());
}

TEST(StoreTest, LastSequencePerInstance) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  EXPECT_FALSE(store->LastSequence("web01", "boot-1")->has_value());
  for (uint64_t s : {3, 9, 4}) {
    ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", s, SmallSnapshot(1, s))).ok());
  }
  ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-2", 1, SmallSnapshot(1))).ok());
  EXPECT_EQ(*store->LastSequence("WEB01", "boot-1"), std::optional<uint64_t>(9));
  EXPECT_EQ(*store->LastSequence("web01", "boot-2"), std::optional<uint64_t>(1));
}

TEST(StoreTest, HostsAreNamedIgnoringCase) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  HostInfo info{"Web01", "Windows Server 2022", "10.0.20348", "agent", "1.0.0", "boot-1"};
  ASSERT_TRUE(store->UpsertHost(info, 100).ok());
  info.name = "WEB01";
  info.agent_version = "1.0.1";
  ASSERT_TRUE(store->UpsertHost(info, 200).ok());
  ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", 1, SmallSnapshot(1))).ok());
  ASSERT_TRUE(store->RecordRefusal("wEb01", "object 3 at byte 18432: bad length", 300).ok());

  Result<std::vector<HostRecord>> hosts = store->ListHosts();
  ASSERT_TRUE(hosts.ok()) << hosts.error();
  ASSERT_EQ(hosts->size(), 1u);
  const HostRecord& host = (*hosts)[0];
  EXPECT_EQ(host.info.name, "WEB01");  // as last said
  EXPECT_EQ(host.info.os, "Windows Server 2022");
  EXPECT_EQ(host.info.agent_version, "1.0.1");
  EXPECT_EQ(host.first_seen_ns, 100);
  EXPECT_EQ(host.snapshots_received, 1);
  EXPECT_EQ(host.snapshots_stored, 1);
  EXPECT_EQ(host.refusals, 1);
  EXPECT_EQ(host.last_error, "object 3 at byte 18432: bad length");
  EXPECT_EQ(host.last_error_ns, 300);
  // Latin-1 capitals fold too (UTF-8 "Ü" and "ü").
  ASSERT_TRUE(store
                  ->UpsertHost({"M\xC3\x9C"
                                "NCHEN",
                                "", "", "agentless", "", ""},
                               1)
                  .ok());
  EXPECT_TRUE((*store->FindHost("m\xC3\xBC"
                                "nchen"))
                  .has_value());
}

TEST(StoreTest, TitleDatabasesAreStoredOnceAndVersionedPerHost) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::vector<uint8_t> counters_v1 = {'2', 0, 'S', 'y', 's', 't', 'e', 'm', 0, 0};
  std::vector<uint8_t> counters_v2 = {'2', 0, 'S', 'y', 's', 0, 0};
  std::vector<uint8_t> helps = {'3', 0, 'h', 0, 0};
  Result<Sha256Digest> v1 = store->PutTitleDatabase("009", counters_v1, helps);
  Result<Sha256Digest> again = store->PutTitleDatabase("009", counters_v1, helps);
  Result<Sha256Digest> v2 = store->PutTitleDatabase("009", counters_v2, helps);
  ASSERT_TRUE(v1.ok() && again.ok() && v2.ok());
  EXPECT_EQ(*v1, *again);
  EXPECT_NE(*v1, *v2);
  EXPECT_TRUE(*store->HasTitleDatabase(*v1));
  EXPECT_FALSE(*store->HasTitleDatabase(Sha256Digest{}));

  // Two hosts share v1; web01 moves to v2 at second 10.
  ASSERT_TRUE(store->SetTitlesInForce("web01", "009", *v1, SampleNs(0)).ok());
  ASSERT_TRUE(store->SetTitlesInForce("web02", "009", *v1, SampleNs(0)).ok());
  ASSERT_TRUE(store->SetTitlesInForce("web01", "009", *v1, SampleNs(5)).ok());  // no change
  ASSERT_TRUE(store->SetTitlesInForce("web01", "009", *v2, SampleNs(10)).ok());

  auto in_force = [&](const std::string& host, int64_t t) {
    Result<std::optional<TitleDatabaseRecord>> r = store->TitlesInForce(host, "009", t);
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() && r->has_value() ? (*r)->digest : Sha256Digest{};
  };
  EXPECT_EQ(in_force("web01", SampleNs(9)), *v1);
  EXPECT_EQ(in_force("web01", SampleNs(10)), *v2);
  EXPECT_EQ(in_force("web01", SampleNs(100)), *v2);
  EXPECT_EQ(in_force("web01", SampleNs(0) - 1), *v1);  // before every version: the earliest
  EXPECT_EQ(in_force("web02", SampleNs(100)), *v1);
  Result<std::optional<TitleDatabaseRecord>> record =
      store->TitlesInForce("web01", "009", SampleNs(9));
  EXPECT_EQ((*record)->counters, counters_v1);
  EXPECT_EQ((*record)->since_ns, SampleNs(0));
  EXPECT_FALSE(store->TitlesInForce("web01", "007", SampleNs(9))->has_value());
  EXPECT_FALSE(store->SetTitlesInForce("web01", "009", Sha256Digest{}, 0).ok());

  Result<TitleDatabaseRecord> stored = store->GetTitleDatabase(*v2);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->language, "009");
  EXPECT_EQ(stored->counters, counters_v2);
  EXPECT_EQ(stored->helps, helps);
}

TEST(StoreTest, SurvivesReopenAndContinuesTheGroup) {
  TempDir dir;
  std::vector<std::vector<uint8_t>> raws;
  std::vector<int64_t> ids;
  StoreOptions options;
  options.group_size = 10;
  for (int round = 0; round < 2; ++round) {
    auto store = OpenStore(dir.path(), options);
    for (int i = 0; i < 3; ++i) {
      int n = round * 3 + i;
      raws.push_back(SmallSnapshot(n, n));
      Result<AppendResult> r = store->Append(MakeAppend("web01", "boot-1", n, raws.back()));
      ASSERT_TRUE(r.ok()) << r.error();
      ids.push_back(r->id);
    }
  }
  auto store = OpenStore(dir.path(), options);
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(*store->ReadSnapshot(ids[i]), raws[i]);
  // After the reopen the writer went on with the same keyframe.
  EXPECT_EQ(store->GetSnapshotInfo(ids[4])->keyframe_id, ids[0]);
}

TEST(StoreTest, ConcurrentAppendsAreAllStored) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::string host = "host" + std::to_string(t);
        if (!store->Append(MakeAppend(host, "boot", i, SmallSnapshot(i % 60, i))).ok()) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  Result<StoreTotals> totals = store->Totals();
  ASSERT_TRUE(totals.ok());
  EXPECT_EQ(totals->snapshots, kThreads * kEach);
  for (int t = 0; t < kThreads; ++t) {
    Result<std::vector<SnapshotInfo>> list =
        store->ListSnapshots("host" + std::to_string(t), 0, INT64_MAX);
    ASSERT_EQ(list->size(), static_cast<size_t>(kEach));
    for (const SnapshotInfo& info : *list) {
      EXPECT_EQ(*store->ReadSnapshot(info.id),
                SmallSnapshot(static_cast<int>(info.sequence % 60), info.sequence));
    }
  }
}

TEST(StoreTest, AsyncCompletionRunsOncePerAppend) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  std::atomic<int> done = 0;
  for (int i = 0; i < 50; ++i) {
    store->AppendAsync(MakeAppend("web01", "boot", i, SmallSnapshot(i % 60, i)),
                       [&](Result<AppendResult> r) {
                         EXPECT_TRUE(r.ok());
                         ++done;
                       });
  }
  store.reset();  // the destructor commits what is queued
  EXPECT_EQ(done, 50);
}

TEST(StoreTest, ListingStopsAtTheLimit) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", i, SmallSnapshot(i, i))).ok());
  }
  Result<std::vector<SnapshotInfo>> first =
      store->ListSnapshots("web01", SampleNs(1), INT64_MAX, std::nullopt, 2);
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].sample_time_ns, SampleNs(1));
  EXPECT_EQ((*first)[1].sample_time_ns, SampleNs(2));
  EXPECT_EQ(store->ListSnapshots("web01", 0, INT64_MAX)->size(), 5u);
}

}  // namespace
}  // namespace perfhive
