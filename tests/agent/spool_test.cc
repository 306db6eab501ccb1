#include "agent/spool.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/spool_format.h"
#include "tests/agent/agent_test_util.h"
#include "wire/title_digest.h"

namespace perfhive {
namespace {

using testing::FakeRaw;
using testing::TempDir;

SnapshotRecord Record(uint64_t sequence, size_t size = 1000) {
  return SnapshotRecord{.instance_id = "feedface",
                        .sequence = sequence,
                        .query = "Global",
                        .titles = {TitleRef{.language = "009", .sha256 = Sha256(FakeRaw(0, 10))}},
                        .raw = FakeRaw(static_cast<int>(sequence), size)};
}

class SpoolTest : public ::testing::Test {
 protected:
  std::unique_ptr<Spool> Open(uint64_t max_bytes = 1 << 20) {
    Result<std::unique_ptr<Spool>> spool = Spool::Open(env_, dir_.path(), max_bytes, log_);
    EXPECT_TRUE(spool.ok()) << spool.error();
    return spool.ok() ? std::move(spool).value() : nullptr;
  }
  std::vector<std::string> SnapshotFiles() {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      if (entry.path().extension() == ".snap") names.push_back(entry.path().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  Env& env_ = Env::Default();
  std::ostringstream log_text_;
  Logger log_{log_text_, env_};
  TempDir dir_;
};

TEST_F(SpoolTest, RecordsComeBackWholeAndInOrderAfterARestart) {
  {
    std::unique_ptr<Spool> spool = Open();
    for (uint64_t sequence : {5, 3, 9}) ASSERT_TRUE(spool->Append(Record(sequence)).ok());
  }
  std::unique_ptr<Spool> spool = Open();
  std::vector<Spool::Entry> entries = spool->TakeRecovered();
  ASSERT_EQ(entries.size(), 3u);
  std::vector<uint64_t> order;
  for (const Spool::Entry& entry : entries) {
    order.push_back(entry.record.sequence);
    EXPECT_TRUE(entry.record.raw.empty());  // not kept in memory
    Result<SnapshotRecord> read = spool->Read(entry.id);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(*read, Record(entry.record.sequence));
  }
  EXPECT_EQ(order, (std::vector<uint64_t>{5, 3, 9}));  // the order they were spooled in
  // New records go after the recovered ones.
  Result<Spool::Appended> next = spool->Append(Record(1));
  ASSERT_TRUE(next.ok());
  EXPECT_GT(next->id, entries.back().id);
}

TEST_F(SpoolTest, OldestAreDroppedToStayWithinTheLimit) {
  size_t one = EncodeSpoolRecord(Record(1)).size();
  std::unique_ptr<Spool> spool = Open(3 * one);
  std::vector<uint64_t> ids;
  for (uint64_t sequence = 1; sequence <= 3; ++sequence) {
    Result<Spool::Appended> appended = spool->Append(Record(sequence));
    ASSERT_TRUE(appended.ok());
    EXPECT_TRUE(appended->dropped.empty());
    ids.push_back(appended->id);
  }
  Result<Spool::Appended> fourth = spool->Append(Record(4));
  ASSERT_TRUE(fourth.ok());
  EXPECT_EQ(fourth->dropped, std::vector<uint64_t>{ids[0]});
  EXPECT_EQ(spool->size(), 3u);
  EXPECT_EQ(spool->bytes(), 3 * one);
  EXPECT_EQ(spool->dropped(), 1u);
  EXPECT_EQ(SnapshotFiles().size(), 3u);
  EXPECT_NE(log_text_.str().find("dropped the oldest"), std::string::npos);

  Result<Spool::Appended> huge = spool->Append(Record(5, 4 * one));
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(spool->size(), 3u);  // nothing else was dropped for it
}

TEST_F(SpoolTest, TornAndDamagedFilesAreSkippedWithAWarning) {
  {
    std::unique_ptr<Spool> spool = Open();
    for (uint64_t sequence = 1; sequence <= 4; ++sequence) {
      ASSERT_TRUE(spool->Append(Record(sequence)).ok());
    }
  }
  std::vector<std::string> files = SnapshotFiles();
  ASSERT_EQ(files.size(), 4u);
  std::filesystem::resize_file(files[1], 600);  // torn: a crash mid-write without rename
  {
    std::fstream damaged(files[2], std::ios::in | std::ios::out | std::ios::binary);
    damaged.seekp(100);
    damaged.put('\x5a');  // one byte changed on disk
  }
  std::ofstream(dir_ / "00000000000000000099.snap.tmp") << "half";

  std::unique_ptr<Spool> spool = Open();
  std::vector<Spool::Entry> entries = spool->TakeRecovered();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].record.sequence, 1u);
  EXPECT_EQ(entries[1].record.sequence, 4u);
  EXPECT_EQ(SnapshotFiles().size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "00000000000000000099.snap.tmp"));
  EXPECT_NE(log_text_.str().find("SHA-256 does not match"), std::string::npos);
}

TEST_F(SpoolTest, TitleDatabasesAreKeptByDigestWhileSnapshotsReferToThem) {
  TitleBytes titles{.language = "009", .counters = FakeRaw(1, 300), .helps = FakeRaw(2, 50)};
  Sha256Digest digest = TitleDigest(titles.language, titles.counters, titles.helps);
  {
    std::unique_ptr<Spool> spool = Open();
    ASSERT_TRUE(spool->WriteTitles(titles, digest).ok());
    SnapshotRecord record = Record(1);
    record.titles = {TitleRef{.language = "009", .sha256 = digest}};
    ASSERT_TRUE(spool->Append(record).ok());
  }
  std::unique_ptr<Spool> spool = Open();
  Result<TitleBytes> read = spool->ReadTitles(digest);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(*read, titles);
  // Once no snapshot refers to it, the next start removes it.
  spool->Remove(spool->TakeRecovered().front().id);
  spool = Open();
  EXPECT_FALSE(spool->ReadTitles(digest).ok());
}

}  // namespace
}  // namespace perfhive
