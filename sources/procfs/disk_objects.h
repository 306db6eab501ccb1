// The PhysicalDisk (234) and LogicalDisk (236) objects from /proc/diskstats, with the counter
// types a real Windows PhysicalDisk has (precision timers for the % counters, 100 ns queue
// lengths, average timers).

#ifndef PERFHIVE_SOURCES_PROCFS_DISK_OBJECTS_H_
#define PERFHIVE_SOURCES_PROCFS_DISK_OBJECTS_H_

#include <span>

#include "base/status.h"
#include "perfdata/snapshot_builder.h"
#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/procfs_context.h"

namespace perfhive {

// PhysicalDisk: the whole disks among `disks` that are devices (/sys/block/<name>/device
// exists; loop, ram, zram, device-mapper and md are not), then _Total.
void AddPhysicalDiskObject(ProcfsContext& context, std::span<const DiskStats> disks,
                           SnapshotBuilder& snapshot);

// LogicalDisk: each block device that holds a mounted file system (from self/mountinfo),
// named by device as Windows names volumes ("sda1", "dm-0"), with free space from statvfs() of
// its first mount point, then _Total. Nothing is added when mountinfo cannot be read.
Status AddLogicalDiskObject(ProcfsContext& context, std::span<const DiskStats> disks,
                            SnapshotBuilder& snapshot);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_DISK_OBJECTS_H_
