// The procfs source on this machine's real /proc: values checked against what the test itself
// did (descriptors opened, memory mapped, bytes written and sent, a child started) and against
// the kernel's answers through other interfaces (sysinfo, sysconf, stat, sysfs). Deltas between
// two snapshots taken around the action keep other activity on the host out of the checks.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "perfdata/well_known_indexes.h"
#include "sources/procfs/procfs_source.h"
#include "sources/procfs/procfs_titles.h"
#include "tests/sources/procfs_test_util.h"

namespace perfhive {
namespace {

namespace ti = title_index;
using ::testing::Contains;
using testing::InstanceNames;
using ::testing::IsSupersetOf;
using testing::ObjectIndexes;
using testing::TakenSnapshot;
using testing::ValueOf;
using testing::ValueWhere;

class HostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
    ASSERT_TRUE(source.ok()) << source.error();
    source_ = std::move(source).value();
  }

  // A counter of this test's own process.
  uint64_t Own(uint32_t counter) {
    TakenSnapshot taken(*source_, "230");
    std::optional<uint64_t> value = ValueWhere(taken.reader(), ti::kProcess, ti::kIdProcess,
                                               static_cast<uint64_t>(getpid()), counter);
    EXPECT_TRUE(value.has_value()) << "no process with this test's pid";
    return value.value_or(0);
  }

  std::unique_ptr<ProcfsSource> source_;
};

// (The fake tree tests check PerfTime and PerfTime100nSec against the clocks.)
TEST_F(HostTest, GlobalHasEveryObjectTheUtcTimeAndTheHostName) {
  // clock_gettime, as the source reads it: glibc's time() is the coarse clock, which lags
  // CLOCK_REALTIME by up to a tick, so a snapshot taken just after a second turned was once
  // "later" than time() read after it (a CI failure, 61978 vs 61977).
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  time_t wall_before = now.tv_sec;
  TakenSnapshot taken(*source_, "Global");
  clock_gettime(CLOCK_REALTIME, &now);
  time_t wall_after = now.tv_sec;
  const SnapshotReader& snapshot = taken.reader();

  EXPECT_THAT(ObjectIndexes(snapshot), ::testing::ElementsAre(2, 4, 230, 234, 236, 238, 510));
  // SystemTime is UTC: compare with gmtime() of the seconds around the snapshot.
  SystemTime time = snapshot.system_time();
  tm before{}, after{};
  gmtime_r(&wall_before, &before);
  gmtime_r(&wall_after, &after);
  EXPECT_GE(time.year, before.tm_year + 1900);
  EXPECT_LE(time.year, after.tm_year + 1900);
  int seconds_of_day = time.hour * 3600 + time.minute * 60 + time.second;
  int before_of_day = before.tm_hour * 3600 + before.tm_min * 60 + before.tm_sec;
  int after_of_day = after.tm_hour * 3600 + after.tm_min * 60 + after.tm_sec;
  if (before_of_day <= after_of_day) {  // not across midnight
    EXPECT_GE(seconds_of_day, before_of_day);
    EXPECT_LE(seconds_of_day, after_of_day);
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(snapshot.system_name(), host);
}

TEST_F(HostTest, ProcessorHasEachOnlineCpuAndTotal) {
  TakenSnapshot taken(*source_, "238");
  std::vector<std::string> names = InstanceNames(*taken.reader().FindObject(ti::kProcessor));
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.size(), static_cast<size_t>(sysconf(_SC_NPROCESSORS_ONLN)) + 1);
  EXPECT_EQ(names.back(), "_Total");
}

TEST_F(HostTest, UpTimeAndMemoryAgreeWithSysinfo) {
  TakenSnapshot taken(*source_, "2 4");
  const SnapshotReader& snapshot = taken.reader();
  struct sysinfo info {};
  ASSERT_EQ(sysinfo(&info), 0);
  ObjectView system = *snapshot.FindObject(ti::kSystem);
  double uptime =
      static_cast<double>(system.perf_time() -
                          static_cast<int64_t>(*ValueOf(snapshot, 2, "", ti::kSystemUpTime))) /
      1e7;
  EXPECT_NEAR(uptime, static_cast<double>(info.uptime), 2.0);

  std::ifstream overcommit("/proc/sys/vm/overcommit_memory");
  int mode = 0;
  overcommit >> mode;
  if (mode != 2) {
    // meminfo prints kB, sysinfo bytes: they agree to within a kibibyte each.
    double ram_and_swap =
        static_cast<double>(info.totalram + info.totalswap) * static_cast<double>(info.mem_unit);
    EXPECT_NEAR(static_cast<double>(*ValueOf(snapshot, 4, "", ti::kCommitLimit)), ram_and_swap,
                2048);
  }
  EXPECT_LE(*ValueOf(snapshot, 4, "", ti::kAvailableBytes),
            static_cast<uint64_t>(info.totalram) * info.mem_unit);
}

TEST_F(HostTest, OwnProcessIdsAndThreads) {
  TakenSnapshot taken(*source_, "230");
  const SnapshotReader& snapshot = taken.reader();
  uint64_t pid = static_cast<uint64_t>(getpid());
  EXPECT_EQ(ValueWhere(snapshot, 230, ti::kIdProcess, pid, ti::kCreatingProcessId),
            static_cast<uint64_t>(getppid()));

  uint64_t threads_before = Own(ti::kThreadCount);
  std::latch done(1);
  std::thread thread([&] { done.wait(); });
  uint64_t threads_during = Own(ti::kThreadCount);
  done.count_down();
  thread.join();
  EXPECT_EQ(threads_during, threads_before + 1);
}

// A process's start is part of its identity across snapshots (query/instance_identity.h): every
// snapshot must write the same (procfs_start_times_test.cc: every reader too).
TEST_F(HostTest, OwnStartIsTheSameInEverySnapshot) {
  uint64_t first = Own(ti::kElapsedTime);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Own(ti::kElapsedTime), first) << "snapshot " << i;
}

TEST_F(HostTest, HandleCountFollowsOpenDescriptors) {
  // A child opens them: this process's own count moves with the source's cached files.
  int go[2], done[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(done), 0);
  pid_t child = testing::ForkBoundChild();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char byte;
    if (read(go[0], &byte, 1) == 1) {
      for (int i = 0; i < 10; ++i) dup(STDERR_FILENO);
      if (write(done[1], &byte, 1) == 1) pause();
    }
    _exit(0);
  }
  auto count = [&] {
    TakenSnapshot taken(*source_, "230");
    return ValueWhere(taken.reader(), ti::kProcess, ti::kIdProcess, static_cast<uint64_t>(child),
                      ti::kHandleCount);
  };
  std::optional<uint64_t> before = count();
  char byte = 'g';
  ASSERT_EQ(write(go[1], &byte, 1), 1);
  ASSERT_EQ(read(done[0], &byte, 1), 1);
  std::optional<uint64_t> after = count();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  for (int fd : {go[0], go[1], done[0], done[1]}) close(fd);
  ASSERT_TRUE(before.has_value() && after.has_value());
  EXPECT_EQ(*after, *before + 10);
}

TEST_F(HostTest, PrivateBytesAndWorkingSetFollowMappedMemory) {
  constexpr size_t kSize = 64 << 20;
  uint64_t private_before = Own(ti::kPrivateBytes);
  uint64_t resident_before = Own(ti::kWorkingSet);
  void* memory = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  // Private writable memory counts as soon as it is mapped; resident once touched.
  uint64_t private_mapped = Own(ti::kPrivateBytes);
  std::memset(memory, 1, kSize);
  uint64_t resident_touched = Own(ti::kWorkingSet);
  munmap(memory, kSize);
  // Allow 4 MiB of other allocations (gtest's output, the snapshot's own buffers).
  EXPECT_GE(private_mapped, private_before + kSize);
  EXPECT_LE(private_mapped, private_before + kSize + (4 << 20));
  EXPECT_GE(resident_touched, resident_before + kSize - (4 << 20));
}

TEST_F(HostTest, IoWriteBytesCountWrites) {
  std::string path = std::filesystem::temp_directory_path() / "perfhive-io-XXXXXX";
  int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  std::vector<char> block(64 << 10, 'x');
  uint64_t bytes_before = Own(ti::kIoWriteBytesPerSec);
  uint64_t writes_before = Own(ti::kIoWriteOperationsPerSec);
  for (int i = 0; i < 16; ++i) ASSERT_EQ(write(fd, block.data(), block.size()), 64 << 10);
  uint64_t bytes_after = Own(ti::kIoWriteBytesPerSec);
  uint64_t writes_after = Own(ti::kIoWriteOperationsPerSec);
  close(fd);
  unlink(path.c_str());
  // The test writes nothing else between the two snapshots.
  EXPECT_EQ(bytes_after - bytes_before, 1u << 20);
  EXPECT_EQ(writes_after - writes_before, 16u);
}

TEST_F(HostTest, ElapsedTimeOfAChild) {
  auto started = std::chrono::steady_clock::now();
  pid_t child = testing::ForkBoundChild();
  ASSERT_GE(child, 0);
  if (child == 0) {
    while (true) pause();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  TakenSnapshot taken(*source_, "230");
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const SnapshotReader& snapshot = taken.reader();
  std::optional<uint64_t> start =
      ValueWhere(snapshot, 230, ti::kIdProcess, static_cast<uint64_t>(child), ti::kElapsedTime);
  ASSERT_TRUE(start.has_value());
  double elapsed = static_cast<double>(snapshot.FindObject(ti::kProcess)->perf_time() -
                                       static_cast<int64_t>(*start)) /
                   1e7;
  // Start times are in clock ticks (10 ms at USER_HZ 100) after the boot time, which is whole
  // seconds (btime): up to a second early, so an elapsed time is up to a second long.
  EXPECT_GE(elapsed, 0.5 - 0.02);
  EXPECT_LE(elapsed, waited + 1 + 0.02);
}

TEST_F(HostTest, ThreadsPointAtTheirProcess) {
  TakenSnapshot taken(*source_, "Costly");
  const SnapshotReader& snapshot = taken.reader();
  ObjectView processes = *snapshot.FindObject(ti::kProcess);
  ObjectView threads = *snapshot.FindObject(ti::kThread);
  std::vector<uint64_t> process_ids;
  CounterDefinitionView process_id = *testing::FindCounter(processes, ti::kIdProcess);
  for (InstanceView instance : processes.instances()) {
    process_ids.push_back(*instance.counters().Value(process_id));
  }
  CounterDefinitionView thread_pid = *testing::FindCounter(threads, ti::kIdProcess);
  CounterDefinitionView thread_tid = *testing::FindCounter(threads, ti::kIdThread);
  std::set<uint64_t> tids;
  for (InstanceView instance : threads.instances()) {
    EXPECT_EQ(instance.parent_object_index(), ti::kProcess);
    ASSERT_LT(instance.parent_instance(), process_ids.size());
    EXPECT_EQ(process_ids[instance.parent_instance()], *instance.counters().Value(thread_pid));
    tids.insert(*instance.counters().Value(thread_tid));
  }
  EXPECT_THAT(tids, Contains(static_cast<uint64_t>(gettid())));
}

TEST_F(HostTest, EveryIndexHasATitle) {
  TitleDatabase titles = ProcfsTitleDatabase();
  TakenSnapshot taken(*source_, "Global Costly");
  for (ObjectView object : taken.reader().objects()) {
    EXPECT_TRUE(titles.Name(object.name_index()).has_value()) << object.name_index();
    for (CounterDefinitionView counter : object.counters()) {
      EXPECT_TRUE(titles.Name(counter.name_index()).has_value())
          << object.name_index() << "/" << counter.name_index();
    }
  }
}

TEST_F(HostTest, DisksAreTheDevicesSysfsLists) {
  std::vector<std::string> devices;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/block", error)) {
    if (std::filesystem::exists(entry.path() / "device")) {
      devices.push_back(entry.path().filename());
    }
  }
  std::sort(devices.begin(), devices.end());
  TakenSnapshot taken(*source_, "234 236");
  const SnapshotReader& snapshot = taken.reader();
  std::vector<std::string> physical = InstanceNames(*snapshot.FindObject(ti::kPhysicalDisk));
  ASSERT_FALSE(physical.empty());
  EXPECT_EQ(physical.back(), "_Total");
  physical.pop_back();
  std::sort(physical.begin(), physical.end());
  EXPECT_EQ(physical, devices);

  // The device holding / (when it is a block device) is a LogicalDisk, named as sysfs names it.
  struct stat root {};
  ASSERT_EQ(stat("/", &root), 0);
  std::ifstream uevent("/sys/dev/block/" + std::to_string(major(root.st_dev)) + ":" +
                       std::to_string(minor(root.st_dev)) + "/uevent");
  std::string line;
  while (std::getline(uevent, line)) {
    if (line.starts_with("DEVNAME=")) {
      EXPECT_THAT(InstanceNames(*snapshot.FindObject(ti::kLogicalDisk)), Contains(line.substr(8)));
    }
  }
}

TEST_F(HostTest, LoopbackCountsBytesSentThroughIt) {
  TakenSnapshot listed(*source_, "510");
  std::vector<std::string> links;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net")) {
    links.push_back(entry.path().filename());
  }
  std::vector<std::string> names =
      InstanceNames(*listed.reader().FindObject(ti::kNetworkInterface));
  EXPECT_THAT(names, ::testing::UnorderedElementsAreArray(links));
  if (std::find(names.begin(), names.end(), "lo") == names.end()) GTEST_SKIP() << "no lo";

  int receiver = socket(AF_INET, SOCK_DGRAM, 0);
  int sender = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(receiver, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  getsockname(receiver, reinterpret_cast<sockaddr*>(&address), &length);
  uint64_t received_before = *ValueOf(listed.reader(), 510, "lo", ti::kBytesReceivedPerSec);
  uint64_t sent_before = *ValueOf(listed.reader(), 510, "lo", ti::kBytesSentPerSec);
  std::vector<char> payload(1000, 'p');
  for (int i = 0; i < 100; ++i) {
    sendto(sender, payload.data(), payload.size(), 0, reinterpret_cast<sockaddr*>(&address),
           sizeof address);
  }
  TakenSnapshot after(*source_, "510");
  close(sender);
  close(receiver);
  // Each datagram carries 1000 bytes of payload and 28 of headers at least.
  EXPECT_GE(*ValueOf(after.reader(), 510, "lo", ti::kBytesReceivedPerSec) - received_before,
            100u * 1028);
  EXPECT_GE(*ValueOf(after.reader(), 510, "lo", ti::kBytesSentPerSec) - sent_before, 100u * 1028);
}

}  // namespace
}  // namespace perfhive
