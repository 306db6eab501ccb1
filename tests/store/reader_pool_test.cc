// The store's read connections: leased one at a time each, given back, waited for when all are
// out; and a store whose reads run side by side while appends go on.

#include "store/reader_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "store/store.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::MakeAppend;
using testing::SmallSnapshot;
using testing::TempDir;

Result<std::unique_ptr<ReaderPool>> OpenPool(const TempDir& dir, int size) {
  return ReaderPool::Open(dir.path() + "/pool.db", size,
                          [](SqliteDb& db) { return db.Exec("PRAGMA journal_mode=WAL"); });
}

TEST(ReaderPoolTest, EachLeaseHasItsOwnConnectionAndTheNextWaitsForOneBack) {
  TempDir dir;
  Result<std::unique_ptr<ReaderPool>> pool = OpenPool(dir, 2);
  ASSERT_TRUE(pool.ok()) << pool.error();
  ReaderPool::Lease first = (*pool)->Acquire();
  std::optional<ReaderPool::Lease> second((*pool)->Acquire());
  EXPECT_NE(first.get(), second->get());
  // Both out: a third read waits until one comes back, then gets that one.
  SqliteDb* returned = second->get();
  std::atomic<bool> given_back = false;
  std::future<SqliteDb*> third = std::async(std::launch::async, [&] {
    ReaderPool::Lease lease = (*pool)->Acquire();
    EXPECT_TRUE(given_back.load());
    return lease.get();
  });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  given_back = true;
  second.reset();
  EXPECT_EQ(third.get(), returned);
  // Released early, a lease gives its connection back at once, and only once.
  first.Release();
  first.Release();
  ReaderPool::Lease a = (*pool)->Acquire();
  ReaderPool::Lease b = (*pool)->Acquire();
  EXPECT_NE(a.get(), b.get());
}

// Regression: one reader connection behind one lock served every read, so a long range read of
// one host held up every other read (a Hello's lookups, /metrics, other hosts' queries). Reads
// now lease connections of a pool: many threads read at once, while appends go on, and each
// read sees whole snapshots.
TEST(ReaderPoolTest, ReadsRunSideBySideWhileAppendsGoOn) {
  TempDir dir;
  StoreOptions options;
  options.readers = 3;
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path(), options);
  ASSERT_TRUE(store.ok()) << store.error();
  for (int s = 0; s < 20; ++s) {
    ASSERT_TRUE((*store)->Append(MakeAppend("web01", "boot", s, SmallSnapshot(s, s))).ok());
  }
  std::atomic<bool> done = false;
  std::thread appender([&] {
    for (int s = 20; s < 60; ++s) {
      EXPECT_TRUE((*store)->Append(MakeAppend("web02", "boot", s, SmallSnapshot(s, s))).ok());
    }
    done = true;
  });
  std::vector<std::thread> readers;
  std::atomic<int> reads = 0;
  for (int t = 0; t < 6; ++t) {
    readers.emplace_back([&] {
      do {
        Result<std::vector<SnapshotInfo>> listed = (*store)->ListSnapshots("web01", 0, INT64_MAX);
        ASSERT_TRUE(listed.ok()) << listed.error();
        ASSERT_EQ(listed->size(), 20u);
        Result<std::vector<std::vector<uint8_t>>> raws = (*store)->ReadSnapshots(*listed);
        ASSERT_TRUE(raws.ok()) << raws.error();
        for (size_t i = 0; i < raws->size(); ++i) {
          int s = static_cast<int>((*listed)[i].sequence);
          ASSERT_EQ((*raws)[i], SmallSnapshot(s, s));
        }
        ASSERT_TRUE((*store)->catalog().ListHosts().ok());
        ++reads;
      } while (!done);
    });
  }
  appender.join();
  for (std::thread& reader : readers) reader.join();
  EXPECT_GE(reads.load(), 6);
  Result<std::vector<SnapshotInfo>> web02 = (*store)->ListSnapshots("web02", 0, INT64_MAX);
  ASSERT_TRUE(web02.ok());
  EXPECT_EQ(web02->size(), 40u);
}

}  // namespace
}  // namespace perfhive
