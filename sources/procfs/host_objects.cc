#include "sources/procfs/host_objects.h"

#include <algorithm>
#include <array>
#include <string>

#include "perfdata/well_known_indexes.h"
#include "sources/procfs/counter_layout.h"
#include "sources/procfs/proc_text.h"

namespace perfhive {
namespace {

namespace ti = title_index;
namespace wp = winperf;

enum SystemCounter : uint32_t {
  kProcesses,
  kThreads,
  kContextSwitches,
  kSystemUpTime,
  kProcessorQueueLength,
  kNumSystemCounters
};
constexpr auto kSystemCounters = std::to_array<CounterLayout>({
    {ti::kProcesses, wp::kCounterRawcount},
    {ti::kThreads, wp::kCounterRawcount},
    {ti::kContextSwitchesPerSec, wp::kCounterCounter},
    {ti::kSystemUpTime, wp::kElapsedTime},
    {ti::kProcessorQueueLength, wp::kCounterRawcount},
});
static_assert(kSystemCounters.size() == kNumSystemCounters);

enum MemoryCounter : uint32_t {
  kAvailableBytes,
  kCommittedBytes,
  kCommitLimit,
  kPageFaults,
  kPages,
  kPagesInput,
  kPagesOutput,
  kCacheBytes,
  kAvailableKBytes,
  kAvailableMBytes,
  kCommittedInUse,
  kCommittedInUseBase,
  kNumMemoryCounters
};
constexpr auto kMemoryCounters = std::to_array<CounterLayout>({
    {ti::kAvailableBytes, wp::kCounterLargeRawcount},
    {ti::kCommittedBytes, wp::kCounterLargeRawcount},
    {ti::kCommitLimit, wp::kCounterLargeRawcount},
    {ti::kPageFaultsPerSec, wp::kCounterCounter},
    {ti::kPagesPerSec, wp::kCounterCounter},
    {ti::kPagesInputPerSec, wp::kCounterCounter},
    {ti::kPagesOutputPerSec, wp::kCounterCounter},
    {ti::kCacheBytes, wp::kCounterLargeRawcount},
    {ti::kAvailableKBytes, wp::kCounterLargeRawcount},
    {ti::kAvailableMBytes, wp::kCounterLargeRawcount},
    {ti::kPercentCommittedBytesInUse, wp::kRawFraction},
    {ti::kPercentCommittedBytesInUse, wp::kRawBase},
});
static_assert(kMemoryCounters.size() == kNumMemoryCounters);

enum ProcessorCounter : uint32_t {
  kProcessorTime,
  kUserTime,
  kPrivilegedTime,
  kInterrupts,
  kDpcTime,
  kInterruptTime,
  kIdleTime,
  kNumProcessorCounters
};
constexpr auto kProcessorCounters = std::to_array<CounterLayout>({
    {ti::kPercentProcessorTime, wp::k100NsecTimerInv},
    {ti::kPercentUserTime, wp::k100NsecTimer},
    {ti::kPercentPrivilegedTime, wp::k100NsecTimer},
    {ti::kInterruptsPerSec, wp::kCounterCounter},
    {ti::kPercentDpcTime, wp::k100NsecTimer},
    {ti::kPercentInterruptTime, wp::k100NsecTimer},
    {ti::kPercentProcessorIdleTime, wp::k100NsecTimer},
});
static_assert(kProcessorCounters.size() == kNumProcessorCounters);

// One processor's times in 100 ns, grouped as Windows groups them.
struct ProcessorTimes {
  uint64_t idle = 0, user = 0, privileged = 0, dpc = 0, interrupt = 0;
};

ProcessorTimes TimesOf(const ProcfsContext& context, const CpuTicks& cpu) {
  // Windows counts interrupt and DPC time as privileged time. Steal time (the hypervisor ran
  // another guest while this CPU had work) is not idle, so it is privileged time too: user,
  // privileged and idle then add up to the elapsed time.
  return ProcessorTimes{
      .idle = context.TicksTo100ns(cpu.idle + cpu.iowait),
      .user = context.TicksTo100ns(cpu.user + cpu.nice),
      .privileged = context.TicksTo100ns(cpu.system + cpu.irq + cpu.softirq + cpu.steal),
      .dpc = context.TicksTo100ns(cpu.softirq),
      .interrupt = context.TicksTo100ns(cpu.irq),
  };
}

void SetProcessorValues(ObjectBuilder& object, uint32_t instance, const ProcessorTimes& times,
                        uint64_t interrupts) {
  object.SetValue(instance, kProcessorTime, times.idle);
  object.SetValue(instance, kUserTime, times.user);
  object.SetValue(instance, kPrivilegedTime, times.privileged);
  object.SetValue(instance, kInterrupts, interrupts);
  object.SetValue(instance, kDpcTime, times.dpc);
  object.SetValue(instance, kInterruptTime, times.interrupt);
  object.SetValue(instance, kIdleTime, times.idle);
}

}  // namespace

void AddSystemObject(ProcfsContext& context, const KernelStat& stat, uint64_t processes,
                     SnapshotBuilder& snapshot) {
  Result<uint64_t> threads = context.ReadParsed("loadavg", ParseLoadavgThreads);
  if (!threads.ok()) context.warnings.push_back("System\\Threads is 0: " + threads.error());
  uint64_t online = stat.cpus.size();

  // System Up Time is an elapsed time: the object's time is now and the value is the boot
  // time, both as FILETIMEs, as Windows writes it.
  ObjectBuilder& object =
      AddObjectWithCounters(snapshot, ti::kSystem, context.clock.filetime, kSystemCounters);
  object.set_no_instances();
  object.SetValue(0, kProcesses, processes);
  object.SetValue(0, kThreads, threads.ok() ? *threads : 0);
  object.SetValue(0, kContextSwitches, stat.context_switches);
  object.SetValue(0, kSystemUpTime, BootFiletime(stat));
  object.SetValue(0, kProcessorQueueLength,
                  stat.procs_running > online ? stat.procs_running - online : 0);
}

Status AddMemoryObject(ProcfsContext& context, SnapshotBuilder& snapshot) {
  Status status = context.Read("meminfo");
  if (!status.ok()) return status;
  constexpr std::array<const char*, 8> kMeminfoKeys = {
      "MemTotal",  "MemAvailable", "Committed_AS", "CommitLimit",
      "SwapTotal", "Buffers",      "Cached",       "Shmem"};
  std::array<uint64_t, kMeminfoKeys.size()> kb{};
  for (size_t i = 0; i < kMeminfoKeys.size(); ++i) {
    std::optional<uint64_t> value = FindKeyedValue(context.buffer.text(), kMeminfoKeys[i]);
    if (!value) {
      return Status::Error(context.files.proc_root() + "/meminfo: no " + kMeminfoKeys[i] + " line");
    }
    kb[i] = *value;
  }
  auto [total, available, committed, kernel_limit, swap, buffers, cached, shmem] = kb;

  // Windows' commit limit is physical memory plus page files. Linux enforces its own
  // CommitLimit only in strict overcommit mode (2); otherwise memory plus swap is the bound.
  uint64_t limit = total + swap;
  if (context.Read("sys/vm/overcommit_memory").ok() && context.buffer.text().starts_with("2")) {
    limit = kernel_limit;
  }

  status = context.Read("vmstat");
  if (!status.ok()) return status;
  uint64_t faults = FindKeyedValue(context.buffer.text(), "pgfault").value_or(0);
  uint64_t pages_in = FindKeyedValue(context.buffer.text(), "pgmajfault").value_or(0);
  uint64_t pages_out = FindKeyedValue(context.buffer.text(), "pswpout").value_or(0);

  // The fraction's DWORDs hold kibibytes, shifted right until the limit fits in 32 bits.
  int shift = 0;
  while ((limit >> shift) > UINT32_MAX) ++shift;

  ObjectBuilder& object =
      AddObjectWithCounters(snapshot, ti::kMemory, context.clock.perf_time, kMemoryCounters);
  object.set_no_instances();
  object.SetValue(0, kAvailableBytes, available * 1024);
  object.SetValue(0, kCommittedBytes, committed * 1024);
  object.SetValue(0, kCommitLimit, limit * 1024);
  object.SetValue(0, kPageFaults, faults);
  object.SetValue(0, kPages, pages_in + pages_out);
  object.SetValue(0, kPagesInput, pages_in);
  object.SetValue(0, kPagesOutput, pages_out);
  object.SetValue(0, kCacheBytes, (buffers + cached - std::min(shmem, buffers + cached)) * 1024);
  object.SetValue(0, kAvailableKBytes, available);
  object.SetValue(0, kAvailableMBytes, available / 1024);
  object.SetValue(0, kCommittedInUse, std::min(committed, limit) >> shift);
  object.SetValue(0, kCommittedInUseBase, limit >> shift);
  return Status();
}

void AddProcessorObject(ProcfsContext& context, const KernelStat& stat,
                        std::span<const uint64_t> interrupts, SnapshotBuilder& snapshot) {
  ObjectBuilder& object =
      AddObjectWithCounters(snapshot, ti::kProcessor, context.clock.perf_time, kProcessorCounters);
  ProcessorTimes sum;
  uint64_t interrupt_sum = 0;
  for (const CpuTicks& cpu : stat.cpus) {
    ProcessorTimes times = TimesOf(context, cpu);
    uint64_t count = cpu.cpu < interrupts.size() ? interrupts[cpu.cpu] : 0;
    SetProcessorValues(object, object.AddInstance(std::to_string(cpu.cpu)), times, count);
    sum.idle += times.idle;
    sum.user += times.user;
    sum.privileged += times.privileged;
    sum.dpc += times.dpc;
    sum.interrupt += times.interrupt;
    interrupt_sum += count;
  }
  // _Total holds the processors' average time, so its percentages are the host's average
  // (as on Windows), and the sum of their interrupts.
  uint64_t n = std::max<uint64_t>(stat.cpus.size(), 1);
  ProcessorTimes average{sum.idle / n, sum.user / n, sum.privileged / n, sum.dpc / n,
                         sum.interrupt / n};
  SetProcessorValues(object, object.AddInstance("_Total"), average, interrupt_sum);
}

uint64_t BootFiletime(const KernelStat& stat) {
  return (stat.boot_time + static_cast<uint64_t>(kFiletimeUnixEpochSeconds)) * 10'000'000;
}

uint64_t TotalIdleTime(const ProcfsContext& context, const KernelStat& stat) {
  uint64_t idle = 0;
  for (const CpuTicks& cpu : stat.cpus) idle += TimesOf(context, cpu).idle;
  return idle;
}

}  // namespace perfhive
