// The objects that describe the whole host: System (2), Memory (4) and Processor (238), with
// the counters and counter types Windows gives them.

#ifndef PERFHIVE_SOURCES_PROCFS_HOST_OBJECTS_H_
#define PERFHIVE_SOURCES_PROCFS_HOST_OBJECTS_H_

#include <cstdint>
#include <span>

#include "base/status.h"
#include "perfdata/snapshot_builder.h"
#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/procfs_context.h"

namespace perfhive {

// System from /proc/stat, /proc/loadavg and the number of processes the caller counted.
void AddSystemObject(ProcfsContext& context, const KernelStat& stat, uint64_t processes,
                     SnapshotBuilder& snapshot);

// Memory from /proc/meminfo, /proc/vmstat and /proc/sys/vm/overcommit_memory; nothing is
// added when the first two cannot be read.
Status AddMemoryObject(ProcfsContext& context, SnapshotBuilder& snapshot);

// Processor, one instance per CPU line of /proc/stat and _Total, with the interrupt counts of
// /proc/interrupts by CPU (0 for CPUs the span does not reach).
void AddProcessorObject(ProcfsContext& context, const KernelStat& stat,
                        std::span<const uint64_t> interrupts, SnapshotBuilder& snapshot);

// The idle time of all processors (idle and iowait), in 100 ns: what Windows shows as the Idle
// process.
uint64_t TotalIdleTime(const ProcfsContext& context, const KernelStat& stat);

// When the host booted, as a FILETIME: /proc/stat's btime exactly. It is whole seconds that the
// kernel keeps fixed (unless the wall clock is stepped), where the wall clock less the time
// since boot would jitter, so System Up Time and every start counted from it (a process's,
// part of its identity over time) are the same in every snapshot of every run.
uint64_t BootFiletime(const KernelStat& stat);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_HOST_OBJECTS_H_
