// How alike consecutive samples are, measured the same way on a real machine's pair and on the
// generator's samples of that machine: the share of counter values that changed, the size of
// their deltas as zig-zag varints, and what zstd (level 3) makes of the XOR of the two samples
// and of the wire's delta frame (codec/snapshot_delta.h, what agents send and the store keeps).
// The figures say how close the generator's compressibility is to real data's.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_COMPRESSIBILITY_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_COMPRESSIBILITY_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "tests/bench/realistic_fleet/machine_layout.h"

namespace perfhive::fleet {

// Summed over one or more pairs of consecutive samples.
struct PairFigures {
  int pairs = 0;
  uint64_t values = 0;   // numeric counter values present in both samples of a pair
  uint64_t changed = 0;  // of which changed
  // Changed values by the bytes their difference takes as a zig-zag LEB128 varint (1..10).
  std::array<uint64_t, 11> delta_bytes{};
  uint64_t raw_bytes = 0;          // the newer samples' sizes
  uint64_t xor_zstd_bytes = 0;     // zstd level 3 of older XOR newer (the shorter padded with 0)
  uint64_t delta_frame_bytes = 0;  // EncodeDelta(older, newer), the wire's and store's method

  void Add(const PairFigures& other);
  double changed_share() const {
    return values == 0 ? 0 : static_cast<double>(changed) / static_cast<double>(values);
  }
};

// The figures of one pair; objects pair by index, instances by InstanceKeys, counters by
// position where both samples define the same counters.
Result<PairFigures> MeasurePair(std::span<const uint8_t> older, std::span<const uint8_t> newer);

struct MachineComparison {
  std::string machine{};
  double seconds = 0;           // the real pair's interval
  PairFigures real{};           // the real pair
  PairFigures generated{};      // generated samples of the machine, as busy, at the same interval
  PairFigures generated_10s{};  // and 10 s apart, the agent's default interval
};

// Generates `pairs` + 1 samples of a host copying layouts[machine] (activity 1, no title change)
// at the real pair's interval and at 10 s, and measures them against the real pair.
Result<MachineComparison> CompareWithRealPair(
    const std::shared_ptr<const std::vector<MachineLayout>>& layouts, size_t machine, uint64_t seed,
    int pairs);

// The comparison as Markdown tables (docs/fleet_generator.md shows them).
std::string FormatComparison(const std::vector<MachineComparison>& rows);

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_COMPRESSIBILITY_H_
