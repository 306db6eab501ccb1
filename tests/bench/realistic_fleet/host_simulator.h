// HostSimulator: one generated Windows host, sample after sample. It starts from its real
// machine's layout and values (scaled to its own uptime, with its own name and clocks) and
// moves every value as its model says, scaled by how busy the host is at the moment; processes
// start (new PIDs, a real process's name, so duplicates are numbered #n as Windows numbers them)
// and exit, and now and then its title database changes. Each host is deterministic given the
// fleet's seed and its index, and independent of every other host.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_HOST_SIMULATOR_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_HOST_SIMULATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "tests/bench/realistic_fleet/fleet_options.h"
#include "tests/bench/realistic_fleet/fleet_random.h"
#include "tests/bench/realistic_fleet/host_titles.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/bench/realistic_fleet/thread_table.h"

namespace perfhive::fleet {

struct GeneratedSample {
  std::vector<uint8_t> snapshot;  // a raw PERF_DATA_BLOCK
  // The title database changed before this sample (HostSimulator::titles() has the new one).
  bool titles_changed = false;
};

class HostSimulator {
 public:
  HostSimulator(std::shared_ptr<const std::vector<MachineLayout>> layouts, HostProfile profile,
                const FleetOptions& options, uint64_t seed);

  const HostProfile& profile() const { return profile_; }
  // "Counter 009" as the host's registry returns it at the latest sample.
  const std::vector<uint8_t>& titles() const { return titles_.bytes(); }
  // Samples taken so far.
  int64_t samples() const { return samples_; }

  // The host's next sample; the first call returns its first.
  GeneratedSample Next();

 private:
  struct LiveInstance {
    const InstanceLayout* source = nullptr;  // the real instance it copies (models, centres)
    std::string name{};
    int32_t unique_id = winperf::kNoUniqueId;
    uint32_t parent_object_index = 0;
    uint32_t parent_instance = 0;
    std::vector<uint64_t> values{};
    std::vector<uint64_t> previous{};  // the values before this step's moves
    bool churns = false;               // may exit
  };
  struct LiveObject {
    const ObjectLayout* source;
    uint32_t name_index;  // these three move when the provider is registered again
    uint32_t help_index;
    std::vector<CounterSpec> counters;
    std::vector<LiveInstance> instances{};
    int64_t clock = 0;          // the object's PerfTime now
    int64_t clock_advance = 0;  // and how far it moved this step
    // Processes: where the PID and thread count are, what new processes copy, and how many
    // processes churn (the count churn hovers around).
    std::optional<uint32_t> pid_counter{}, thread_counter{};
    std::vector<const InstanceLayout*> templates{};
    size_t churn_target = 0;
  };

  const MachineLayout& layout() const { return (*layouts_)[profile_.layout]; }
  int64_t ObjectClockAt(const LiveObject& object) const;
  // The host's clocks with `object`'s, now and how far they moved in the last step.
  SampleClocks ClocksNow(const LiveObject& object) const {
    return {.tick = perf_time_, .ns100 = perf_time_100ns_, .object = object.clock};
  }
  SampleClocks ClocksAdvance(const LiveObject& object) const {
    return {.tick = tick_advance_, .ns100 = ns100_advance_, .object = object.clock_advance};
  }

  // A copy of `source`: at the host's first sample, or a process that has just started.
  LiveInstance StartInstance(const LiveObject& object, const InstanceLayout& source,
                             bool started_now);
  void SetUpProcesses(LiveObject& object);
  // One interval later: clocks, activity, titles, processes, values.
  bool Advance();
  void Churn(LiveObject& object, double seconds);
  void StartProcess(LiveObject& object);
  void CountProcess(const LiveObject& object, const LiveInstance& process, int sign);
  // The busy-server shape's threads: what a process's are made from, and their step.
  void SetUpThreads();
  ProcessThreadsStart ThreadsOf(const LiveObject& object, const LiveInstance& process) const;
  void StepThreads();
  void WriteThreads(ObjectBuilder& out) const;
  void Move(const LiveObject& object, LiveInstance& instance, double seconds, double activity);
  void CopyLinked(const LiveObject& object, LiveInstance& instance) const;
  void ChangeTitles();
  std::vector<uint8_t> Build() const;

  std::shared_ptr<const std::vector<MachineLayout>> layouts_;
  HostProfile profile_;
  FleetOptions options_;
  FleetRandom random_;
  HostTitles titles_;
  std::vector<LiveObject> objects_;
  int64_t samples_ = 0;
  int64_t elapsed_ns_ = 0;  // since the first sample
  int64_t start_perf_time_ = 0;
  int64_t perf_time_ = 0, perf_time_100ns_ = 0;
  int64_t tick_advance_ = 0, ns100_advance_ = 0;
  double log_activity_ = 0;  // the host's slow swings between quieter and busier minutes
  std::unordered_set<uint64_t> pids_;
  // System's Processes and Threads, which follow churn.
  std::optional<size_t> system_object_;
  std::optional<uint32_t> processes_counter_, threads_counter_;
  uint64_t installs_ = 0;
  // A Thread object made from the processes (busy_server.h; set only when there are processes),
  // the Process counters its threads follow and System's context switches, which they share.
  ThreadTable threads_;
  std::optional<size_t> thread_object_, process_object_;
  std::optional<uint32_t> user_counter_, privileged_counter_, priority_counter_, elapsed_counter_;
  std::optional<uint32_t> switches_counter_;
  double switches_per_thread_ = 0;  // per second, on average
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_HOST_SIMULATOR_H_
