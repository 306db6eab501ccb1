// CPU time of one snapshot from the Linux source: "Global" on this host as it is, and topped
// up with sleeping child processes to 300 processes (a busy server). Target: under 5 ms of CPU
// (user and system) for a "Global" snapshot of 300 processes. docs/linux_source.md compares
// the figures with one scrape of prometheus-node-exporter.

#ifdef __linux__

#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "sources/procfs/procfs_source.h"

namespace perfhive {
namespace {

// Child processes that sleep until the object is destroyed, then are killed by PID.
class SleepingChildren {
 public:
  explicit SleepingChildren(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      pid_t parent = getpid();
      pid_t pid = fork();
      if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the benchmark
        while (getppid() == parent) pause();
        _exit(0);
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~SleepingChildren() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }

 private:
  std::vector<pid_t> pids_;
};

size_t ProcessCount(ProcfsSource& source) {
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("230");
  if (!bytes.ok()) return 0;
  Result<SnapshotReader> reader = SnapshotReader::Open(*bytes);
  if (!reader.ok()) return 0;
  return static_cast<size_t>(reader->FindObject(230)->num_instances()) - 2;  // Idle, _Total
}

// range(0): the number of processes to reach (0: the host as it is).
void TakeSnapshots(benchmark::State& state, const char* query) {
  Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
  if (!source.ok()) {
    state.SkipWithError(source.error().c_str());
    return;
  }
  size_t present = ProcessCount(**source);
  size_t wanted = static_cast<size_t>(state.range(0));
  SleepingChildren children(wanted > present ? wanted - present : 0);
  size_t bytes = 0;
  for (auto _ : state) {
    Result<std::vector<uint8_t>> snapshot = (*source)->TakeSnapshot(query);
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.error().c_str());
      break;
    }
    bytes = snapshot->size();
  }
  state.counters["processes"] = static_cast<double>(ProcessCount(**source));
  state.counters["snapshot_bytes"] = static_cast<double>(bytes);
}

void BM_ProcfsGlobalSnapshot(benchmark::State& state) { TakeSnapshots(state, "Global"); }
BENCHMARK(BM_ProcfsGlobalSnapshot)->Arg(0)->Arg(300)->Unit(benchmark::kMillisecond);

void BM_ProcfsCostlySnapshot(benchmark::State& state) { TakeSnapshots(state, "Costly"); }
BENCHMARK(BM_ProcfsCostlySnapshot)->Arg(300)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive

#endif  // __linux__
