// The procfs source on a fake /proc and /sys written by the test: every value checked against
// the numbers in the files, converted by hand to Windows units (USER_HZ 100: one tick is
// 100000 units of 100 ns; diskstats milliseconds are 10000 units). Then the odd trees: missing
// and unreadable files, processes that vanish, a container with few files.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <time.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "sources/procfs/procfs_source.h"
#include "tests/sources/procfs_test_util.h"

namespace perfhive {
namespace {

namespace ti = title_index;
using ::testing::AllOf;
using testing::ClockIn100ns;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::InstanceNames;
using ::testing::IsEmpty;
using testing::ObjectIndexes;
using testing::TakenSnapshot;
using testing::ValueOf;

// A directory tree that is removed with the object.
class FakeTree {
 public:
  FakeTree() {
    std::string pattern = std::filesystem::temp_directory_path() / "perfhive-procfs-XXXXXX";
    root_ = mkdtemp(pattern.data());
  }
  ~FakeTree() { std::filesystem::remove_all(root_); }

  void Write(const std::string& path, std::string_view text) const {
    std::filesystem::path file = root_ / path;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }
  void MakeDir(const std::string& path) const { std::filesystem::create_directories(root_ / path); }
  void Remove(const std::string& path) const { std::filesystem::remove_all(root_ / path); }
  std::string Path(const std::string& path) const { return (root_ / path).string(); }

 private:
  std::filesystem::path root_;
};

// The host's btime, 1700000000 s after the Unix epoch, as a FILETIME: 100 ns units since 1601,
// 11644473600 s before the epoch.
constexpr uint64_t kBootFiletime = (1'700'000'000ULL + 11'644'473'600ULL) * 10'000'000;

// A two-CPU host with two processes (and a third that vanished), one disk with a partition
// mounted twice, and two network interfaces.
void WriteHost(const FakeTree& tree) {
  tree.Write("proc/stat",
             "cpu  300 20 90 1900 50 15 7 3 0 0\n"
             "cpu0 100 20 30 1000 50 5 7 3 0 0\n"
             "cpu1 200 0 60 900 0 10 0 0 0 0\n"
             "intr 330 0\nctxt 5000\nbtime 1700000000\nprocesses 900\nprocs_running 5\n");
  tree.Write("proc/interrupts",
             "           CPU0       CPU1\n"
             "  1:         10         20   IO-APIC  timer\n"
             "LOC:        100        200   Local timer interrupts\n"
             "ERR:          0\n");
  tree.Write("proc/loadavg", "0.50 0.40 0.30 2/7 999\n");
  tree.Write("proc/sys/kernel/hostname", "fakehost\n");
  tree.Write("proc/meminfo",
             "MemTotal:        8000000 kB\nMemFree:         1000000 kB\n"
             "MemAvailable:    3000000 kB\nBuffers:          100000 kB\n"
             "Cached:          2000000 kB\nSwapTotal:       1000000 kB\n"
             "Shmem:            300000 kB\nCommitLimit:     5000000 kB\n"
             "Committed_AS:    4500000 kB\n");
  tree.Write("proc/vmstat", "pgpgin 1\npgfault 123456\npgmajfault 789\npswpin 5\npswpout 11\n");
  tree.Write("proc/sys/vm/overcommit_memory", "0\n");

  tree.Write("proc/100/stat",
             "100 (web (srv)) S 1 100 100 0 -1 0 40 0 2 0 150 50 0 0 20 0 4 0 3000 20971520 "
             "1000 0\n");
  tree.Write("proc/100/statm", "5120 1000 200 100 0 600 0\n");
  tree.Write("proc/100/io",
             "rchar: 4096\nwchar: 8192\nsyscr: 10\nsyscw: 20\nread_bytes: 0\n"
             "write_bytes: 4096\ncancelled_write_bytes: 0\n");
  for (const char* fd : {"0", "1", "2"}) tree.Write(std::string("proc/100/fd/") + fd, "");
  tree.Write("proc/100/task/100/stat",
             "100 (web) S 1 100 100 0 -1 0 30 0 2 0 100 40 0 0 20 0 4 0 3000 20971520 1000 0\n");
  tree.Write("proc/100/task/100/status",
             "Name:\tweb\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n");
  tree.Write("proc/100/task/101/stat",
             "101 (worker) R 1 100 100 0 -1 0 10 0 0 0 50 10 0 0 20 0 4 0 3100 20971520 1000 0\n");
  tree.Write("proc/100/task/101/status",
             "voluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t1\n");

  tree.Write("proc/200/stat",
             "200 (kworker/0:1) I 2 0 0 0 -1 0 0 0 0 0 0 7 0 0 20 0 1 0 50 0 0 0\n");
  tree.Write("proc/200/statm", "0 0 0 0 0 0 0\n");
  tree.MakeDir("proc/200/io");  // reading a directory fails, as io does without privileges
  tree.MakeDir("proc/200/fd");
  tree.Write("proc/200/task/200/stat",
             "200 (kworker/0:1) I 2 0 0 0 -1 0 0 0 0 0 0 7 0 0 20 0 1 0 50 0 0 0\n");
  tree.MakeDir("proc/300");  // a process that ended while its directory was listed

  tree.Write("proc/diskstats",
             "   8       0 sda 1000 10 20000 5000 500 5 8000 3000 2 6000 9000 0 0 0 0\n"
             "   8       1 sda1 900 10 18000 4500 400 5 6000 2500 1 5000 7000 0 0 0 0\n"
             "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  tree.MakeDir("sys/block/sda/device");
  tree.MakeDir("sys/block/loop0");
  tree.MakeDir("mnt/data");
  tree.Write("proc/self/mountinfo", "27 1 8:1 / " + tree.Path("mnt/data") +
                                        " rw,relatime - ext4 /dev/sda1 rw\n" + "28 27 8:1 /sub " +
                                        tree.Path("mnt") + " rw - ext4 /dev/sda1 rw\n" +
                                        "29 1 0:5 / /dev/shm rw - tmpfs tmpfs rw\n");

  tree.Write("proc/net/dev",
             "Inter-|   Receive                            |  Transmit\n"
             " face |bytes    packets errs drop fifo frame compressed multicast|bytes\n"
             "    lo:    3267      29    0    0    0     0          0         0     3267      29"
             "    0    0    0     0       0          0\n"
             "  eth0: 18929641     470    1    2    0     0          0         7    29522     356"
             "    3    4    0     0       0          0\n");
  tree.Write("sys/class/net/eth0/speed", "1000\n");
}

std::unique_ptr<ProcfsSource> SourceFor(const FakeTree& tree) {
  Result<std::unique_ptr<ProcfsSource>> source =
      ProcfsSource::Create({.proc_root = tree.Path("proc"),
                            .sys_root = tree.Path("sys"),
                            .ticks_per_second = 100,
                            .page_size = 4096});
  EXPECT_TRUE(source.ok()) << source.error();
  return source.ok() ? std::move(source).value() : nullptr;
}

class FakeTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteHost(tree_);
    source_ = SourceFor(tree_);
    ASSERT_NE(source_, nullptr);
  }

  FakeTree tree_;
  std::unique_ptr<ProcfsSource> source_;
};

TEST_F(FakeTreeTest, GlobalHasEveryObjectButThreadAndTheHostsClocks) {
  int64_t monotonic_before = ClockIn100ns(CLOCK_MONOTONIC);
  int64_t real_before = ClockIn100ns(CLOCK_REALTIME);
  TakenSnapshot taken(*source_, "Global");
  int64_t monotonic_after = ClockIn100ns(CLOCK_MONOTONIC);
  int64_t real_after = ClockIn100ns(CLOCK_REALTIME);
  const SnapshotReader& snapshot = taken.reader();

  EXPECT_THAT(ObjectIndexes(snapshot), ElementsAre(2, 4, 230, 234, 236, 238, 510));
  EXPECT_EQ(snapshot.system_name(), "fakehost");
  EXPECT_EQ(snapshot.perf_freq(), 10'000'000);
  EXPECT_GE(snapshot.perf_time(), monotonic_before);
  EXPECT_LE(snapshot.perf_time(), monotonic_after);
  // FILETIME: 100 ns units since 1601, 11644473600 s before the Unix epoch.
  constexpr int64_t kEpoch = 11'644'473'600LL * 10'000'000;
  EXPECT_GE(snapshot.perf_time_100ns(), real_before + kEpoch);
  EXPECT_LE(snapshot.perf_time_100ns(), real_after + kEpoch);
  EXPECT_EQ(snapshot.default_object(), 238);
  EXPECT_THAT(source_->TakeWarnings(), IsEmpty());
}

TEST_F(FakeTreeTest, SystemCounters) {
  TakenSnapshot taken(*source_, "2");
  const SnapshotReader& snapshot = taken.reader();
  ASSERT_THAT(ObjectIndexes(snapshot), ElementsAre(2));
  ObjectView system = *snapshot.FindObject(ti::kSystem);
  EXPECT_EQ(system.num_instances(), winperf::kNoInstances);
  EXPECT_EQ(ValueOf(snapshot, 2, "", ti::kProcesses), 3u);  // 100, 200 and the vanished 300
  EXPECT_EQ(ValueOf(snapshot, 2, "", ti::kThreads), 7u);
  EXPECT_EQ(ValueOf(snapshot, 2, "", ti::kContextSwitchesPerSec), 5000u);
  EXPECT_EQ(ValueOf(snapshot, 2, "", ti::kProcessorQueueLength), 3u);  // 5 runnable, 2 CPUs
  // System Up Time: the object's time is now and the value the boot time, both FILETIMEs.
  EXPECT_EQ(system.perf_freq(), 10'000'000);
  EXPECT_EQ(ValueOf(snapshot, 2, "", ti::kSystemUpTime), kBootFiletime);
  EXPECT_EQ(system.perf_time(), snapshot.perf_time_100ns());
}

TEST_F(FakeTreeTest, ProcessorTimesAreTicksIn100nsAndTotalIsTheAverage) {
  TakenSnapshot taken(*source_, "238");
  const SnapshotReader& snapshot = taken.reader();
  ObjectView processor = *snapshot.FindObject(ti::kProcessor);
  EXPECT_THAT(InstanceNames(processor), ElementsAre("0", "1", "_Total"));
  EXPECT_EQ(testing::FindCounter(processor, ti::kPercentProcessorTime)->type(),
            winperf::k100NsecTimerInv);
  // cpu0: idle 1000 + iowait 50; user 100 + nice 20; system 30 + irq 5 + softirq 7 + steal 3.
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kPercentProcessorTime), 105'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kPercentProcessorIdleTime), 105'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kPercentUserTime), 12'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kPercentPrivilegedTime), 4'500'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kPercentDpcTime), 700'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kPercentInterruptTime), 500'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "0", ti::kInterruptsPerSec), 110u);
  EXPECT_EQ(ValueOf(snapshot, 238, "1", ti::kPercentProcessorTime), 90'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "1", ti::kPercentPrivilegedTime), 7'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "1", ti::kInterruptsPerSec), 220u);
  EXPECT_EQ(ValueOf(snapshot, 238, "_Total", ti::kPercentProcessorTime), 97'500'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "_Total", ti::kPercentUserTime), 16'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "_Total", ti::kPercentPrivilegedTime), 5'750'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "_Total", ti::kPercentDpcTime), 350'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "_Total", ti::kPercentInterruptTime), 750'000u);
  EXPECT_EQ(ValueOf(snapshot, 238, "_Total", ti::kInterruptsPerSec), 330u);
}

TEST_F(FakeTreeTest, MemoryCounters) {
  TakenSnapshot taken(*source_, "4");
  const SnapshotReader& snapshot = taken.reader();
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kAvailableBytes), 3'000'000ull * 1024);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kAvailableKBytes), 3'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kAvailableMBytes), 2929u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kCommittedBytes), 4'500'000ull * 1024);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kCommitLimit), 9'000'000ull * 1024);  // RAM + swap
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kPageFaultsPerSec), 123456u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kPagesInputPerSec), 789u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kPagesOutputPerSec), 11u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kPagesPerSec), 800u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kCacheBytes), 1'800'000ull * 1024);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kPercentCommittedBytesInUse), 4'500'000u);
  EXPECT_EQ(ValueOf(snapshot, 4, "", ti::kPercentCommittedBytesInUse, 1), 9'000'000u);
}

TEST_F(FakeTreeTest, StrictOvercommitUsesTheKernelsCommitLimit) {
  tree_.Write("proc/sys/vm/overcommit_memory", "2\n");
  TakenSnapshot taken(*source_, "4");
  EXPECT_EQ(ValueOf(taken.reader(), 4, "", ti::kCommitLimit), 5'000'000ull * 1024);
  EXPECT_EQ(ValueOf(taken.reader(), 4, "", ti::kPercentCommittedBytesInUse, 1), 5'000'000u);
}

TEST_F(FakeTreeTest, ProcessesIdleAndTotal) {
  TakenSnapshot taken(*source_, "230");
  const SnapshotReader& snapshot = taken.reader();
  ASSERT_THAT(ObjectIndexes(snapshot), ElementsAre(230));
  ObjectView process = *snapshot.FindObject(ti::kProcess);
  // PDH path characters in names are replaced; the vanished 300 is not there.
  EXPECT_THAT(InstanceNames(process), ElementsAre("Idle", "web [srv]", "kworker_0:1", "_Total"));

  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kPercentProcessorTime), 20'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kPercentUserTime), 15'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kPercentPrivilegedTime), 5'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kVirtualBytes), 20'971'520u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kPageFaultsPerSec), 42u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kWorkingSet), 1000u * 4096);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kWorkingSetPrivate), 800u * 4096);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kPrivateBytes), 600u * 4096);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kThreadCount), 4u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kIdProcess), 100u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kCreatingProcessId), 1u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kHandleCount), 3u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kIoReadOperationsPerSec), 10u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kIoWriteOperationsPerSec), 20u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kIoReadBytesPerSec), 4096u);
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kIoWriteBytesPerSec), 8192u);
  // Started 3000 ticks (30 s) after boot; the object's time is now, as a FILETIME.
  EXPECT_EQ(ValueOf(snapshot, 230, "web [srv]", ti::kElapsedTime), kBootFiletime + 300'000'000);
  EXPECT_EQ(process.perf_time(), snapshot.perf_time_100ns());

  // Unreadable io of the kernel thread reads as 0.
  EXPECT_EQ(ValueOf(snapshot, 230, "kworker_0:1", ti::kPercentPrivilegedTime), 700'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "kworker_0:1", ti::kIoReadBytesPerSec), 0u);
  EXPECT_EQ(ValueOf(snapshot, 230, "kworker_0:1", ti::kHandleCount), 0u);
  EXPECT_EQ(ValueOf(snapshot, 230, "kworker_0:1", ti::kCreatingProcessId), 2u);
  EXPECT_EQ(ValueOf(snapshot, 230, "kworker_0:1", ti::kElapsedTime), kBootFiletime + 5'000'000);

  // Idle is the processors' idle time (1050 + 900 ticks), in kernel mode, a thread per CPU.
  EXPECT_EQ(ValueOf(snapshot, 230, "Idle", ti::kPercentProcessorTime), 195'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "Idle", ti::kPercentPrivilegedTime), 195'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "Idle", ti::kThreadCount), 2u);
  EXPECT_EQ(ValueOf(snapshot, 230, "Idle", ti::kIdProcess), 0u);
  EXPECT_EQ(ValueOf(snapshot, 230, "Idle", ti::kElapsedTime), kBootFiletime);

  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kPercentProcessorTime), 215'700'000u);
  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kThreadCount), 7u);
  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kHandleCount), 3u);
  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kIoWriteBytesPerSec), 8192u);
  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kWorkingSet), 1000u * 4096);
  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kIdProcess), 0u);
  EXPECT_EQ(ValueOf(snapshot, 230, "_Total", ti::kElapsedTime), kBootFiletime);
}

TEST_F(FakeTreeTest, ThreadsNameTheirProcessAsParent) {
  for (std::string_view query : {"232", "Costly", "costly 232"}) {
    SCOPED_TRACE(query);
    TakenSnapshot taken(*source_, query);
    const SnapshotReader& snapshot = taken.reader();
    ASSERT_THAT(ObjectIndexes(snapshot), ElementsAre(230, 232));
    ObjectView thread = *snapshot.FindObject(ti::kThread);
    EXPECT_THAT(InstanceNames(thread), ElementsAre("0", "1", "0"));
    std::vector<std::pair<uint32_t, uint32_t>> parents;
    for (InstanceView instance : thread.instances()) {
      parents.emplace_back(instance.parent_object_index(), instance.parent_instance());
    }
    // Process instances: Idle 0, web 1, kworker 2.
    EXPECT_THAT(parents,
                ElementsAre(std::pair(230u, 1u), std::pair(230u, 1u), std::pair(230u, 2u)));
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 101, ti::kPercentUserTime),
              5'000'000u);
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 101, ti::kPercentProcessorTime),
              6'000'000u);
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 101, ti::kIdProcess), 100u);
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 100, ti::kContextSwitchesPerSec),
              15u);
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 101, ti::kContextSwitchesPerSec),
              6u);
    // Started 3100 ticks after boot.
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 101, ti::kElapsedTime),
              kBootFiletime + 310'000'000);
    // Windows thread states: R is 2 (running), S and I are 5 (waiting).
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 101, ti::kThreadState), 2u);
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 100, ti::kThreadState), 5u);
    EXPECT_EQ(testing::ValueWhere(snapshot, 232, ti::kIdThread, 200, ti::kThreadState), 5u);
  }
}

TEST_F(FakeTreeTest, PhysicalDiskTakesWholeDevicesOnly) {
  TakenSnapshot taken(*source_, "234");
  const SnapshotReader& snapshot = taken.reader();
  ObjectView disk = *snapshot.FindObject(ti::kPhysicalDisk);
  EXPECT_THAT(InstanceNames(disk), ElementsAre("sda", "_Total"));
  uint64_t now = static_cast<uint64_t>(snapshot.perf_time());
  for (const char* name : {"sda", "_Total"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kCurrentDiskQueueLength), 2u);
    // Read 5000 ms, write 3000 ms: summed request time in 100 ns.
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kPercentDiskTime), 80'000'000u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kPercentDiskTime, 1), now);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskQueueLength), 80'000'000u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kPercentDiskReadTime), 50'000'000u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskWriteQueueLength), 30'000'000u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskSecPerTransfer), 80'000'000u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskSecPerTransfer, 1), 1500u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskSecPerRead, 1), 1000u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kDiskWritesPerSec), 500u);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kDiskBytesPerSec), 28'000u * 512);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kDiskReadBytesPerSec), 20'000u * 512);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskBytesPerWrite), 8'000u * 512);
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kAvgDiskBytesPerWrite, 1), 500u);
    // Busy 6000 ms since boot: idle is the rest of the monotonic time.
    EXPECT_EQ(ValueOf(snapshot, 234, name, ti::kPercentDiskIdleTime), now - 60'000'000);
  }
}

TEST_F(FakeTreeTest, LogicalDiskIsEachMountedDeviceOnce) {
  TakenSnapshot taken(*source_, "236");
  const SnapshotReader& snapshot = taken.reader();
  ObjectView disk = *snapshot.FindObject(ti::kLogicalDisk);
  EXPECT_THAT(InstanceNames(disk), ElementsAre("sda1", "_Total"));
  struct statvfs space {};
  ASSERT_EQ(statvfs(tree_.Path("mnt/data").c_str(), &space), 0);
  uint64_t size_mb = static_cast<uint64_t>(space.f_blocks) * space.f_frsize >> 20;
  uint64_t free_mb = static_cast<uint64_t>(space.f_bavail) * space.f_frsize >> 20;
  // Free space moves while tests run next to each other: allow 64 MB.
  EXPECT_NEAR(static_cast<double>(*ValueOf(snapshot, 236, "sda1", ti::kFreeMegabytes)),
              static_cast<double>(free_mb), 64);
  EXPECT_EQ(ValueOf(snapshot, 236, "sda1", ti::kPercentFreeSpace, 1), size_mb);
  EXPECT_EQ(ValueOf(snapshot, 236, "_Total", ti::kPercentFreeSpace, 1), size_mb);
  EXPECT_EQ(ValueOf(snapshot, 236, "sda1", ti::kPercentDiskReadTime), 45'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 236, "sda1", ti::kDiskWritesPerSec), 400u);
  EXPECT_EQ(ValueOf(snapshot, 236, "_Total", ti::kDiskReadsPerSec), 900u);
}

TEST_F(FakeTreeTest, NetworkInterfaces) {
  TakenSnapshot taken(*source_, "510");
  const SnapshotReader& snapshot = taken.reader();
  EXPECT_THAT(InstanceNames(*snapshot.FindObject(ti::kNetworkInterface)),
              ElementsAre("lo", "eth0"));
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kBytesTotalPerSec), 18'929'641u + 29'522u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsPerSec), 470u + 356u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsReceivedPerSec), 470u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsSentPerSec), 356u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kCurrentBandwidth), 1'000'000'000u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kBytesReceivedPerSec), 18'929'641u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsReceivedUnicastPerSec), 463u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsReceivedNonUnicastPerSec), 7u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsReceivedDiscarded), 2u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsReceivedErrors), 1u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kBytesSentPerSec), 29'522u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsOutboundDiscarded), 4u);
  EXPECT_EQ(ValueOf(snapshot, 510, "eth0", ti::kPacketsOutboundErrors), 3u);
  EXPECT_EQ(ValueOf(snapshot, 510, "lo", ti::kCurrentBandwidth), 0u);  // no speed file
}

TEST_F(FakeTreeTest, QueriesSelectObjects) {
  EXPECT_THAT(ObjectIndexes(TakenSnapshot(*source_, "238 2").reader()), ElementsAre(2, 238));
  EXPECT_THAT(ObjectIndexes(TakenSnapshot(*source_, "").reader()),
              ElementsAre(2, 4, 230, 234, 236, 238, 510));
  EXPECT_THAT(ObjectIndexes(TakenSnapshot(*source_, "global costly").reader()),
              ElementsAre(2, 4, 230, 232, 234, 236, 238, 510));
  // Objects this host does not have are ignored, as Windows ignores them.
  EXPECT_THAT(ObjectIndexes(TakenSnapshot(*source_, "9999 1450").reader()), IsEmpty());
  Result<std::vector<uint8_t>> bad = source_->TakeSnapshot("230 Foreign");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error(), HasSubstr("'Foreign' is not Global, Costly or an object index"));
}

TEST_F(FakeTreeTest, UnreadableAndMalformedFilesLeaveTheirObjectsOut) {
  tree_.Remove("proc/meminfo");
  tree_.MakeDir("proc/meminfo");  // reading fails
  tree_.Write("proc/net/dev", "h1\nh2\n eth0 1 2\n");
  tree_.Write("proc/100/stat", "100 (web) S 1 garbage\n");  // skipped like a vanished process
  TakenSnapshot taken(*source_, "Global");
  EXPECT_THAT(ObjectIndexes(taken.reader()), ElementsAre(2, 230, 234, 236, 238));
  EXPECT_THAT(InstanceNames(*taken.reader().FindObject(ti::kProcess)),
              ElementsAre("Idle", "kworker_0:1", "_Total"));
  EXPECT_THAT(source_->TakeWarnings(),
              ElementsAre(AllOf(HasSubstr("Memory left out"), HasSubstr("proc/meminfo")),
                          AllOf(HasSubstr("Network Interface left out"),
                                HasSubstr("proc/net/dev: line 3"))));
}

TEST_F(FakeTreeTest, MalformedStatLeavesOutItsThreeObjects) {
  tree_.Write("proc/stat", "cpu0 1 2 x\n");
  TakenSnapshot taken(*source_, "Global");
  EXPECT_THAT(ObjectIndexes(taken.reader()), ElementsAre(4, 234, 236, 510));
  EXPECT_THAT(source_->TakeWarnings(),
              ElementsAre(AllOf(HasSubstr("System, Processor and Process left out"),
                                HasSubstr("proc/stat: line 1: 'x' is not a number"))));
}

// Starts count from btime: without it, no start would be right, so the objects /proc/stat
// feeds are left out, saying why, rather than written with starts guessed from the clocks.
TEST_F(FakeTreeTest, StatWithoutBootTimeLeavesOutItsThreeObjects) {
  tree_.Write("proc/stat", "cpu0 1 2 3 4\nctxt 5000\n");
  TakenSnapshot taken(*source_, "Global");
  EXPECT_THAT(ObjectIndexes(taken.reader()), ElementsAre(4, 234, 236, 510));
  EXPECT_THAT(source_->TakeWarnings(),
              ElementsAre(AllOf(HasSubstr("System, Processor and Process left out"),
                                HasSubstr("proc/stat: no btime"))));
}

TEST_F(FakeTreeTest, WarningsAreHandedOutOnceAndGatherUntilTaken) {
  tree_.Write("proc/meminfo", "MemTotal: lots\n");
  TakenSnapshot first(*source_, "Global");
  TakenSnapshot second(*source_, "Global");
  EXPECT_THAT(source_->TakeWarnings(),
              ElementsAre(HasSubstr("Memory left out"), HasSubstr("Memory left out")));
  EXPECT_THAT(source_->TakeWarnings(), IsEmpty());
}

TEST_F(FakeTreeTest, IdentityIsTheUtsHostNameAndKernelRelease) {
  tree_.Write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  Result<HostIdentity> identity = source_->Identity();
  ASSERT_TRUE(identity.ok()) << identity.error();
  EXPECT_EQ(identity->name, "fakehost");
  EXPECT_EQ(identity->os, "Linux");
  EXPECT_EQ(identity->os_version, "6.1.0-18-amd64");
}

TEST_F(FakeTreeTest, TitlesAreHandedOnOnceSinceTheyNeverChange) {
  Result<std::optional<std::vector<TitleBytes>>> first = source_->ReadTitlesIfChanged();
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ(**first, source_->ReadTitles().value());
  Result<std::optional<std::vector<TitleBytes>>> again = source_->ReadTitlesIfChanged();
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->has_value());
}

TEST(ProcfsSourceTest, AContainerWithOnlyStatGivesWhatItCan) {
  FakeTree tree;
  tree.Write("proc/stat", "cpu0 1 2 3 4\nbtime 1700000000\n");
  std::unique_ptr<ProcfsSource> source = SourceFor(tree);
  ASSERT_NE(source, nullptr);
  TakenSnapshot taken(*source, "Global");
  EXPECT_THAT(ObjectIndexes(taken.reader()), ElementsAre(2, 230, 238));
  EXPECT_EQ(ValueOf(taken.reader(), 2, "", ti::kThreads), 0u);
  EXPECT_EQ(ValueOf(taken.reader(), 238, "0", ti::kInterruptsPerSec), 0u);
  EXPECT_THAT(InstanceNames(*taken.reader().FindObject(ti::kProcess)),
              ElementsAre("Idle", "_Total"));
  EXPECT_THAT(
      source->TakeWarnings(),
      ElementsAre(HasSubstr("Processor\\Interrupts/sec is 0"), HasSubstr("System\\Threads is 0"),
                  HasSubstr("Memory left out"), HasSubstr("PhysicalDisk and LogicalDisk left out"),
                  HasSubstr("Network Interface left out")));
}

TEST(ProcfsSourceTest, AnEmptyTreeIsAnErrorThatSaysWhy) {
  FakeTree tree;
  tree.MakeDir("proc");
  std::unique_ptr<ProcfsSource> source = SourceFor(tree);
  ASSERT_NE(source, nullptr);
  Result<std::vector<uint8_t>> snapshot = source->TakeSnapshot("Global");
  ASSERT_FALSE(snapshot.ok());
  EXPECT_THAT(snapshot.error(),
              AllOf(HasSubstr("no object could be read"), HasSubstr("proc/stat: No such file")));
}

TEST(ProcfsSourceTest, AMissingProcRootIsAnError) {
  Result<std::unique_ptr<ProcfsSource>> source =
      ProcfsSource::Create({.proc_root = "/nonexistent/proc"});
  ASSERT_FALSE(source.ok());
  EXPECT_THAT(source.error(), HasSubstr("/nonexistent/proc"));
}

}  // namespace
}  // namespace perfhive
