// Parsers for the text formats of the /proc files the Linux source reads. Each takes the whole
// file and returns its numbers in kernel units (USER_HZ ticks, pages, sectors, milliseconds):
// converting them to Windows units is the object writers' job. A malformed file gives an error
// naming the line and field; fields that older kernels do not print read as 0.

#ifndef PERFHIVE_SOURCES_PROCFS_PROC_PARSERS_H_
#define PERFHIVE_SOURCES_PROCFS_PROC_PARSERS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace perfhive {

// One "cpuN" line of /proc/stat, in USER_HZ ticks since boot.
struct CpuTicks {
  uint32_t cpu = 0;
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
};

// /proc/stat.
struct KernelStat {
  std::vector<CpuTicks> cpus;  // online CPUs, in file order
  uint64_t context_switches = 0;
  uint64_t procs_running = 0;  // running and runnable threads, the reader included
  // btime: when the host booted, in whole seconds since the Unix epoch. The kernel keeps it
  // fixed unless the wall clock is stepped, so it is the base of every start time.
  uint64_t boot_time = 0;
};
// Every kernel prints btime: a file without it is an error, as one without CPU lines is.
Result<KernelStat> ParseKernelStat(std::string_view text);

// /proc/interrupts summed per CPU column: element i is the interrupt count of CPU i (the
// header's "CPUi"), over every row that has a count for each CPU (ERR and MIS have one total).
Result<std::vector<uint64_t>> ParseInterrupts(std::string_view text);

// The number of threads (kernel scheduling entities) from /proc/loadavg's "running/total".
Result<uint64_t> ParseLoadavgThreads(std::string_view text);

// One line of /proc/diskstats. Times are the kernel's milliseconds (printed as 32-bit values,
// so they wrap after 2^32 ms); sectors are 512 bytes whatever the device's sector size.
struct DiskStats {
  uint32_t major = 0, minor = 0;
  std::string name;
  uint64_t reads = 0, read_sectors = 0, read_ms = 0;
  uint64_t writes = 0, write_sectors = 0, write_ms = 0;
  uint64_t in_flight = 0;
  uint64_t busy_ms = 0;  // time with at least one request in flight
};
Result<std::vector<DiskStats>> ParseDiskStats(std::string_view text);

// One line of /proc/<pid>/mountinfo.
struct MountEntry {
  uint32_t major = 0, minor = 0;  // st_dev of the mounted file system
  std::string mount_point;        // with the kernel's \ooo escapes undone
  std::string source;             // e.g. "/dev/vda1", "tmpfs"
};
Result<std::vector<MountEntry>> ParseMountInfo(std::string_view text);

// One interface of /proc/net/dev.
struct NetDevStats {
  std::string name;
  uint64_t rx_bytes = 0, rx_packets = 0, rx_errors = 0, rx_drops = 0, rx_multicast = 0;
  uint64_t tx_bytes = 0, tx_packets = 0, tx_errors = 0, tx_drops = 0;
};
Result<std::vector<NetDevStats>> ParseNetDev(std::string_view text);

// /proc/<pid>/stat, and /proc/<pid>/task/<tid>/stat for one thread.
struct ProcessStat {
  std::string name;  // comm: at most 15 bytes, may hold spaces and parentheses
  char state = '?';
  int32_t ppid = 0;
  bool kernel_thread = false;  // PF_KTHREAD in the flags: no memory map, no descriptors
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t user_ticks = 0, system_ticks = 0;
  uint64_t num_threads = 0;
  uint64_t start_ticks = 0;  // USER_HZ ticks after boot (CLOCK_BOOTTIME)
  uint64_t virtual_bytes = 0;
};
Result<ProcessStat> ParseProcessStat(std::string_view text);

// /proc/<pid>/statm, in pages.
struct ProcessPages {
  uint64_t size = 0, resident = 0, shared = 0, data = 0;  // data: data segments and stack
};
Result<ProcessPages> ParseStatm(std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROC_PARSERS_H_
