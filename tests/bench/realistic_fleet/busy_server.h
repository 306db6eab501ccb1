// The busy-server shape (issue 38): the Global snapshot of a busy Windows server is hundreds of
// KB, where the real machines of the fixtures are 3 to 38 KB object-index queries. A busy server
// is kinex01 (the real machine with the largest Process object, 66 instances) with:
//
//   - its Process object grown to a few hundred processes, each a copy of one of kinex01's real
//     processes (not of those Windows runs once: Idle, System, smss, csrss, winlogon, services,
//     lsass): its counter definitions, values and motions, scaled as a whole by a log-normal
//     factor of its own (sizes, accumulated counts and times, and the rates they move at), under
//     the real program's name (Windows names a process by its image; PDH tells copies apart as
//     svchost#12), a PID of its own, and a start time of its own (near boot for a copy of a
//     service started at boot, else at any time since its original started);
//   - the processes' Thread Counts scaled so that they sum to a few thousand threads, and a
//     Thread object of that many (thread_table.h), which no real machine here has;
//   - System's Processes and Threads following, its context switches rising with the threads;
//   - the copies' CPU kept within 90% of the machine's processors, and the Idle process and
//     Processor following the processes' total.
//
// The rest of kinex01 (disks, network, memory, its title database, which names every Thread
// counter) is kept as it is.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_BUSY_SERVER_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_BUSY_SERVER_H_

#include <cstdint>

#include "base/status.h"
#include "tests/bench/realistic_fleet/machine_layout.h"

namespace perfhive::fleet {

// The real machine a busy server is made from.
inline constexpr char kBusyServerBase[] = "kinex01";

struct BusyServerShape {
  int processes = 350;  // running processes; the Process object has one instance more, _Total
  int threads = 3500;   // their threads; the Thread object has one instance more, _Total
};

// The limits a shape must keep: at least the base's processes, and process and thread IDs
// within Windows' ID table as the generator draws from it (thread_table.h, kIdSlots), with
// room left for processes that start later.
inline constexpr int kMostBusyProcesses = 2'000;
inline constexpr int kMostBusyThreads = 12'000;

// The busy server made from `base` (kinex01's layout), named "busy-" + base's name. The same
// seed makes the same layout. Fails when `base` has no Process object with ID Process and Thread
// Count counters, or the shape is out of range.
Result<MachineLayout> MakeBusyServerLayout(const MachineLayout& base, const BusyServerShape& shape,
                                           uint64_t seed);

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_BUSY_SERVER_H_
