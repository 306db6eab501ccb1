// ThreadTable: the Thread object of a generated busy server (busy_server.h). No real machine of
// the fixtures has a Thread object, so its definitions are Windows' own (ThreadCounterSpecs) and
// its values are modelled from the processes they belong to:
//
//   - each process has as many threads as its Thread Count says, named by their number within
//     the process ("0", "1", ...) with the process as parent, as Windows names them (PDH reads
//     "svchost/3"), and a "_Total" thread, the sum of the others, last;
//   - threads share their process's CPU time: every step, the process's new user and privileged
//     time is dealt out to its threads in whole clock ticks by weights of their own (log-normal,
//     so that a few threads do most of the work, as in a real thread pool), so that the threads'
//     times add up to the process's;
//   - the system's new context switches are dealt out to the threads that woke in the step (each
//     wakes at a rate of its own, from once an hour to ten times a second, so that at 10 s most
//     sleep through), half by how often each wakes and half by the CPU time it got;
//   - a thread that switched takes a new state (Running, Ready or Wait), wait reason and dynamic
//     priority; one that did not keeps them, as a sleeping thread does;
//   - thread IDs come from the host's pool of process IDs, as Windows draws both from one table;
//   - user-mode threads start at the two system routines Windows starts every thread in (the
//     same in every process of a host), kernel threads at a few kernel routines.
//
// Threads come and go with their processes only: a running process keeps its threads.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_THREAD_TABLE_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_THREAD_TABLE_H_

#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "tests/bench/realistic_fleet/fleet_random.h"

namespace perfhive::fleet {

// The Thread object's counters by position, in the order Windows' process provider defines them.
enum ThreadCounter : uint32_t {
  kThreadProcessorTime,
  kThreadUserTime,
  kThreadPrivilegedTime,
  kThreadContextSwitches,
  kThreadElapsedTime,
  kThreadPriorityCurrent,
  kThreadPriorityBase,
  kThreadStartAddress,
  kThreadState,
  kThreadWaitReason,
  kThreadIdProcess,
  kThreadIdThread,
  kThreadCounterCount,
};

// The Thread object's explain text, and the title indexes of its counters that
// well_known_indexes.h does not name, as every title database of the fixtures numbers them
// (busy_server_test.cc checks the names).
inline constexpr uint32_t kThreadObjectHelp = 233;
inline constexpr uint32_t kPriorityCurrentIndex = 694;
inline constexpr uint32_t kPriorityBaseIndex = 682;  // Process has it too
inline constexpr uint32_t kStartAddressIndex = 706;
inline constexpr uint32_t kThreadWaitReasonIndex = 336;

// Thread State values, as the counter's explain text (index 47) numbers them.
inline constexpr uint32_t kThreadRunning = 2;
inline constexpr uint32_t kThreadReady = 1;
inline constexpr uint32_t kThreadWaiting = 5;

// The Thread object's (index 232, explain 233) counter definitions as a 64-bit Windows writes
// them: names, explain indexes, types, sizes, scales and detail levels (ThreadCounter order).
std::vector<CounterSpec> ThreadCounterSpecs();

// Windows draws process and thread IDs from one table: multiples of 4, a freed one reused. Draws
// one of kIdSlots that is not in `ids` and adds it there.
inline constexpr uint64_t kIdSlots = 16'382;
uint64_t DrawFreeId(FleetRandom& random, std::unordered_set<uint64_t>& ids);

// What a process's threads are made from when the process is added.
struct ProcessThreadsStart {
  uint64_t pid = 0;
  uint32_t threads = 0;
  uint32_t priority_base = 0;
  int64_t created = 0;  // the process's start time, in the Thread object's clock (100 ns)
  // What the process has run so far: its threads have run it (those that exited, the rest).
  uint64_t user_time = 0, privileged_time = 0;
  uint64_t tick = 1;  // the process's timers move in multiples of this (100 ns)
};

// One process's CPU time in the step that just ended.
struct ProcessStep {
  uint64_t pid = 0;
  uint64_t user_time = 0, privileged_time = 0;  // 100 ns
  uint64_t tick = 1;                            // they are multiples of it
};

class ThreadTable {
 public:
  // Adds the threads of a process, created between its start and `now` (the Thread object's
  // clock). `switches_per_second` is a thread's average context-switch rate, which the counts
  // they have accumulated since their creation follow. Thread IDs are drawn from `ids`, which
  // holds the host's process and thread IDs.
  void AddProcess(const ProcessThreadsStart& process, int64_t now, double switches_per_second,
                  FleetRandom& random, std::unordered_set<uint64_t>& ids);
  // Removes an exited process's threads and frees their IDs.
  void RemoveProcess(uint64_t pid, std::unordered_set<uint64_t>& ids);

  // One step: each process's new CPU time to its threads, `context_switches` new switches to all
  // threads; `advance` is how far the clock moved (no thread runs longer).
  void Advance(std::span<const ProcessStep> steps, uint64_t context_switches, int64_t advance,
               FleetRandom& random);

  // Appends the threads to `out` (its counters as ThreadCounterSpecs), process by process in
  // the order they were added, then _Total. `positions` gives each process's position in the
  // Process object (the threads' parent), `total_position` that of its _Total; `clock` is the
  // object's PerfTime, which _Total's Elapsed Time shows (so that it reads 0, as on Windows).
  void Write(ObjectBuilder& out, const std::unordered_map<uint64_t, uint32_t>& positions,
             uint32_t total_position, int64_t clock) const;

  size_t threads() const;

 private:
  struct Thread {
    uint64_t id = 0;
    uint32_t number = 0;  // within its process: its instance name
    int64_t created = 0;
    uint64_t user_time = 0, privileged_time = 0;
    uint32_t context_switches = 0;  // a DWORD, wrapping as Windows' does
    uint32_t priority_base = 0, priority_current = 0;
    uint64_t start_address = 0;
    uint32_t state = kThreadWaiting;
    uint32_t wait_reason = 0, usual_wait_reason = 0;
    double cpu_weight = 1;  // its share of the process's work
    double wake_rate = 1;   // how often it wakes, per second
    uint64_t ran = 0;       // CPU time in the last step
  };
  struct ProcessThreads {
    uint64_t pid = 0;
    std::vector<Thread> threads{};
  };

  void Reindex();

  std::vector<ProcessThreads> processes_;
  std::unordered_map<uint64_t, size_t> index_;  // pid → position in processes_
  // Where the host's user-mode threads start: a process's first thread, and the others
  // (0: not drawn yet).
  uint64_t user_starts_[2] = {0, 0};
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_THREAD_TABLE_H_
