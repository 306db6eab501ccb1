// SampleClock: the host's clocks read once per snapshot, in the units Windows puts in a
// PERF_DATA_BLOCK. PerfTime is CLOCK_MONOTONIC in 100 ns units (PerfFreq 10 MHz, the
// frequency QueryPerformanceCounter has on current Windows), so one tick of PerfTime, one unit
// of the 100 ns timers and one unit of a FILETIME are the same length. PerfTime100nSec and
// SystemTime are the wall clock, as on Windows. Start times are not read from a clock: they
// count from the kernel's boot time (BootFiletime in host_objects.h), which does not move.
// docs/linux_source.md explains which counter uses which clock.

#ifndef PERFHIVE_SOURCES_PROCFS_SAMPLE_CLOCK_H_
#define PERFHIVE_SOURCES_PROCFS_SAMPLE_CLOCK_H_

#include <cstdint>
#include <ctime>

#include "perfdata/snapshot_reader.h"

namespace perfhive {

inline constexpr int64_t kSamplePerfFreq = 10'000'000;

// Seconds from 1601-01-01 (the FILETIME epoch) to 1970-01-01 (the Unix epoch).
inline constexpr int64_t kFiletimeUnixEpochSeconds = 11'644'473'600;

struct SampleClock {
  int64_t perf_time = 0;   // CLOCK_MONOTONIC, 100 ns units
  int64_t filetime = 0;    // CLOCK_REALTIME as a FILETIME (100 ns since 1601-01-01 UTC)
  SystemTime system_time;  // CLOCK_REALTIME, UTC

  static SampleClock Now();
};

// A time as a FILETIME.
int64_t FiletimeFromTimespec(const timespec& time);
SystemTime SystemTimeFromTimespec(const timespec& time);

// Kernel clock ticks (USER_HZ, sysconf(_SC_CLK_TCK)) in 100 ns units.
inline uint64_t TicksTo100ns(uint64_t ticks, uint64_t ticks_per_second) {
  return ticks / ticks_per_second * 10'000'000 +
         ticks % ticks_per_second * 10'000'000 / ticks_per_second;
}

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_SAMPLE_CLOCK_H_
