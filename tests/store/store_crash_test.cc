// Crash safety: a child process appends in a loop, while another of its threads compacts its
// groups and merges their blocks, and is killed with SIGKILL mid-stream. Every append the child
// saw completed (reported through a pipe from the completion) must be in the reopened store,
// bit-identical, and the database must pass SQLite's integrity check. The kill
// ends the process, not the machine, so this proves the commit protocol, not the disk's flush
// (which synchronous=FULL asks of the file system).

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "store/store.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::MakeAppend;
using testing::SmallSnapshot;
using testing::TempDir;

// Snapshot `sequence` of the child's stream, reproducible in the parent; each its own sample.
std::vector<uint8_t> ChildSnapshot(uint64_t sequence) {
  return SmallSnapshot(static_cast<int>(sequence % 60), sequence, 20 + sequence % 7,
                       static_cast<int64_t>(sequence));
}

// A report with this bit set counts groups merged by a pass; without it, an acknowledged sequence.
constexpr uint64_t kMergeReport = uint64_t{1} << 63;

[[noreturn]] void RunChild(const std::string& dir, int report_fd) {
  StoreOptions options;
  options.group_size = 8;  // many groups, so the kill can land while a keyframe is written
  // and compacted groups merge by six snapshots, so that it can land while blocks are merged too
  // (the open groups compacted as idle at once hold two or three).
  options.merged_block_snapshots = 6;
  Result<std::unique_ptr<Store>> store = Store::Open(dir, options);
  if (!store.ok()) _exit(2);
  // And while groups are rewritten as blocks (closed ones, and open ones taken as idle at once)
  // and blocks merged.
  std::thread compaction([&] {
    for (;;) {
      Result<CompactionResult> pass = (*store)->CompactClosedGroups(INT64_MAX);
      if (!pass.ok()) _exit(5);
      const uint64_t merged = kMergeReport | static_cast<uint64_t>(pass->groups_merged);
      if (pass->groups_merged > 0 && write(report_fd, &merged, sizeof merged) != sizeof merged) {
        _exit(4);
      }
    }
  });
  // Two streams keep appends in flight, so that batches hold several snapshots.
  std::vector<std::thread> streams;
  for (int stream = 0; stream < 2; ++stream) {
    streams.emplace_back([&, stream] {
      for (uint64_t i = 0;; ++i) {
        uint64_t sequence = i * 2 + stream;
        std::string host = stream == 0 ? "even" : "odd";
        Result<AppendResult> r =
            (*store)->Append(MakeAppend(host, "boot", sequence, ChildSnapshot(sequence)));
        if (!r.ok()) _exit(3);
        // One 8-byte write is atomic on a pipe: the parent never reads half a report.
        if (write(report_fd, &sequence, sizeof sequence) != sizeof sequence) _exit(4);
      }
    });
  }
  for (std::thread& t : streams) t.join();
  compaction.join();
  _exit(0);
}

TEST(StoreCrashTest, KilledWriterLosesNothingAcknowledged) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    RunChild(dir.path(), fds[1]);
  }
  close(fds[1]);

  // Let the child get well into its stream, then kill it without warning.
  std::set<uint64_t> acknowledged;
  uint64_t merged = 0;
  uint64_t sequence;
  auto take = [&] {
    if (sequence & kMergeReport) {
      merged += sequence & ~kMergeReport;
    } else {
      acknowledged.insert(sequence);
    }
  };
  while ((acknowledged.size() < 300 || merged == 0) &&
         read(fds[0], &sequence, sizeof sequence) == sizeof sequence) {
    take();
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child stopped by itself, status " << status;
  while (read(fds[0], &sequence, sizeof sequence) == sizeof sequence) take();
  close(fds[0]);
  ASSERT_GE(acknowledged.size(), 300u);
  EXPECT_GT(merged, 0u) << "no blocks were merged before the kill";

  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.path() + "/perfhive.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* check = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &check, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
    sqlite3_finalize(check);
    sqlite3_close(db);
  }

  Result<std::unique_ptr<Store>> store = Store::Open(dir.path());
  ASSERT_TRUE(store.ok()) << store.error();
  std::map<uint64_t, SnapshotInfo> stored;  // by sequence
  for (const char* host : {"even", "odd"}) {
    Result<std::vector<SnapshotInfo>> list = (*store)->ListSnapshots(host, 0, INT64_MAX);
    ASSERT_TRUE(list.ok()) << list.error();
    for (const SnapshotInfo& info : *list) stored[info.sequence] = info;
  }
  for (uint64_t acked : acknowledged) {
    auto found = stored.find(acked);
    ASSERT_NE(found, stored.end()) << "acknowledged sequence " << acked << " is missing";
    Result<std::vector<uint8_t>> raw = (*store)->ReadSnapshot(found->second);
    ASSERT_TRUE(raw.ok()) << raw.error();
    EXPECT_EQ(*raw, ChildSnapshot(acked)) << acked;
  }
  // The reopened store goes on from where the child stopped.
  Result<std::optional<uint64_t>> last = (*store)->LastSequence("even", "boot");
  ASSERT_TRUE(last.ok() && last->has_value());
  uint64_t next = **last + 2;
  Result<AppendResult> more =
      (*store)->Append(MakeAppend("even", "boot", next, ChildSnapshot(next)));
  ASSERT_TRUE(more.ok()) << more.error();
  EXPECT_EQ(*testing::ReadBack(**store, "even", more->id), ChildSnapshot(next));
}

}  // namespace
}  // namespace perfhive
