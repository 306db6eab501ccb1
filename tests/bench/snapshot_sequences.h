// Sequences of consecutive snapshots of one host for the codec and store benchmarks: builder-made
// (tests/support/large_snapshot.h) and real ones from this host's procfs source.

#ifndef PERFHIVE_TESTS_BENCH_SNAPSHOT_SEQUENCES_H_
#define PERFHIVE_TESTS_BENCH_SNAPSHOT_SEQUENCES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace perfhive::testing {

using SnapshotSequence = std::vector<std::vector<uint8_t>>;

// Samples 0..count-1 of BuildLargeSnapshot, one second apart.
SnapshotSequence BuilderSequence(int count);

// The snapshot files (every file but titles.bin, in name order) in $PERFHIVE_SNAPSHOT_DIR, a
// sequence recorded with `perfhive-agent snapshot` once a second; without it, `live_count` Global
// snapshots of this host taken 100 ms apart. `source` says which.
SnapshotSequence ProcfsSequence(int live_count, std::string* source);

// The counter values a snapshot holds: counters × instances of every object (1 instance for an
// object without instances). 0 for bytes that do not open.
uint64_t CounterValues(std::span<const uint8_t> snapshot);

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_BENCH_SNAPSHOT_SEQUENCES_H_
