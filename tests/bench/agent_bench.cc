// The agent's cost per "Global" snapshot of this Linux host beyond reading it: framing (SHA-256,
// the Snapshot message), delta against the previous snapshot and zstd, as the shipper does for
// every snapshot in steady state. Reported per snapshot: CPU time, heap allocations, raw and
// wire bytes, and the bytes the shipper keeps per query (the snapshot in flight and the base).
// And what writing each snapshot ahead to the spool costs: the file written and flushed when it
// is taken, removed when the server acknowledges it.

#ifdef __linux__

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "agent/outbox.h"
#include "agent/snapshot_frame.h"
#include "agent/spool.h"
#include "sources/procfs/procfs_source.h"
#include "tests/bench/allocation_counter.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

// Real snapshots of this host a second apart (counters move as they do between samples), taken
// once before timing.
const std::vector<SnapshotRecord>& RecordedGlobals() {
  static const std::vector<SnapshotRecord>* records = [] {
    auto* out = new std::vector<SnapshotRecord>;
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
    for (uint64_t i = 1; source.ok() && i <= 4; ++i) {
      if (i > 1) std::this_thread::sleep_for(std::chrono::seconds(1));
      Result<std::vector<uint8_t>> raw = (*source)->TakeSnapshot("Global");
      if (!raw.ok()) break;
      out->push_back(SnapshotRecord{
          .owner = {.host = {.name = "bench", .os = "", .os_version = ""}, .agentless = false},
          .instance_id = "0123456789abcdef0123456789abcdef",
          .sequence = i,
          .query = "Global",
          .titles = {TitleRef{.language = "009", .sha256 = {}}},
          .raw = std::move(raw).value()});
    }
    return out;
  }();
  return *records;
}

void BM_AgentFrameGlobalSnapshot(benchmark::State& state) {
  const std::vector<SnapshotRecord>& records = RecordedGlobals();
  if (records.size() < 2) {
    state.SkipWithError("no procfs snapshots");
    return;
  }
  size_t i = 1;
  uint64_t raw_bytes = 0;
  uint64_t wire_bytes = 0;
  uint64_t frames = 0;
  uint64_t allocations = testing::AllocationCount();
  for (auto _ : state) {
    const SnapshotRecord& base = records[i - 1];
    const SnapshotRecord& record = records[i];
    v1::AgentMessage message;
    FrameSnapshot(record, &base, *message.mutable_snapshot());
    std::string wire = message.SerializeAsString();  // what gRPC writes
    benchmark::DoNotOptimize(wire.data());
    raw_bytes += record.raw.size();
    wire_bytes += wire.size();
    ++frames;
    i = i + 1 < records.size() ? i + 1 : 1;
  }
  allocations = testing::AllocationCount() - allocations;
  double n = static_cast<double>(frames);
  state.counters["raw_bytes"] = static_cast<double>(raw_bytes) / n;
  state.counters["wire_bytes"] = static_cast<double>(wire_bytes) / n;
  state.counters["wire_percent"] = 100.0 * static_cast<double>(wire_bytes) / raw_bytes;
  state.counters["allocs"] = static_cast<double>(allocations) / n;
  // Held per query between snapshots: the one awaiting its ack and the base of the next delta.
  state.counters["kept_bytes"] = 2.0 * static_cast<double>(raw_bytes) / n;
}
BENCHMARK(BM_AgentFrameGlobalSnapshot)->Unit(benchmark::kMicrosecond);

// The first snapshot of a stream: zstd alone, no base.
void BM_AgentFrameGlobalKeyframe(benchmark::State& state) {
  const std::vector<SnapshotRecord>& records = RecordedGlobals();
  if (records.empty()) {
    state.SkipWithError("no procfs snapshots");
    return;
  }
  uint64_t wire_bytes = 0;
  uint64_t frames = 0;
  for (auto _ : state) {
    v1::AgentMessage message;
    FrameSnapshot(records[0], nullptr, *message.mutable_snapshot());
    wire_bytes += message.ByteSizeLong();
    ++frames;
  }
  state.counters["wire_percent"] =
      100.0 * static_cast<double>(wire_bytes) / static_cast<double>(frames) / records[0].raw.size();
}
BENCHMARK(BM_AgentFrameGlobalKeyframe)->Unit(benchmark::kMicrosecond);

// One snapshot through the outbox while connected, as the sampler and an acknowledgement make
// it go: Push (written and flushed to the spool, then kept in memory) and Remove (its file
// removed). range(0): 0 for this host's real Global snapshot, 1 for a builder-made 688 KB one,
// the size of a large Windows Global snapshot. The spool is in the system's temporary folder.
void BM_AgentWriteAheadPerSnapshot(benchmark::State& state) {
  const std::vector<SnapshotRecord>& records = RecordedGlobals();
  if (records.empty()) {
    state.SkipWithError("no procfs snapshots");
    return;
  }
  SnapshotRecord record = records[0];
  if (state.range(0) == 1) record.raw = testing::BuildLargeSnapshot(1);
  Env& env = Env::Default();
  std::ostringstream log_text;
  Logger log(log_text, env);
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("perfhive-write-ahead-" + std::to_string(getpid())))
                        .string();
  {
    std::unique_ptr<Spool> spool =
        std::move(Spool::Open(env, dir, 1ull << 30, record.owner, log)).value();
    Outbox outbox(*spool, {}, 64ull << 20, log);
    outbox.SetConnected(true);
    uint64_t sequence = 0;
    for (auto _ : state) {
      record.sequence = ++sequence;
      outbox.Push(record);
      outbox.Remove(record.instance_id, record.sequence);
    }
    state.counters["raw_bytes"] = static_cast<double>(record.raw.size());
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_AgentWriteAheadPerSnapshot)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace perfhive

#endif  // __linux__
