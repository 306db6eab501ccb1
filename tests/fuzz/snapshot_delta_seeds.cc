// Writes the seed corpus for snapshot_delta_fuzzer: (base, frame) pairs in its input layout for
// every method (keyframe, word difference, base as prefix), made from builder snapshots.

#include <string>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/snapshot_builder.h"
#include "tests/fuzz/seed_corpus.h"

namespace {

using perfhive::ObjectBuilder;
using perfhive::SnapshotBuilder;

std::vector<uint8_t> Snapshot(int processes, int t) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time({2025, 1, 3, 1, 10, 0, 0, 0});
  ObjectBuilder& process = builder.AddObject(230);
  process.AddCounter({.name_index = 6, .type = perfhive::winperf::kCounterLargeRawcount});
  process.AddCounter({.name_index = 784, .type = perfhive::winperf::kCounterRawcount});
  for (int p = 0; p < processes; ++p) {
    uint32_t i = process.AddInstance("p" + std::to_string(p), p);
    process.SetValue(i, 0, 1000u * p + 37u * t);
    process.SetValue(i, 1, p);
  }
  return builder.Build();
}

// The fuzzer's input: u16 base length, the base, the frame.
std::vector<uint8_t> Input(const std::vector<uint8_t>& base, const std::vector<uint8_t>& frame) {
  std::vector<uint8_t> out = {static_cast<uint8_t>(base.size()),
                              static_cast<uint8_t>(base.size() >> 8)};
  out.insert(out.end(), base.begin(), base.end());
  out.insert(out.end(), frame.begin(), frame.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  std::vector<uint8_t> base = Snapshot(6, 0);
  corpus.Write("keyframe", Input({}, perfhive::EncodeDelta({}, base)));
  corpus.Write("difference", Input(base, perfhive::EncodeDelta(base, Snapshot(6, 1))));
  corpus.Write("prefix", Input(base, perfhive::EncodeDelta(base, Snapshot(8, 1))));
  std::vector<uint8_t> odd = {1, 2, 3, 4, 5};
  std::vector<uint8_t> shorter = {9, 8, 7};
  corpus.Write("odd_sizes", Input(odd, perfhive::EncodeDelta(odd, shorter)));
  return 0;
}
