// Values computed with the calculator from two snapshots of this machine, one second apart,
// against the kernel's own accounting read by the test through other interfaces: /proc/stat
// parsed here, a child's CPU clock, the bytes this test writes.
//
// Tolerances: the kernel accounts CPU time in ticks of 10 ms (USER_HZ 100), so each end of a
// one-second interval can be off by a tick per CPU, 1 percentage point each; the test's own
// readings are taken a few hundred microseconds before or after the snapshot's (< 0.1 point);
// the wall clock (PerfTime100nSec) and the monotonic clock differ by NTP's slew at most
// (< 0.05 %). Hence ±3 points for CPU percentages. Byte counts are exact.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "sources/procfs/procfs_source.h"
#include "tests/sources/procfs_test_util.h"

namespace perfhive {
namespace {

namespace ti = title_index;
using testing::InstanceNames;
using testing::Named;
using testing::TakenSnapshot;
using testing::ValueBetween;
using testing::Where;

constexpr auto kInterval = std::chrono::seconds(1);

// A child process that spins on one CPU until the object is destroyed (killed by its pid).
class BusyChild {
 public:
  BusyChild() : pid_(testing::ForkBoundChild()) {
    if (pid_ == 0) {
      volatile uint64_t spins = 0;
      while (true) spins = spins + 1;
    }
  }
  ~BusyChild() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  // The child's CPU time from its CPU clock, which the kernel keeps in nanoseconds.
  double CpuSeconds() const {
    clockid_t clock;
    timespec time{};
    if (clock_getcpuclockid(pid_, &clock) != 0 || clock_gettime(clock, &time) != 0) return 0;
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_nsec) / 1e9;
  }

 private:
  pid_t pid_;
};

// The first line of /proc/stat: every CPU's ticks since boot, and the idle ones among them.
struct CpuTicks {
  double total = 0, idle = 0;
};
CpuTicks ReadHostTicks() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  stat >> cpu;
  std::vector<double> fields;
  for (int i = 0; i < 8; ++i) {  // user nice system idle iowait irq softirq steal
    double ticks = 0;
    stat >> ticks;
    fields.push_back(ticks);
  }
  return {std::accumulate(fields.begin(), fields.end(), 0.0), fields[3] + fields[4]};
}

double Seconds(const SnapshotReader& older, const SnapshotReader& newer) {
  return static_cast<double>(newer.perf_time() - older.perf_time()) /
         static_cast<double>(newer.perf_freq());
}

class ValuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
    ASSERT_TRUE(source.ok()) << source.error();
    source_ = std::move(source).value();
  }

  std::unique_ptr<ProcfsSource> source_;
};

TEST_F(ValuesTest, ABusyChildShowsOneFullProcessor) {
  BusyChild child;
  ASSERT_GT(child.pid(), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  TakenSnapshot older(*source_, "230");
  double cpu_before = child.CpuSeconds();
  auto wall_before = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(kInterval);
  TakenSnapshot newer(*source_, "230");
  double cpu_after = child.CpuSeconds();
  auto wall_after = std::chrono::steady_clock::now();

  // The reference: the child's own CPU clock over the same interval. It is 100% of one CPU on
  // an idle host; a busy host (CTest runs tests side by side, one of them also spinning) gives
  // the child less, and the counter must say so too.
  double reference = 100 * (cpu_after - cpu_before) /
                     std::chrono::duration<double>(wall_after - wall_before).count();
  EXPECT_GE(reference, 25) << "the child hardly ran: is the host overloaded?";
  auto child_key = Where(ti::kIdProcess, static_cast<uint64_t>(child.pid()));
  CounterValue busy = ValueBetween(older.reader(), newer.reader(), ti::kProcess, child_key,
                                   ti::kPercentProcessorTime);
  ASSERT_EQ(busy.status, PdhStatus::kValidData);
  EXPECT_NEAR(busy.value, reference, 3.0);
  // A spinning loop runs in user mode.
  CounterValue user =
      ValueBetween(older.reader(), newer.reader(), ti::kProcess, child_key, ti::kPercentUserTime);
  EXPECT_NEAR(user.value, busy.value, 3.0);
}

TEST_F(ValuesTest, TotalProcessorTimeIsWhatProcStatSays) {
  BusyChild child;  // so that the host is measurably busy
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CpuTicks before = ReadHostTicks();
  TakenSnapshot older(*source_, "238");
  std::this_thread::sleep_for(kInterval);
  TakenSnapshot newer(*source_, "238");
  CpuTicks after = ReadHostTicks();

  double reference = 100 * (1 - (after.idle - before.idle) / (after.total - before.total));
  CounterValue total = ValueBetween(older.reader(), newer.reader(), ti::kProcessor, Named("_Total"),
                                    ti::kPercentProcessorTime);
  ASSERT_EQ(total.status, PdhStatus::kValidData);
  EXPECT_NEAR(total.value, reference, 3.0);
  double online = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GE(total.value, 100 / online - 3) << "one of " << online << " CPUs spins";

  // User and privileged time make up the busy time.
  double user = ValueBetween(older.reader(), newer.reader(), ti::kProcessor, Named("_Total"),
                             ti::kPercentUserTime)
                    .value;
  double privileged = ValueBetween(older.reader(), newer.reader(), ti::kProcessor, Named("_Total"),
                                   ti::kPercentPrivilegedTime)
                          .value;
  EXPECT_NEAR(user + privileged, total.value, 3.0);
}

TEST_F(ValuesTest, FsyncedWritesShowInProcessAndDiskCounters) {
  std::string directory = std::filesystem::temp_directory_path();
  std::string path = directory + "/perfhive-values-XXXXXX";
  int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  constexpr int kMegabytes = 8;
  std::vector<char> block(1 << 20, 'w');

  TakenSnapshot older(*source_, "230 234 236");
  for (int i = 0; i < kMegabytes; ++i) {
    ASSERT_EQ(write(fd, block.data(), block.size()), static_cast<ssize_t>(block.size()));
  }
  ASSERT_EQ(fsync(fd), 0);
  TakenSnapshot newer(*source_, "230 234 236");
  close(fd);
  unlink(path.c_str());
  double seconds = Seconds(older.reader(), newer.reader());
  constexpr double kBytes = kMegabytes << 20;

  // This process wrote exactly these bytes, in exactly these calls, between the snapshots.
  auto self = Where(ti::kIdProcess, static_cast<uint64_t>(getpid()));
  CounterValue io_bytes =
      ValueBetween(older.reader(), newer.reader(), ti::kProcess, self, ti::kIoWriteBytesPerSec);
  ASSERT_EQ(io_bytes.status, PdhStatus::kValidData);
  EXPECT_NEAR(io_bytes.value * seconds, kBytes, 1.0);
  EXPECT_NEAR(
      ValueBetween(older.reader(), newer.reader(), ti::kProcess, self, ti::kIoWriteOperationsPerSec)
              .value *
          seconds,
      kMegabytes, 1e-6);

  // fsync() put them on the disk holding the directory; others may have written too.
  struct stat where {};
  ASSERT_EQ(stat(directory.c_str(), &where), 0);
  std::ifstream uevent("/sys/dev/block/" + std::to_string(major(where.st_dev)) + ":" +
                       std::to_string(minor(where.st_dev)) + "/uevent");
  std::string line, device;
  while (std::getline(uevent, line)) {
    if (line.starts_with("DEVNAME=")) device = line.substr(8);
  }
  if (device.empty()) GTEST_SKIP() << directory << " is not on a block device";
  CounterValue physical = ValueBetween(older.reader(), newer.reader(), ti::kPhysicalDisk,
                                       Named("_Total"), ti::kDiskWriteBytesPerSec);
  ASSERT_EQ(physical.status, PdhStatus::kValidData);
  EXPECT_GE(physical.value * seconds, kBytes);
  CounterValue logical = ValueBetween(older.reader(), newer.reader(), ti::kLogicalDisk,
                                      Named(device), ti::kDiskWriteBytesPerSec);
  ASSERT_EQ(logical.status, PdhStatus::kValidData) << device;
  EXPECT_GE(logical.value * seconds, kBytes);
  CounterValue writes = ValueBetween(older.reader(), newer.reader(), ti::kLogicalDisk,
                                     Named(device), ti::kDiskWritesPerSec);
  EXPECT_GT(writes.value, 0);
  CounterValue latency = ValueBetween(older.reader(), newer.reader(), ti::kLogicalDisk,
                                      Named(device), ti::kAvgDiskSecPerWrite);
  ASSERT_EQ(latency.status, PdhStatus::kValidData);
  EXPECT_GT(latency.value, 0);
  EXPECT_LT(latency.value, seconds);
}

TEST_F(ValuesTest, SystemUpTimeIsSysinfosUptime) {
  TakenSnapshot snapshot(*source_, "2");
  struct sysinfo info {};
  ASSERT_EQ(sysinfo(&info), 0);
  CounterValue uptime =
      ValueBetween(snapshot.reader(), snapshot.reader(), ti::kSystem, Named(""), ti::kSystemUpTime);
  ASSERT_EQ(uptime.status, PdhStatus::kValidData);
  EXPECT_NEAR(uptime.value, static_cast<double>(info.uptime), 2.0);
}

// Every counter of every instance present in both snapshots has a value, and the values are
// within what they can be.
TEST_F(ValuesTest, EveryCounterOfAGlobalSnapshotHasASensibleValue) {
  TakenSnapshot older(*source_, "Global");
  std::this_thread::sleep_for(kInterval);
  TakenSnapshot newer(*source_, "Global");
  for (ObjectView object : newer.reader().objects()) {
    // Processes come and go and share names: match them by ID Process.
    bool by_id = object.name_index() == ti::kProcess;
    std::optional<CounterDefinitionView> id = testing::FindCounter(object, ti::kIdProcess);
    int counted = 0;
    for (InstanceView instance : object.instances()) {
      std::string name = InstanceName(object, instance);
      testing::InstanceKey key =
          by_id ? Where(ti::kIdProcess, *instance.counters().Value(*id)) : Named(name);
      if (by_id && name == "_Total") continue;  // its sum changes as processes end
      for (CounterDefinitionView counter : object.counters()) {
        if (IsBaseType(counter.type())) continue;
        CounterValue value = ValueBetween(older.reader(), newer.reader(), object.name_index(), key,
                                          counter.name_index());
        if (value.status == PdhStatus::kNoInstance) continue;  // a process that started
        SCOPED_TRACE(std::to_string(object.name_index()) + "(" + name + ")\\" +
                     std::to_string(counter.name_index()));
        ASSERT_EQ(value.status, PdhStatus::kValidData);
        EXPECT_GE(value.value, 0);
        // A processor's times are in ticks: a tick at each end can take it 2 points past 100.
        bool percent = (counter.type() & winperf::kDisplayMask) == winperf::kDisplayPercent;
        if (object.name_index() == ti::kProcessor && percent) {
          EXPECT_LE(value.value, 100 + 3.0);
        }
        if (counter.name_index() == ti::kPercentDiskIdleTime ||
            counter.name_index() == ti::kPercentFreeSpace ||
            counter.name_index() == ti::kPercentCommittedBytesInUse) {
          EXPECT_LE(value.value, 100 + 1e-6);
        }
        ++counted;
      }
    }
    EXPECT_GT(counted, 0) << "object " << object.name_index();
  }
}

}  // namespace
}  // namespace perfhive
