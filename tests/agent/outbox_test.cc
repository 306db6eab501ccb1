// The outbox over a real spool folder: what is on disk when, what an answer removes, what is
// counted as lost.

#include "agent/outbox.h"

#include <gtest/gtest.h>

#include <sstream>

#include "agent/server_reports.h"
#include "tests/agent/agent_test_util.h"
#include "wire/title_digest.h"

namespace perfhive {
namespace {

using testing::TempDir;
using testing::TestOwner;

// Records of 2,000 bytes.
SnapshotRecord OutboxRecord(uint64_t sequence) { return testing::TestRecord(sequence, 2000); }

class OutboxTest : public ::testing::Test {
 protected:
  // A spool and an outbox over it, as an agent that starts finds them.
  void Start() {
    spool_ = std::move(Spool::Open(env_, dir_.path(), 1 << 30, TestOwner(), log_)).value();
    outbox_ = std::make_unique<Outbox>(*spool_, spool_->TakeRecovered(), 64 << 20, log_);
  }
  // What a crash leaves: the process's memory gone, nothing written on the way out.
  void Crash() {
    outbox_.reset();
    spool_.reset();
  }
  std::shared_ptr<const SnapshotRecord> Next() { return NextOutgoing().snapshot; }
  Outbox::Outgoing NextOutgoing(size_t window = 16) {
    std::atomic<bool> interrupted{false};
    return outbox_->NextToSend(window, interrupted);
  }

  Env& env_ = Env::Default();
  std::ostringstream log_text_;
  Logger log_{log_text_, env_};
  TempDir dir_;
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<Outbox> outbox_;
};

// Issue 20, case 7: while connected, snapshots not yet acknowledged were only in memory, so a
// crash lost what was in flight. Each is on disk before the shipper can take it.
TEST_F(OutboxTest, ASnapshotIsOnDiskBeforeItIsOnTheWire) {
  Start();
  outbox_->SetConnected(true);
  for (uint64_t sequence = 1; sequence <= 3; ++sequence) {
    outbox_->Push(OutboxRecord(sequence));
    EXPECT_EQ(spool_->size(), sequence) << "spooled when pushed, before it is sent";
  }
  std::shared_ptr<const SnapshotRecord> sent = Next();
  ASSERT_NE(sent, nullptr);
  EXPECT_EQ(*sent, OutboxRecord(1));
  outbox_->Remove("feedface", 1);  // acknowledged: gone from disk too
  EXPECT_EQ(spool_->size(), 2u);
  Next();  // 2 is on the wire when the agent dies
  Crash();

  Start();
  EXPECT_EQ(outbox_->size(), 2u);
  outbox_->SetConnected(true);
  EXPECT_EQ(*Next(), OutboxRecord(2));
  EXPECT_EQ(*Next(), OutboxRecord(3));
}

// Issue 20, case 5: refused snapshots were deleted while the final line said "0 lost". A refusal
// is lost data, counted as such; an ack is not.
TEST_F(OutboxTest, ARefusedSnapshotIsCountedAsLost) {
  Start();
  outbox_->SetConnected(true);
  outbox_->Push(OutboxRecord(1));
  outbox_->Push(OutboxRecord(2));
  Next();
  Next();
  outbox_->Lose("feedface", 1);
  outbox_->Remove("feedface", 2);
  EXPECT_EQ(outbox_->size(), 0u);
  EXPECT_EQ(spool_->size(), 0u);
  EXPECT_EQ(outbox_->lost().refused, 1u);
  EXPECT_EQ(outbox_->lost().total(), 1u);
  outbox_->Lose("feedface", 1);  // a second answer to the same snapshot finds nothing
  EXPECT_EQ(outbox_->lost().total(), 1u);
}

// A snapshot the server asks for again goes back in line before anything newer.
TEST_F(OutboxTest, AResendPutsTheSnapshotBackBeforeNewerOnes) {
  Start();
  outbox_->SetConnected(true);
  for (uint64_t sequence = 1; sequence <= 3; ++sequence) outbox_->Push(OutboxRecord(sequence));
  EXPECT_EQ(Next()->sequence, 1u);
  EXPECT_EQ(Next()->sequence, 2u);
  outbox_->Unsend("feedface", 1);
  EXPECT_EQ(Next()->sequence, 1u);
  EXPECT_EQ(Next()->sequence, 3u);
  EXPECT_EQ(outbox_->lost().total(), 0u);
}

// While disconnected nothing is kept in memory: every snapshot waits in the spool, and one the
// spool drops for its limit is counted as lost.
TEST_F(OutboxTest, TheSpoolsLimitDropsTheOldestAsLost) {
  size_t one = 0;
  {
    TempDir sizing;
    std::unique_ptr<Spool> probe =
        std::move(Spool::Open(env_, sizing.path(), 1 << 30, TestOwner(), log_)).value();
    one = probe->Append(OutboxRecord(1)).ok() ? probe->bytes() : 0;
  }
  spool_ = std::move(Spool::Open(env_, dir_.path(), 2 * one, TestOwner(), log_)).value();
  outbox_ = std::make_unique<Outbox>(*spool_, spool_->TakeRecovered(), 64 << 20, log_);
  for (uint64_t sequence = 1; sequence <= 3; ++sequence) outbox_->Push(OutboxRecord(sequence));
  EXPECT_EQ(outbox_->size(), 2u);
  EXPECT_EQ(outbox_->lost().dropped, 1u);
  outbox_->SetConnected(true);
  EXPECT_EQ(Next()->sequence, 2u);
}

// Reports go before snapshots, and a full window of snapshots awaiting answers does not hold them
// back: a host's error reaches the server while the server is slow to answer.
TEST_F(OutboxTest, ReportsGoAheadOfSnapshotsAndPastTheWindow) {
  Start();
  outbox_->SetConnected(true);
  outbox_->Push(OutboxRecord(1));
  outbox_->Push(OutboxRecord(2));
  EXPECT_EQ(NextOutgoing(/*window=*/1).snapshot->sequence, 1u);  // the window is full now
  outbox_->Report(HealthReportMessage("access denied", 42));
  Outbox::Outgoing next = NextOutgoing(/*window=*/1);
  EXPECT_EQ(next.snapshot, nullptr);
  ASSERT_EQ(next.reports.size(), 1u);
  EXPECT_EQ(next.reports[0].health().last_error(), "access denied");
  EXPECT_EQ(next.reports[0].health().last_error_unix_nanos(), 42);
  outbox_->Remove("feedface", 1);
  EXPECT_EQ(NextOutgoing(/*window=*/1).snapshot->sequence, 2u);
}

// The host's health goes on the first stream up after it changed; what the server must hold
// while it is so (disabled providers, losses, timings) goes on every stream, the latest of each
// kind only.
TEST_F(OutboxTest, HealthGoesOnceAndCollectionReportsOnEveryStream) {
  Start();
  v1::CollectionLosses first;
  first.set_dropped(1);
  v1::CollectionLosses second;
  second.set_dropped(2);
  outbox_->Report(LossesReportMessage(first));
  outbox_->Report(HealthReportMessage("", 7));
  outbox_->Report(LossesReportMessage(second));  // replaces the first: only the latest counts
  outbox_->SetConnected(true);
  Outbox::Outgoing on_first_stream = NextOutgoing();
  ASSERT_EQ(on_first_stream.reports.size(), 2u);
  size_t health = 0, losses = 0;
  for (const v1::AgentMessage& report : on_first_stream.reports) {
    health += report.has_health();
    if (report.has_losses()) {
      ++losses;
      EXPECT_EQ(report.losses().dropped(), 2u);
    }
  }
  EXPECT_EQ(health, 1u);
  EXPECT_EQ(losses, 1u);

  outbox_->SetConnected(false);
  outbox_->SetConnected(true);
  outbox_->Push(OutboxRecord(1));
  Outbox::Outgoing on_second_stream = NextOutgoing();
  ASSERT_EQ(on_second_stream.reports.size(), 1u);
  EXPECT_TRUE(on_second_stream.reports[0].has_losses());
  EXPECT_EQ(NextOutgoing().snapshot->sequence, 1u);
}

// The title databases a snapshot was taken under are in the spool with it: after a crash the
// next run finds them there, though it never read them itself.
TEST_F(OutboxTest, TitleDatabasesOutliveTheRunThatAdoptedThem) {
  Start();
  TitleBytes titles{.language = "009", .counters = {'2', 0, 'S', 0}, .helps = {}};
  std::vector<TitleRef> refs = outbox_->AdoptTitles({titles});
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].sha256, TitleDigest("009", titles.counters, {}));
  EXPECT_EQ(outbox_->titles_in_force(), refs);
  SnapshotRecord taken = OutboxRecord(1);
  taken.titles = refs;
  outbox_->Push(std::move(taken));
  Crash();

  Start();
  EXPECT_TRUE(outbox_->titles_in_force().empty());
  Result<TitleBytes> found = outbox_->FindTitles(refs[0].sha256);
  ASSERT_TRUE(found.ok()) << found.error();
  EXPECT_EQ(found->counters, titles.counters);
  EXPECT_FALSE(outbox_->FindTitles(Sha256Digest{}).ok());
}

}  // namespace
}  // namespace perfhive
