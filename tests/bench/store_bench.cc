// The store: group-committed appends from many hosts at once, durable (WAL, synchronous=FULL)
// on this machine's disk, and what the stored snapshots take per counter value. Targets:
// 1,000 hosts × one snapshot per 10 s (100 snapshots/s) using well under half a core
// (counter cores_at_100_per_s), and stored bytes per counter value ≤ 1.5
// (counter stored_bytes_per_value). docs/store_format.md quotes the figures.

#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>

#include "store/store.h"
#include "tests/bench/countdown.h"
#include "tests/bench/snapshot_sequences.h"

namespace perfhive {
namespace {

class TempStoreDir {
 public:
  TempStoreDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "perfhive-bench-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempStoreDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

double ProcessCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

using bench::Countdown;

// Appends one snapshot for each of `hosts` hosts at once, as many agent streams would, and waits
// for the completions. False if one failed.
bool AppendRound(Store& store, int hosts, uint64_t round, const testing::SnapshotSequence& samples,
                 double* raw_bytes) {
  Countdown countdown;
  countdown.Add(hosts);
  for (int h = 0; h < hosts; ++h) {
    SnapshotToAppend append;
    append.host = "host" + std::to_string(h);
    append.query = "Global";
    append.instance_id = "bench";
    append.sequence = round;
    append.raw = samples[(round + h) % samples.size()];
    *raw_bytes += static_cast<double>(append.raw.size());
    store.AppendAsync(std::move(append),
                      [&countdown](Result<AppendResult> r) { countdown.Done(r.ok()); });
  }
  return countdown.Wait() == 0;
}

// range(0) hosts each append one snapshot per iteration (a round). The first round, which makes
// every host's keyframe, is measured apart (keyframe_cpu_ms); the iterations are the steady state
// of deltas. cores_at_100_per_s counts both, a keyframe every group_size snapshots.
void BM_StoreAppend(benchmark::State& state) {
  static const testing::SnapshotSequence samples = testing::BuilderSequence(8);
  const int hosts = static_cast<int>(state.range(0));
  TempStoreDir dir;
  Result<std::unique_ptr<Store>> store = Store::Open(dir.path());
  if (!store.ok()) {
    state.SkipWithError(store.error().c_str());
    return;
  }
  double raw_bytes = 0;
  double keyframe_start = ProcessCpuSeconds();
  if (!AppendRound(**store, hosts, 0, samples, &raw_bytes)) {
    state.SkipWithError("an append failed");
    return;
  }
  double keyframe_cpu = (ProcessCpuSeconds() - keyframe_start) / hosts;
  uint64_t round = 1;
  raw_bytes = 0;
  double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) {
    if (!AppendRound(**store, hosts, round, samples, &raw_bytes)) {
      state.SkipWithError("an append failed");
      break;
    }
    ++round;
  }
  double cpu = ProcessCpuSeconds() - cpu_start;
  double snapshots = static_cast<double>(round - 1) * hosts;
  double group = StoreOptions().group_size;
  double cpu_per_snapshot = (cpu / snapshots * (group - 1) + keyframe_cpu) / group;
  state.SetBytesProcessed(static_cast<int64_t>(raw_bytes));
  state.counters["snapshots_per_s"] = benchmark::Counter(snapshots, benchmark::Counter::kIsRate);
  state.counters["snapshot_bytes"] = raw_bytes / snapshots;
  state.counters["delta_cpu_ms"] = 1000 * cpu / snapshots;
  state.counters["keyframe_cpu_ms"] = 1000 * keyframe_cpu;
  state.counters["cores_at_100_per_s"] = 100 * cpu_per_snapshot;
  Result<StoreTotals> totals = (*store)->Totals();
  if (totals.ok()) {
    state.counters["stored_ratio"] =
        static_cast<double>(totals->stored_bytes) / static_cast<double>(totals->raw_bytes);
  }
}
BENCHMARK(BM_StoreAppend)->Arg(100)->Iterations(10)->Unit(benchmark::kMillisecond)->UseRealTime();

// Appends a whole sequence of one host to a new store and divides what it takes by the counter
// values the snapshots hold.
void StoreSequence(benchmark::State& state, const testing::SnapshotSequence& sequence) {
  if (sequence.empty()) {
    state.SkipWithError("no snapshots");
    return;
  }
  double values = 0;
  double raw = 0;
  for (const auto& snapshot : sequence) {
    values += static_cast<double>(testing::CounterValues(snapshot));
    raw += static_cast<double>(snapshot.size());
  }
  StoreTotals totals;
  for (auto _ : state) {
    TempStoreDir dir;
    Result<std::unique_ptr<Store>> store = Store::Open(dir.path());
    if (!store.ok()) {
      state.SkipWithError(store.error().c_str());
      return;
    }
    for (size_t i = 0; i < sequence.size(); ++i) {
      SnapshotToAppend append{"host", "Global", "bench", i, 0, sequence[i]};
      if (!(*store)->Append(std::move(append)).ok()) {
        state.SkipWithError("an append failed");
        return;
      }
    }
    Result<StoreTotals> result = (*store)->Totals();
    if (result.ok()) totals = *result;
  }
  state.counters["snapshots"] = static_cast<double>(sequence.size());
  state.counters["values_per_snapshot"] = values / static_cast<double>(sequence.size());
  state.counters["raw_bytes_per_value"] = raw / values;
  state.counters["stored_bytes_per_value"] = static_cast<double>(totals.stored_bytes) / values;
  state.counters["file_bytes_per_value"] = static_cast<double>(totals.file_bytes) / values;
}

void BM_StoreBytesPerValueBuilder(benchmark::State& state) {
  static const testing::SnapshotSequence sequence = testing::BuilderSequence(120);
  StoreSequence(state, sequence);
}
BENCHMARK(BM_StoreBytesPerValueBuilder)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_StoreBytesPerValueProcfs(benchmark::State& state) {
  static std::string source;
  static const testing::SnapshotSequence sequence = testing::ProcfsSequence(10, &source);
  state.SetLabel(source);
  StoreSequence(state, sequence);
}
BENCHMARK(BM_StoreBytesPerValueProcfs)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive
