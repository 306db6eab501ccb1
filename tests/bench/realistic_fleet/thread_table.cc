#include "tests/bench/realistic_fleet/thread_table.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;
namespace wp = winperf;

constexpr uint64_t kSystemPid = 4;
constexpr int64_t k100NsPerSecond = 10'000'000;

// How unevenly a process's work falls on its threads (σ of the log of a thread's weight), and how
// much each thread's share varies from step to step.
constexpr double kCpuWeightSigma = 1.5;
constexpr double kStepSigma = 0.5;
// How often a thread wakes, spread evenly on a log scale from once an hour (a thread blocked on
// something rare) to ten times a second (a timer or a busy queue): at 10 s, about half the
// threads switch, the rest sleep through.
constexpr double kSlowestWakeRate = 1.0 / 3600;
constexpr double kFastestWakeRate = 10;
// The spread's mean: a thread's wake rate over it is its share of the average thread's switches.
double MeanWakeRate() {
  return (kFastestWakeRate - kSlowestWakeRate) / std::log(kFastestWakeRate / kSlowestWakeRate);
}
// A process's first thread starts with it (within 50 ms); most others as it starts (its pools,
// within a minute), the rest at any time since.
constexpr int64_t kFirstThreadWindow = k100NsPerSecond / 20;
constexpr double kEarlyThreadShare = 0.6;
constexpr int64_t kEarlyWindow = 60 * k100NsPerSecond;
// A thread that switched is Ready (waiting for a processor) at most this often.
constexpr double kMostReady = 0.5;
// A thread that switched waits for its usual reason this often, else for another.
constexpr double kUsualReasonShare = 0.8;

// Wait reasons (explain text of index 337) a thread waits for by habit, with their shares: a
// user-mode wait (6), the same in the kernel (13), an event pair or queue (15), a sleep (4), a
// local procedure call (16), the executive (0).
struct WaitHabit {
  uint32_t reason;
  double share;
};
constexpr WaitHabit kWaitHabits[] = {{6, 0.40}, {13, 0.20}, {15, 0.15},
                                     {4, 0.10}, {16, 0.08}, {0, 0.07}};
// What a thread that waits for something else than usual waits for: paging in, a free page,
// virtual memory, an LPC reply, the executive.
constexpr uint32_t kOtherWaitReasons[] = {2, 1, 18, 17, 7};

// Where threads start. Every user-mode thread begins in a routine of the system's, not in the
// program's own (one routine for a process's first thread, one for the others), and system DLLs
// load at the same address in every process of a boot: two addresses for all user threads of a
// host, in the DLLs near the top of a 64-bit process's address space. Kernel threads (the System
// and Idle processes') start in kernel routines, a few per process.
constexpr uint64_t kDllBase = 0x0000'07FE'F000'0000ull;
constexpr uint64_t kKernelBase = 0xFFFF'F800'0000'0000ull;
constexpr uint64_t kKernelRoutines = 8;

uint32_t UsualWaitReason(FleetRandom& random) {
  double pick = random.Uniform();
  for (const WaitHabit& habit : kWaitHabits) {
    if (pick < habit.share) return habit.reason;
    pick -= habit.share;
  }
  return kWaitHabits[0].reason;
}

// A thread's base priority against its process's: most run at the process's, a few above or
// below (THREAD_PRIORITY_ABOVE_NORMAL, _HIGHEST, _BELOW_NORMAL, _LOWEST), within the class's
// range (1 to 15, or 16 to 31 for real-time).
uint32_t ThreadPriority(uint32_t process_base, FleetRandom& random) {
  if (process_base == 0) return 0;
  const double pick = random.Uniform();
  const int relative = pick < 0.80 ? 0 : pick < 0.88 ? 1 : pick < 0.93 ? 2 : pick < 0.98 ? -1 : -2;
  const int low = process_base >= 16 ? 16 : 1, high = process_base >= 16 ? 31 : 15;
  return static_cast<uint32_t>(std::clamp(static_cast<int>(process_base) + relative, low, high));
}

// The dynamic priority of a thread that just ran: Windows boosts a thread that woke from a wait
// by a level or two, up to 15, and lets it decay back to its base.
uint32_t DynamicPriority(uint32_t base, FleetRandom& random) {
  if (base == 0 || base >= 15) return base;
  const double pick = random.Uniform();
  const uint32_t boost = pick < 0.6 ? 0 : pick < 0.8 ? 1 : 2;
  return std::min<uint32_t>(base + boost, 15);
}

// `total` units dealt out in proportion to `weights`, every unit given (the largest remainders
// get the units that rounding down leaves); ties go to the earlier weight.
std::vector<uint64_t> Apportion(uint64_t total, const std::vector<double>& weights) {
  std::vector<uint64_t> shares(weights.size(), 0);
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (total == 0 || weights.empty() || !(sum > 0)) return shares;
  std::vector<std::pair<double, size_t>> remainders;
  remainders.reserve(weights.size());
  uint64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double exact = static_cast<double>(total) * (weights[i] / sum);
    const uint64_t whole = std::min(static_cast<uint64_t>(std::floor(exact)), total - given);
    shares[i] = whole;
    given += whole;
    remainders.emplace_back(exact - static_cast<double>(whole), i);
  }
  uint64_t left = total - given;
  if (left == 0) return shares;
  std::sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (size_t k = 0; k < remainders.size() && left > 0; ++k, --left) {
    ++shares[remainders[k].second];
  }
  // Rounding in floating point can leave more than one unit per weight: the heaviest takes them.
  if (left > 0) {
    shares[static_cast<size_t>(std::max_element(weights.begin(), weights.end()) -
                               weights.begin())] += left;
  }
  return shares;
}

}  // namespace

uint64_t DrawFreeId(FleetRandom& random, std::unordered_set<uint64_t>& ids) {
  uint64_t id = 0;
  do {
    id = 4 * (2 + random.Below(kIdSlots));
  } while (!ids.insert(id).second);
  return id;
}

std::vector<CounterSpec> ThreadCounterSpecs() {
  const uint32_t novice = wp::kDetailNovice, advanced = wp::kDetailAdvanced,
                 wizard = wp::kDetailWizard;
  std::vector<CounterSpec> specs(kThreadCounterCount);
  specs[kThreadProcessorTime] = {.name_index = ti::kPercentProcessorTime,
                                 .type = wp::k100NsecTimer,
                                 .size = 8,
                                 .help_index = 191,
                                 .detail_level = novice};
  specs[kThreadUserTime] = {.name_index = ti::kPercentUserTime,
                            .type = wp::k100NsecTimer,
                            .size = 8,
                            .help_index = 193,
                            .detail_level = advanced};
  specs[kThreadPrivilegedTime] = {.name_index = ti::kPercentPrivilegedTime,
                                  .type = wp::k100NsecTimer,
                                  .size = 8,
                                  .help_index = 195,
                                  .detail_level = advanced};
  specs[kThreadContextSwitches] = {.name_index = ti::kContextSwitchesPerSec,
                                   .type = wp::kCounterCounter,
                                   .size = 4,
                                   .help_index = 197,
                                   .default_scale = -2,
                                   .detail_level = advanced};
  specs[kThreadElapsedTime] = {.name_index = ti::kElapsedTime,
                               .type = wp::kElapsedTime,
                               .size = 8,
                               .help_index = 699,
                               .default_scale = -4,
                               .detail_level = advanced};
  specs[kThreadPriorityCurrent] = {.name_index = kPriorityCurrentIndex,
                                   .type = wp::kCounterRawcount,
                                   .size = 4,
                                   .help_index = 695,
                                   .detail_level = advanced};
  specs[kThreadPriorityBase] = {.name_index = kPriorityBaseIndex,
                                .type = wp::kCounterRawcount,
                                .size = 4,
                                .help_index = 697,
                                .detail_level = advanced};
  // A pointer: 8 bytes on 64-bit Windows, whose provider then types it as a large hex count.
  specs[kThreadStartAddress] = {.name_index = kStartAddressIndex,
                                .type = wp::kCounterLargeRawcountHex,
                                .size = 8,
                                .help_index = 707,
                                .detail_level = wizard};
  specs[kThreadState] = {.name_index = ti::kThreadState,
                         .type = wp::kCounterRawcount,
                         .size = 4,
                         .help_index = 47,
                         .detail_level = wizard};
  specs[kThreadWaitReason] = {.name_index = kThreadWaitReasonIndex,
                              .type = wp::kCounterRawcount,
                              .size = 4,
                              .help_index = 337,
                              .detail_level = wizard};
  specs[kThreadIdProcess] = {.name_index = ti::kIdProcess,
                             .type = wp::kCounterRawcount,
                             .size = 4,
                             .help_index = 785,
                             .detail_level = wizard};
  specs[kThreadIdThread] = {.name_index = ti::kIdThread,
                            .type = wp::kCounterRawcount,
                            .size = 4,
                            .help_index = 805,
                            .detail_level = wizard};
  return specs;
}

void ThreadTable::AddProcess(const ProcessThreadsStart& process, int64_t now,
                             double switches_per_second, FleetRandom& random,
                             std::unordered_set<uint64_t>& ids) {
  ProcessThreads entry{.pid = process.pid};
  // The Idle process's threads (one per processor) all have ID 0 and priority 0.
  const bool idle = process.pid == 0;
  const bool kernel = idle || process.pid == kSystemPid;
  const int64_t created = std::min(process.created, now);
  const int64_t age = now - created;
  const auto within = [&](int64_t span) {
    return static_cast<int64_t>(random.Uniform() * static_cast<double>(std::max<int64_t>(span, 0)));
  };
  if (user_starts_[0] == 0) {
    for (uint64_t& start : user_starts_) start = kDllBase + 16 * random.Below(1u << 24);
  }
  std::vector<uint64_t> kernel_starts;
  for (uint64_t r = 0; kernel && r < kKernelRoutines; ++r) {
    kernel_starts.push_back(kKernelBase + 16 * random.Below(1u << 24));
  }
  for (uint32_t n = 0; n < process.threads; ++n) {
    Thread thread{.number = n};
    thread.id = idle ? 0 : DrawFreeId(random, ids);
    if (n == 0) {
      thread.created = created + within(std::min(age, kFirstThreadWindow));
    } else if (random.Uniform() < kEarlyThreadShare) {
      thread.created = created + within(std::min(age, kEarlyWindow));
    } else {
      thread.created = created + within(age);
    }
    thread.cpu_weight = random.LogNormalFactor(kCpuWeightSigma);
    thread.wake_rate = kSlowestWakeRate *
                       std::exp(random.Uniform() * std::log(kFastestWakeRate / kSlowestWakeRate));
    thread.priority_base = idle ? 0 : ThreadPriority(process.priority_base, random);
    thread.priority_current = thread.priority_base;
    thread.start_address = kernel   ? kernel_starts[random.Below(kernel_starts.size())]
                           : n == 0 ? user_starts_[0]
                                    : user_starts_[1];
    thread.usual_wait_reason = idle ? 0 : UsualWaitReason(random);
    thread.wait_reason = thread.usual_wait_reason;
    thread.state = idle ? kThreadRunning : kThreadWaiting;
    entry.threads.push_back(thread);
  }

  // What the process has run so far, dealt out by weight and lifetime; no thread has run
  // longer than it has lived.
  std::vector<double> weights;
  for (const Thread& thread : entry.threads) {
    weights.push_back(thread.cpu_weight * static_cast<double>(now - thread.created));
  }
  const uint64_t tick = std::max<uint64_t>(process.tick, 1);
  const std::vector<uint64_t> user = Apportion(process.user_time / tick, weights);
  const std::vector<uint64_t> privileged = Apportion(process.privileged_time / tick, weights);
  for (size_t i = 0; i < entry.threads.size(); ++i) {
    Thread& thread = entry.threads[i];
    const uint64_t lived = static_cast<uint64_t>(now - thread.created);
    thread.user_time = std::min(user[i] * tick, lived);
    thread.privileged_time = std::min(privileged[i] * tick, lived - thread.user_time);
    const double seconds = static_cast<double>(lived) / static_cast<double>(k100NsPerSecond);
    thread.context_switches = static_cast<uint32_t>(static_cast<uint64_t>(
        std::llround(switches_per_second * thread.wake_rate / MeanWakeRate() * seconds)));
  }
  index_[process.pid] = processes_.size();
  processes_.push_back(std::move(entry));
}

void ThreadTable::RemoveProcess(uint64_t pid, std::unordered_set<uint64_t>& ids) {
  auto found = index_.find(pid);
  if (found == index_.end()) return;
  for (const Thread& thread : processes_[found->second].threads) {
    if (thread.id != 0) ids.erase(thread.id);
  }
  processes_.erase(processes_.begin() + static_cast<std::ptrdiff_t>(found->second));
  Reindex();
}

void ThreadTable::Reindex() {
  index_.clear();
  for (size_t i = 0; i < processes_.size(); ++i) index_[processes_[i].pid] = i;
}

void ThreadTable::Advance(std::span<const ProcessStep> steps, uint64_t context_switches,
                          int64_t advance, FleetRandom& random) {
  for (ProcessThreads& process : processes_) {
    for (Thread& thread : process.threads) thread.ran = 0;
  }
  const uint64_t limit = advance > 0 ? static_cast<uint64_t>(advance) : 0;
  std::vector<double> weights;
  for (const ProcessStep& step : steps) {
    if (step.user_time == 0 && step.privileged_time == 0) continue;
    auto found = index_.find(step.pid);
    if (found == index_.end()) continue;
    std::vector<Thread>& threads = processes_[found->second].threads;
    if (threads.empty()) continue;
    weights.clear();
    for (const Thread& thread : threads) {
      weights.push_back(thread.cpu_weight * random.LogNormalFactor(kStepSigma));
    }
    // Whole clock ticks, when the process's times are whole ticks.
    uint64_t tick = std::max<uint64_t>(step.tick, 1);
    if (step.user_time % tick != 0 || step.privileged_time % tick != 0) tick = 1;
    const std::vector<uint64_t> user = Apportion(step.user_time / tick, weights);
    const std::vector<uint64_t> privileged = Apportion(step.privileged_time / tick, weights);
    for (size_t i = 0; i < threads.size(); ++i) {
      // A thread runs on one processor at a time: never longer than the clock advanced.
      const uint64_t own_user = std::min(user[i] * tick, limit);
      const uint64_t own_privileged = std::min(privileged[i] * tick, limit - own_user);
      threads[i].user_time += own_user;
      threads[i].privileged_time += own_privileged;
      threads[i].ran = own_user + own_privileged;
    }
  }

  // Context switches, among the threads that woke in the step (every one that ran did): half
  // go with how often each wakes, half with the CPU time it got.
  weights.clear();
  double wakes = 0;
  uint64_t ran = 0;
  const double seconds = static_cast<double>(limit) / static_cast<double>(k100NsPerSecond);
  for (const ProcessThreads& process : processes_) {
    for (const Thread& thread : process.threads) {
      const bool woke =
          thread.ran > 0 || random.Uniform() < 1 - std::exp(-thread.wake_rate * seconds);
      weights.push_back(woke ? thread.wake_rate * random.LogNormalFactor(kStepSigma) : 0);
      wakes += weights.back();
      ran += thread.ran;
    }
  }
  if (ran > 0) {
    size_t i = 0;
    for (const ProcessThreads& process : processes_) {
      for (const Thread& thread : process.threads) {
        weights[i++] += wakes * static_cast<double>(thread.ran) / static_cast<double>(ran);
      }
    }
  }
  const std::vector<uint64_t> switches = Apportion(context_switches, weights);
  Thread* running = nullptr;
  size_t i = 0;
  for (ProcessThreads& process : processes_) {
    for (Thread& thread : process.threads) {
      const uint64_t own = switches[i++];
      thread.context_switches = static_cast<uint32_t>(thread.context_switches + own);
      if (thread.state == kThreadRunning) thread.state = kThreadWaiting;
      // A thread that neither ran nor switched slept through the step, as it was.
      if (own == 0 && thread.ran == 0) continue;
      const double busy =
          limit > 0 ? static_cast<double>(thread.ran) / static_cast<double>(limit) : 0;
      thread.state = random.Uniform() < std::min(kMostReady, busy) ? kThreadReady : kThreadWaiting;
      thread.wait_reason = random.Uniform() < kUsualReasonShare
                               ? thread.usual_wait_reason
                               : kOtherWaitReasons[random.Below(std::size(kOtherWaitReasons))];
      thread.priority_current = DynamicPriority(thread.priority_base, random);
      if (running == nullptr || thread.ran > running->ran) running = &thread;
    }
  }
  // The processor runs the thread that had it most (one processor's worth of Running threads).
  if (running != nullptr && running->ran > 0) running->state = kThreadRunning;
}

void ThreadTable::Write(ObjectBuilder& out, const std::unordered_map<uint64_t, uint32_t>& positions,
                        uint32_t total_position, int64_t clock) const {
  uint64_t user = 0, privileged = 0;
  uint32_t switches = 0;
  for (const ProcessThreads& process : processes_) {
    auto parent = positions.find(process.pid);
    if (parent == positions.end()) continue;
    for (const Thread& thread : process.threads) {
      const uint32_t at = out.AddInstance(std::to_string(thread.number), wp::kNoUniqueId,
                                          ti::kProcess, parent->second);
      out.SetValue(at, kThreadProcessorTime, thread.user_time + thread.privileged_time);
      out.SetValue(at, kThreadUserTime, thread.user_time);
      out.SetValue(at, kThreadPrivilegedTime, thread.privileged_time);
      out.SetValue(at, kThreadContextSwitches, thread.context_switches);
      out.SetValue(at, kThreadElapsedTime, static_cast<uint64_t>(thread.created));
      out.SetValue(at, kThreadPriorityCurrent, thread.priority_current);
      out.SetValue(at, kThreadPriorityBase, thread.priority_base);
      out.SetValue(at, kThreadStartAddress, thread.start_address);
      out.SetValue(at, kThreadState, thread.state);
      out.SetValue(at, kThreadWaitReason, thread.wait_reason);
      out.SetValue(at, kThreadIdProcess, process.pid);
      out.SetValue(at, kThreadIdThread, thread.id);
      user += thread.user_time;
      privileged += thread.privileged_time;
      switches = static_cast<uint32_t>(switches + thread.context_switches);
    }
  }
  // Windows sums the times and switches of the threads present, and sets the start to the
  // object's clock so that the elapsed time reads 0; the rest stays 0.
  const uint32_t total = out.AddInstance("_Total", wp::kNoUniqueId, ti::kProcess, total_position);
  out.SetValue(total, kThreadProcessorTime, user + privileged);
  out.SetValue(total, kThreadUserTime, user);
  out.SetValue(total, kThreadPrivilegedTime, privileged);
  out.SetValue(total, kThreadContextSwitches, switches);
  out.SetValue(total, kThreadElapsedTime, static_cast<uint64_t>(clock));
}

size_t ThreadTable::threads() const {
  size_t count = 0;
  for (const ProcessThreads& process : processes_) count += process.threads.size();
  return count;
}

}  // namespace perfhive::fleet
