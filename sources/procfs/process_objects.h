// The Process (230) and Thread (232) objects, from /proc/<pid> and /proc/<pid>/task/<tid>,
// with the counters and counter types Windows gives them. Processes that end while they are
// read are left out; files a process does not let the agent read (io, fd of another user's
// process without privileges) give 0.

#ifndef PERFHIVE_SOURCES_PROCFS_PROCESS_OBJECTS_H_
#define PERFHIVE_SOURCES_PROCFS_PROCESS_OBJECTS_H_

#include <cstdint>
#include <span>

#include "perfdata/snapshot_builder.h"
#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/procfs_context.h"

namespace perfhive {

// Process: one instance per pid, named by its command, then as on Windows "Idle" (the
// processors' idle time, from `stat`) first and "_Total" (the sum of all) last. With
// `with_threads`, also Thread: one instance per thread, named by its position in its process,
// whose parent is the process's instance.
void AddProcessObjects(ProcfsContext& context, const KernelStat& stat,
                       std::span<const int32_t> pids, bool with_threads, SnapshotBuilder& snapshot);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROCESS_OBJECTS_H_
