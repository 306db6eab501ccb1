#include "sources/procfs/disk_objects.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "perfdata/well_known_indexes.h"
#include "sources/procfs/counter_layout.h"
#include "sources/procfs/instance_name.h"

namespace perfhive {
namespace {

namespace ti = title_index;
namespace wp = winperf;

// Positions from the first disk counter of the object.
enum DiskCounter : uint32_t {
  kCurrentQueueLength,
  kDiskTime,
  kDiskTimeBase,
  kAvgQueueLength,
  kReadTime,
  kReadTimeBase,
  kAvgReadQueueLength,
  kWriteTime,
  kWriteTimeBase,
  kAvgWriteQueueLength,
  kSecPerTransfer,
  kSecPerTransferBase,
  kSecPerRead,
  kSecPerReadBase,
  kSecPerWrite,
  kSecPerWriteBase,
  kTransfers,
  kReads,
  kWrites,
  kBytes,
  kReadBytes,
  kWriteBytes,
  kBytesPerTransfer,
  kBytesPerTransferBase,
  kBytesPerRead,
  kBytesPerReadBase,
  kBytesPerWrite,
  kBytesPerWriteBase,
  kIdleTime,
  kIdleTimeBase,
  kNumDiskCounters
};
// The order and types of a Windows Server 2019 PhysicalDisk. The average timers are written
// 8 bytes wide (Windows writes 4, which wraps after 429 s of summed I/O time).
constexpr auto kDiskCounters = std::to_array<CounterLayout>({
    {ti::kCurrentDiskQueueLength, wp::kCounterRawcount},
    {ti::kPercentDiskTime, wp::kPrecision100NsTimer},
    {ti::kPercentDiskTime, wp::kPrecisionTimestamp},
    {ti::kAvgDiskQueueLength, wp::kCounter100NsQueueLen},
    {ti::kPercentDiskReadTime, wp::kPrecision100NsTimer},
    {ti::kPercentDiskReadTime, wp::kPrecisionTimestamp},
    {ti::kAvgDiskReadQueueLength, wp::kCounter100NsQueueLen},
    {ti::kPercentDiskWriteTime, wp::kPrecision100NsTimer},
    {ti::kPercentDiskWriteTime, wp::kPrecisionTimestamp},
    {ti::kAvgDiskWriteQueueLength, wp::kCounter100NsQueueLen},
    {ti::kAvgDiskSecPerTransfer, wp::kAverageTimer, 8},
    {ti::kAvgDiskSecPerTransfer, wp::kAverageBase},
    {ti::kAvgDiskSecPerRead, wp::kAverageTimer, 8},
    {ti::kAvgDiskSecPerRead, wp::kAverageBase},
    {ti::kAvgDiskSecPerWrite, wp::kAverageTimer, 8},
    {ti::kAvgDiskSecPerWrite, wp::kAverageBase},
    {ti::kDiskTransfersPerSec, wp::kCounterCounter},
    {ti::kDiskReadsPerSec, wp::kCounterCounter},
    {ti::kDiskWritesPerSec, wp::kCounterCounter},
    {ti::kDiskBytesPerSec, wp::kCounterBulkCount},
    {ti::kDiskReadBytesPerSec, wp::kCounterBulkCount},
    {ti::kDiskWriteBytesPerSec, wp::kCounterBulkCount},
    {ti::kAvgDiskBytesPerTransfer, wp::kAverageBulk},
    {ti::kAvgDiskBytesPerTransfer, wp::kAverageBase},
    {ti::kAvgDiskBytesPerRead, wp::kAverageBulk},
    {ti::kAvgDiskBytesPerRead, wp::kAverageBase},
    {ti::kAvgDiskBytesPerWrite, wp::kAverageBulk},
    {ti::kAvgDiskBytesPerWrite, wp::kAverageBase},
    {ti::kPercentDiskIdleTime, wp::kPrecision100NsTimer},
    {ti::kPercentDiskIdleTime, wp::kPrecisionTimestamp},
});
static_assert(kDiskCounters.size() == kNumDiskCounters);

enum SpaceCounter : uint32_t { kFreeSpace, kFreeSpaceBase, kFreeMegabytes, kNumSpaceCounters };
constexpr auto kSpaceCounters = std::to_array<CounterLayout>({
    {ti::kPercentFreeSpace, wp::kRawFraction},
    {ti::kPercentFreeSpace, wp::kRawBase},
    {ti::kFreeMegabytes, wp::kCounterRawcount},
});
static_assert(kSpaceCounters.size() == kNumSpaceCounters);

constexpr uint64_t kSectorBytes = 512;  // diskstats counts 512-byte sectors on every device
constexpr uint64_t k100nsPerMs = 10'000;

// A disk's activity in Windows units. Times are sums of request durations in 100 ns, which
// are also PerfFreq ticks (the average timers' unit).
struct DiskActivity {
  uint64_t in_flight = 0;
  uint64_t read_time = 0, write_time = 0;
  uint64_t reads = 0, writes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t idle_time = 0;

  void Add(const DiskActivity& other) {
    in_flight += other.in_flight;
    read_time += other.read_time;
    write_time += other.write_time;
    reads += other.reads;
    writes += other.writes;
    read_bytes += other.read_bytes;
    write_bytes += other.write_bytes;
    idle_time += other.idle_time;
  }
};

DiskActivity ActivityOf(const DiskStats& disk, int64_t now) {
  // Idle time is the time since boot without a request in flight; CLOCK_MONOTONIC, like the
  // jiffies the kernel counts busy time in, stops during suspend.
  uint64_t busy = disk.busy_ms * k100nsPerMs;
  uint64_t uptime = static_cast<uint64_t>(now);
  return DiskActivity{
      .in_flight = disk.in_flight,
      .read_time = disk.read_ms * k100nsPerMs,
      .write_time = disk.write_ms * k100nsPerMs,
      .reads = disk.reads,
      .writes = disk.writes,
      .read_bytes = disk.read_sectors * kSectorBytes,
      .write_bytes = disk.write_sectors * kSectorBytes,
      .idle_time = uptime - std::min(busy, uptime),
  };
}

// The precision timers' base is the time stamp of their value. It is PerfTime (monotonic,
// 100 ns) rather than Windows' FILETIME: the formula only needs a 100 ns clock, and this one
// ticks with the kernel's disk accounting and does not jump when the wall clock is set.
void SetDiskValues(ObjectBuilder& object, uint32_t instance, uint32_t first,
                   const DiskActivity& disk, int64_t now) {
  auto set = [&](DiskCounter counter, uint64_t value) {
    object.SetValue(instance, first + counter, value);
  };
  uint64_t time = disk.read_time + disk.write_time;
  uint64_t transfers = disk.reads + disk.writes;
  uint64_t bytes = disk.read_bytes + disk.write_bytes;
  uint64_t stamp = static_cast<uint64_t>(now);
  set(kCurrentQueueLength, disk.in_flight);
  set(kDiskTime, time);
  set(kDiskTimeBase, stamp);
  set(kAvgQueueLength, time);
  set(kReadTime, disk.read_time);
  set(kReadTimeBase, stamp);
  set(kAvgReadQueueLength, disk.read_time);
  set(kWriteTime, disk.write_time);
  set(kWriteTimeBase, stamp);
  set(kAvgWriteQueueLength, disk.write_time);
  set(kSecPerTransfer, time);
  set(kSecPerTransferBase, transfers);
  set(kSecPerRead, disk.read_time);
  set(kSecPerReadBase, disk.reads);
  set(kSecPerWrite, disk.write_time);
  set(kSecPerWriteBase, disk.writes);
  set(kTransfers, transfers);
  set(kReads, disk.reads);
  set(kWrites, disk.writes);
  set(kBytes, bytes);
  set(kReadBytes, disk.read_bytes);
  set(kWriteBytes, disk.write_bytes);
  set(kBytesPerTransfer, bytes);
  set(kBytesPerTransferBase, transfers);
  set(kBytesPerRead, disk.read_bytes);
  set(kBytesPerReadBase, disk.reads);
  set(kBytesPerWrite, disk.write_bytes);
  set(kBytesPerWriteBase, disk.writes);
  set(kIdleTime, disk.idle_time);
  set(kIdleTimeBase, stamp);
}

// _Total sums the disks, except % Idle Time, which is their average (a sum of idle times
// would pass 100%).
void SetTotalValues(ObjectBuilder& object, uint32_t first, DiskActivity total, uint64_t disks,
                    int64_t now) {
  total.idle_time /= std::max<uint64_t>(disks, 1);
  SetDiskValues(object, object.AddInstance("_Total"), first, total, now);
}

const DiskStats* FindDisk(std::span<const DiskStats> disks, const MountEntry& mount) {
  for (const DiskStats& disk : disks) {
    if (disk.major == mount.major && disk.minor == mount.minor) return &disk;
  }
  // File systems such as btrfs report an anonymous device number; their source names the
  // device.
  std::string_view base = mount.source;
  base.remove_prefix(base.rfind('/') + 1);
  for (const DiskStats& disk : disks) {
    if (disk.name == base) return &disk;
  }
  return nullptr;
}

}  // namespace

void AddPhysicalDiskObject(ProcfsContext& context, std::span<const DiskStats> disks,
                           SnapshotBuilder& snapshot) {
  int64_t now = context.clock.perf_time;
  ObjectBuilder& object = AddObjectWithCounters(snapshot, ti::kPhysicalDisk, now, kDiskCounters);
  if (!context.files.SysExists("block")) {
    context.warnings.push_back("PhysicalDisk has no disks: no block directory under the sys root");
  }
  DiskActivity total;
  uint64_t count = 0;
  std::string path;
  for (const DiskStats& disk : disks) {
    path = "block/" + disk.name + "/device";
    if (!context.files.SysExists(path.c_str())) continue;
    DiskActivity activity = ActivityOf(disk, now);
    SetDiskValues(object, object.AddInstance(PdhInstanceName(disk.name)), 0, activity, now);
    total.Add(activity);
    ++count;
  }
  SetTotalValues(object, 0, total, count, now);
}

Status AddLogicalDiskObject(ProcfsContext& context, std::span<const DiskStats> disks,
                            SnapshotBuilder& snapshot) {
  Result<std::vector<MountEntry>> mounts = context.ReadParsed("self/mountinfo", ParseMountInfo);
  if (!mounts.ok()) return mounts.status();
  int64_t now = context.clock.perf_time;
  ObjectBuilder& object = AddObjectWithCounters(snapshot, ti::kLogicalDisk, now, kSpaceCounters);
  uint32_t first = AddCounters(object, kDiskCounters);

  DiskActivity total;
  uint64_t count = 0, total_free_mb = 0, total_size_mb = 0;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const MountEntry& mount : *mounts) {
    // Block devices only: tmpfs, proc, overlay and the like have no disk.
    if (!mount.source.starts_with("/dev/")) continue;
    if (!seen.insert({mount.major, mount.minor}).second) continue;  // bind mounts, subvolumes
    const DiskStats* disk = FindDisk(disks, mount);
    std::string name = disk != nullptr ? disk->name : mount.source.substr(5);
    struct statvfs space {};
    uint64_t free_mb = 0, size_mb = 0;
    if (statvfs(mount.mount_point.c_str(), &space) == 0) {
      free_mb = static_cast<uint64_t>(space.f_bavail) * space.f_frsize >> 20;
      size_mb = static_cast<uint64_t>(space.f_blocks) * space.f_frsize >> 20;
    } else {
      context.warnings.push_back("LogicalDisk " + name + ": statvfs " + mount.mount_point + ": " +
                                 std::strerror(errno));
    }
    uint32_t instance = object.AddInstance(PdhInstanceName(name));
    object.SetValue(instance, kFreeSpace, free_mb);
    object.SetValue(instance, kFreeSpaceBase, size_mb);
    object.SetValue(instance, kFreeMegabytes, free_mb);
    DiskActivity activity = disk != nullptr ? ActivityOf(*disk, now) : DiskActivity{};
    SetDiskValues(object, instance, first, activity, now);
    total.Add(activity);
    total_free_mb += free_mb;
    total_size_mb += size_mb;
    ++count;
  }
  uint32_t instance = object.num_instances();
  SetTotalValues(object, first, total, count, now);
  object.SetValue(instance, kFreeSpace, total_free_mb);
  object.SetValue(instance, kFreeSpaceBase, total_size_mb);
  object.SetValue(instance, kFreeMegabytes, total_free_mb);
  return Status();
}

}  // namespace perfhive
