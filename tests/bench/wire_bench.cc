// The snapshot codec: a steady-state snapshot as a delta frame against the previous one, on
// builder-made ~700 KB snapshots and on real procfs snapshots of this host. Target: frames at
// most 10% of the raw size (counter wire_ratio). docs/wire_protocol.md quotes the figures.

#include <benchmark/benchmark.h>

#include <string>

#include "codec/snapshot_delta.h"
#include "tests/bench/snapshot_sequences.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

void EncodeSequence(benchmark::State& state, const testing::SnapshotSequence& sequence) {
  if (sequence.size() < 2) {
    state.SkipWithError("no snapshots");
    return;
  }
  double raw = 0;
  double framed = 0;
  for (auto _ : state) {
    raw = 0;
    framed = 0;
    for (size_t i = 1; i < sequence.size(); ++i) {
      std::vector<uint8_t> frame = EncodeDelta(sequence[i - 1], sequence[i]);
      raw += static_cast<double>(sequence[i].size());
      framed += static_cast<double>(frame.size());
    }
  }
  double pairs = static_cast<double>(sequence.size() - 1);
  state.SetBytesProcessed(static_cast<int64_t>(raw) * static_cast<int64_t>(state.iterations()));
  state.counters["snapshots"] = pairs;
  state.counters["raw_bytes"] = raw / pairs;
  state.counters["frame_bytes"] = framed / pairs;
  state.counters["wire_ratio"] = framed / raw;
  state.counters["encode_us"] = benchmark::Counter(
      pairs * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}

void BM_EncodeDeltaBuilder(benchmark::State& state) {
  static const testing::SnapshotSequence sequence = testing::BuilderSequence(10);
  EncodeSequence(state, sequence);
}
BENCHMARK(BM_EncodeDeltaBuilder)->Unit(benchmark::kMillisecond);

void BM_EncodeDeltaProcfs(benchmark::State& state) {
  static std::string source;
  static const testing::SnapshotSequence sequence = testing::ProcfsSequence(10, &source);
  state.SetLabel(source);
  EncodeSequence(state, sequence);
}
BENCHMARK(BM_EncodeDeltaProcfs)->Unit(benchmark::kMillisecond);

void BM_DecodeDeltaBuilder(benchmark::State& state) {
  std::vector<uint8_t> base = testing::BuildLargeSnapshot(0);
  std::vector<uint8_t> current = testing::BuildLargeSnapshot(1);
  std::vector<uint8_t> frame = EncodeDelta(base, current);
  for (auto _ : state) benchmark::DoNotOptimize(DecodeDelta(base, frame).ok());
  state.SetBytesProcessed(static_cast<int64_t>(current.size()) * state.iterations());
}
BENCHMARK(BM_DecodeDeltaBuilder)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perfhive
