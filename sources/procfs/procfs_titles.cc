#include "sources/procfs/procfs_titles.h"

#include <string>

#include "perfdata/well_known_indexes.h"

namespace perfhive {
namespace {

namespace ti = title_index;

constexpr ProcfsTitle kTitles[] = {
    {ti::kSystem, "System",
     "Counters that apply to the whole Linux host: processes, threads, context switches, "
     "uptime."},
    {ti::kMemory, "Memory",
     "Physical and virtual memory of the Linux host, from /proc/meminfo and /proc/vmstat."},
    {ti::kPercentProcessorTime, "% Processor Time",
     "Percentage of elapsed time spent running code. For a processor: 100 minus the time its "
     "idle task ran (idle and iowait in /proc/stat). For a process or thread: its user and "
     "system CPU time, which exceeds 100 when it runs on several processors at once."},
    {ti::kAvailableBytes, "Available Bytes",
     "Memory available for starting new work without swapping: MemAvailable in /proc/meminfo."},
    {ti::kCommittedBytes, "Committed Bytes",
     "Virtual memory committed by all processes: Committed_AS in /proc/meminfo."},
    {ti::kPageFaultsPerSec, "Page Faults/sec",
     "Page faults per second, minor and major (pgfault in /proc/vmstat; minflt and majflt of "
     "a process)."},
    {ti::kCommitLimit, "Commit Limit",
     "Memory that can be committed: physical memory plus swap, or CommitLimit from "
     "/proc/meminfo when strict overcommit (vm.overcommit_memory = 2) enforces it."},
    {ti::kPagesPerSec, "Pages/sec",
     "Pages read from or written to disk to resolve hard faults: Pages Input/sec plus Pages "
     "Output/sec."},
    {ti::kProcessorQueueLength, "Processor Queue Length",
     "Threads ready to run that have no processor: runnable threads (procs_running in "
     "/proc/stat) beyond the number of online processors."},
    {ti::kThreadState, "Thread State",
     "The thread's state as Windows numbers them: 2 running or runnable (R), 5 waiting "
     "(S, D, I, T, t), 4 terminated (Z, X), 7 any other."},
    {ti::kPagesOutputPerSec, "Pages Output/sec",
     "Pages written to swap per second (pswpout in /proc/vmstat)."},
    {ti::kPercentUserTime, "% User Time",
     "Percentage of elapsed time spent in user mode (user and nice in /proc/stat; utime of a "
     "process or thread)."},
    {ti::kPercentPrivilegedTime, "% Privileged Time",
     "Percentage of elapsed time spent in the kernel. For a processor it includes interrupts, "
     "softirqs and steal time, as Windows privileged time includes interrupts and DPCs; for a "
     "process or thread it is stime."},
    {ti::kContextSwitchesPerSec, "Context Switches/sec",
     "Context switches per second (ctxt in /proc/stat; voluntary and involuntary switches of a "
     "thread)."},
    {ti::kInterruptsPerSec, "Interrupts/sec",
     "Hardware and processor-local interrupts per second, from the CPU columns of "
     "/proc/interrupts."},
    {ti::kVirtualBytes, "Virtual Bytes", "Size of the process's address space (VmSize)."},
    {ti::kWorkingSet, "Working Set", "Resident memory of the process (VmRSS)."},
    {ti::kPrivateBytes, "Private Bytes",
     "Private writable memory of the process, what counts against the commit limit: data "
     "segments and stack (VmData plus VmStk)."},
    {ti::kCurrentDiskQueueLength, "Current Disk Queue Length",
     "Requests in flight at the moment of the sample (field 9 of /proc/diskstats)."},
    {ti::kPercentDiskTime, "% Disk Time",
     "Busy time of all reads and writes as a percentage of elapsed time: the sum of the "
     "requests' durations, so it exceeds 100 when several are in flight (as on Windows)."},
    {ti::kPercentDiskReadTime, "% Disk Read Time",
     "Sum of the durations of reads as a percentage of elapsed time."},
    {ti::kPercentDiskWriteTime, "% Disk Write Time",
     "Sum of the durations of writes as a percentage of elapsed time."},
    {ti::kAvgDiskSecPerTransfer, "Avg. Disk sec/Transfer",
     "Average time of one read or write, in seconds."},
    {ti::kAvgDiskSecPerRead, "Avg. Disk sec/Read", "Average time of one read, in seconds."},
    {ti::kAvgDiskSecPerWrite, "Avg. Disk sec/Write", "Average time of one write, in seconds."},
    {ti::kDiskTransfersPerSec, "Disk Transfers/sec", "Completed reads and writes per second."},
    {ti::kDiskReadsPerSec, "Disk Reads/sec", "Completed reads per second."},
    {ti::kDiskWritesPerSec, "Disk Writes/sec", "Completed writes per second."},
    {ti::kDiskBytesPerSec, "Disk Bytes/sec", "Bytes read and written per second."},
    {ti::kDiskReadBytesPerSec, "Disk Read Bytes/sec", "Bytes read per second."},
    {ti::kDiskWriteBytesPerSec, "Disk Write Bytes/sec", "Bytes written per second."},
    {ti::kAvgDiskBytesPerTransfer, "Avg. Disk Bytes/Transfer",
     "Average size of one read or write, in bytes."},
    {ti::kAvgDiskBytesPerRead, "Avg. Disk Bytes/Read", "Average size of one read, in bytes."},
    {ti::kAvgDiskBytesPerWrite, "Avg. Disk Bytes/Write", "Average size of one write, in bytes."},
    {ti::kProcess, "Process",
     "One instance per process, named by its command name (comm); Idle is the processors' "
     "idle time."},
    {ti::kThread, "Thread",
     "One instance per thread (/proc/<pid>/task), named by its position in its process."},
    {ti::kPhysicalDisk, "PhysicalDisk",
     "Whole disks backed by a device (/sys/block/<name>/device), from /proc/diskstats."},
    {ti::kLogicalDisk, "LogicalDisk",
     "Block devices holding mounted file systems, named by device; space from statvfs of the "
     "mount point, activity from /proc/diskstats."},
    {ti::kProcessor, "Processor", "One instance per online processor, from /proc/stat."},
    {ti::kProcesses, "Processes", "Processes on the host (entries of /proc)."},
    {ti::kThreads, "Threads",
     "Threads on the host, kernel threads included (the total of /proc/loadavg)."},
    {ti::kBytesReceivedPerSec, "Bytes Received/sec", "Bytes received per second."},
    {ti::kPacketsReceivedPerSec, "Packets Received/sec", "Packets received per second."},
    {ti::kBytesTotalPerSec, "Bytes Total/sec", "Bytes received and sent per second."},
    {ti::kPacketsPerSec, "Packets/sec", "Packets received and sent per second."},
    {ti::kPercentFreeSpace, "% Free Space",
     "Space available to unprivileged users (f_bavail) as a percentage of the file system's "
     "size, in megabytes."},
    {ti::kFreeMegabytes, "Free Megabytes",
     "Space available to unprivileged users (f_bavail), in megabytes."},
    {ti::kPacketsSentPerSec, "Packets Sent/sec", "Packets sent per second."},
    {ti::kBytesSentPerSec, "Bytes Sent/sec", "Bytes sent per second."},
    {ti::kNetworkInterface, "Network Interface",
     "One instance per interface of /proc/net/dev (the agent's network namespace)."},
    {ti::kCurrentBandwidth, "Current Bandwidth",
     "Link speed in bits per second (/sys/class/net/<name>/speed); 0 when the interface has "
     "none."},
    {ti::kPacketsReceivedUnicastPerSec, "Packets Received Unicast/sec",
     "Packets received per second that were not multicast."},
    {ti::kPacketsReceivedNonUnicastPerSec, "Packets Received Non-Unicast/sec",
     "Multicast packets received per second."},
    {ti::kPacketsReceivedDiscarded, "Packets Received Discarded",
     "Received packets dropped since the interface came up."},
    {ti::kPacketsReceivedErrors, "Packets Received Errors",
     "Received packets with errors since the interface came up."},
    {ti::kPacketsOutboundDiscarded, "Packets Outbound Discarded",
     "Outbound packets dropped since the interface came up."},
    {ti::kPacketsOutboundErrors, "Packets Outbound Errors",
     "Outbound packets that failed since the interface came up."},
    {ti::kSystemUpTime, "System Up Time", "Seconds since the host booted (/proc/stat btime)."},
    {ti::kThreadCount, "Thread Count", "Threads of the process."},
    {ti::kElapsedTime, "Elapsed Time", "Seconds since the process or thread started."},
    {ti::kPercentDpcTime, "% DPC Time",
     "Percentage of elapsed time spent in softirqs, Linux's deferred interrupt work."},
    {ti::kPercentInterruptTime, "% Interrupt Time",
     "Percentage of elapsed time spent handling hardware interrupts (irq in /proc/stat)."},
    {ti::kIdProcess, "ID Process", "The process id."},
    {ti::kIdThread, "ID Thread", "The thread id (tid)."},
    {ti::kCacheBytes, "Cache Bytes",
     "Page cache holding file data: Buffers plus Cached, less Shmem (tmpfs and shared memory, "
     "which Cached counts but are not file cache)."},
    {ti::kPagesInputPerSec, "Pages Input/sec",
     "Hard faults per second, pages read from disk or swap to resolve them (pgmajfault in "
     "/proc/vmstat)."},
    {ti::kHandleCount, "Handle Count", "Open file descriptors of the process."},
    {ti::kAvailableKBytes, "Available KBytes", "Available Bytes in kibibytes."},
    {ti::kAvailableMBytes, "Available MBytes", "Available Bytes in mebibytes."},
    {ti::kAvgDiskQueueLength, "Avg. Disk Queue Length",
     "Average number of reads and writes in flight over the interval."},
    {ti::kAvgDiskReadQueueLength, "Avg. Disk Read Queue Length",
     "Average number of reads in flight over the interval."},
    {ti::kAvgDiskWriteQueueLength, "Avg. Disk Write Queue Length",
     "Average number of writes in flight over the interval."},
    {ti::kPercentCommittedBytesInUse, "% Committed Bytes In Use",
     "Committed Bytes as a percentage of Commit Limit."},
    {ti::kCreatingProcessId, "Creating Process ID", "The parent process id (ppid)."},
    {ti::kIoReadOperationsPerSec, "IO Read Operations/sec",
     "Read system calls per second, files, pipes, sockets and devices alike (syscr in "
     "/proc/<pid>/io)."},
    {ti::kIoWriteOperationsPerSec, "IO Write Operations/sec",
     "Write system calls per second (syscw in /proc/<pid>/io)."},
    {ti::kIoReadBytesPerSec, "IO Read Bytes/sec",
     "Bytes read per second through read system calls, files, pipes, sockets and devices "
     "alike (rchar in /proc/<pid>/io)."},
    {ti::kIoWriteBytesPerSec, "IO Write Bytes/sec",
     "Bytes written per second through write system calls (wchar in /proc/<pid>/io)."},
    {ti::kWorkingSetPrivate, "Working Set - Private",
     "Resident memory not shared with other processes: resident less shared pages (statm)."},
    {ti::kPercentDiskIdleTime, "% Idle Time",
     "Percentage of elapsed time the disk had no request in flight."},
    {ti::kPercentProcessorIdleTime, "% Idle Time",
     "Percentage of elapsed time the processor was idle (idle and iowait in /proc/stat)."},
};

}  // namespace

std::span<const ProcfsTitle> ProcfsTitles() { return kTitles; }

TitleDatabase ProcfsTitleDatabase() {
  TitleDatabase database;
  for (const ProcfsTitle& title : kTitles) {
    database.AddName(title.index, std::string(title.name));
    database.AddHelp(title.index + 1, std::string(title.help));
  }
  return database;
}

}  // namespace perfhive
