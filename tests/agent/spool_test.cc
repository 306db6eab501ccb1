#include "agent/spool.h"

#include <gtest/gtest.h>
#include <unistd.h>

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
using testing::TestOwner;

// Records that name a title database, as an agent's first snapshot of a boot does.
SnapshotRecord Record(uint64_t sequence, size_t size = 1000) {
  return testing::TestRecord(sequence, size,
                             {TitleRef{.language = "009", .sha256 = Sha256(FakeRaw(0, 10))}});
}

class SpoolTest : public ::testing::Test {
 protected:
  std::unique_ptr<Spool> Open(uint64_t max_bytes = 1 << 20,
                              std::optional<SnapshotOwner> owner = TestOwner()) {
    Result<std::unique_ptr<Spool>> spool = Spool::Open(env_, dir_.path(), max_bytes, owner, log_);
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
  spool.reset();
  spool = Open();
  EXPECT_FALSE(spool->ReadTitles(digest).ok());
}

// Issue 20, case 1: two agents on one machine without --spool-dir shared one folder and deleted
// each other's title files. A folder is one agent's: a second fails at once, naming the first.
TEST_F(SpoolTest, ASecondSpoolOnTheSameFolderFailsNamingTheProcessThatHasIt) {
  std::unique_ptr<Spool> first = Open();
  ASSERT_NE(first, nullptr);
  Result<std::unique_ptr<Spool>> second =
      Spool::Open(env_, dir_.path(), 1 << 20, TestOwner("OTHER"), log_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(second.error().find("is in use by another perfhive-agent"), std::string::npos);
  EXPECT_NE(second.error().find("locked by process " + std::to_string(getpid())), std::string::npos)
      << second.error();
  EXPECT_NE(second.error().find("--spool-dir"), std::string::npos);
  first.reset();
  EXPECT_NE(Open(), nullptr);  // free again once the first is gone
}

// Issue 20, case 2: hostx spooled 8 snapshots; an agent run as hosty with the same folder
// shipped them all as hosty. They are kept aside now, never handed back as another host's, never
// dropped for its limit, and the log says how to ship them under their own name.
TEST_F(SpoolTest, AnotherHostsSnapshotsAreKeptAsideNeverHandedBackAsThisHosts) {
  TitleBytes titles{.language = "009", .counters = FakeRaw(1, 300), .helps = {}};
  Sha256Digest digest = TitleDigest(titles.language, titles.counters, titles.helps);
  size_t one = 0;
  {
    std::unique_ptr<Spool> hostx = Open(1 << 20, TestOwner("hostx"));
    ASSERT_TRUE(hostx->WriteTitles(titles, digest).ok());
    for (uint64_t sequence = 1; sequence <= 8; ++sequence) {
      SnapshotRecord record = Record(sequence);
      record.owner = TestOwner("hostx");
      record.titles = {TitleRef{.language = "009", .sha256 = digest}};
      one = EncodeSpoolRecord(record).size();
      ASSERT_TRUE(hostx->Append(record).ok());
    }
  }
  {
    // As hosty, with room for only two of its own: hostx's eight are not its to drop.
    std::unique_ptr<Spool> hosty = Open(2 * one, TestOwner("hosty"));
    EXPECT_TRUE(hosty->TakeRecovered().empty());
    EXPECT_EQ(hosty->kept_aside(), 8u);
    EXPECT_NE(log_text_.str().find("8 snapshots taken as hostx (agent), are kept aside"),
              std::string::npos)
        << log_text_.str();
    EXPECT_NE(log_text_.str().find("never shipped as hosty (agent)"), std::string::npos);
    EXPECT_NE(log_text_.str().find("perfhive-agent drain --spool-dir " + dir_.path()),
              std::string::npos);
    for (uint64_t sequence = 1; sequence <= 3; ++sequence) {
      SnapshotRecord record = Record(sequence);
      record.owner = TestOwner("hosty");
      ASSERT_TRUE(hosty->Append(record).ok());
    }
    EXPECT_EQ(hosty->dropped(), 1u);  // its own oldest
  }
  // Named either way, the owner gets its own back, and the titles they need are still there.
  std::unique_ptr<Spool> hostx = Open(1 << 20, TestOwner("HOSTX"));
  std::vector<Spool::Entry> entries = hostx->TakeRecovered();
  ASSERT_EQ(entries.size(), 8u);
  for (const Spool::Entry& entry : entries) EXPECT_EQ(entry.record.owner.host.name, "hostx");
  EXPECT_EQ(hostx->kept_aside(), 2u);
  EXPECT_TRUE(hostx->ReadTitles(digest).ok());
  hostx.reset();
  // Opened for no owner (drain), every snapshot comes back with its own owner.
  std::unique_ptr<Spool> all = Open(1 << 20, std::nullopt);
  EXPECT_EQ(all->TakeRecovered().size(), 10u);
}

// A record an agent wrote before records had owners reads back without one, and no owner's
// spool hands it back as its own.
TEST_F(SpoolTest, RecordsOfAgentsThatDidNotRecordTheirOwnerAreKeptAside) {
  SnapshotRecord record = Record(1);
  std::vector<uint8_t> bytes = EncodeSpoolRecord(record);
  // PHSPOOL1 had the same fields but the owner's.
  size_t owner_bytes = 4 + record.owner.host.name.size() + 4 + record.owner.host.os.size() + 4 +
                       record.owner.host.os_version.size() + 4;
  std::vector<uint8_t> v1(bytes.begin(), bytes.begin() + 8);
  v1[7] = '1';
  v1.insert(v1.end(), bytes.begin() + 8 + static_cast<long>(owner_bytes), bytes.end() - 32);
  Sha256Digest sum = Sha256(v1);
  v1.insert(v1.end(), sum.begin(), sum.end());
  Result<SnapshotRecord> decoded = DecodeSpoolRecord(v1);
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_TRUE(decoded->owner.host.name.empty());
  EXPECT_EQ(decoded->raw, record.raw);
  EXPECT_EQ(decoded->sequence, 1u);
  ASSERT_TRUE(env_.WriteFileAtomically(dir_ / "00000000000000000001.snap", v1).ok());

  std::unique_ptr<Spool> spool = Open();
  EXPECT_TRUE(spool->TakeRecovered().empty());
  EXPECT_NE(log_text_.str().find("written by an older agent"), std::string::npos);
  EXPECT_NE(log_text_.str().find("--host-name NAME` ships them as NAME"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
