// A realistic, large snapshot for benchmarks and fuzz seeds: what "Global" returns on a busy
// 64-CPU Windows server (Process with 400 instances, Thread with 4,000, Processor with 64 + _Total,
// PhysicalDisk, Memory, System; about 1 MB), with the real object and counter indexes and types.

#ifndef PERFHIVE_TESTS_SUPPORT_LARGE_SNAPSHOT_H_
#define PERFHIVE_TESTS_SUPPORT_LARGE_SNAPSHOT_H_

#include <cstdint>
#include <vector>

namespace perfhive::testing {

// Sample `sample` of the host (0, 1, 2, ...): each sample is one second after the previous, and
// every counter moves by a deterministic, plausible amount, so two consecutive samples give
// meaningful rates. Duplicate process names (svchost) and threads of every process included.
std::vector<uint8_t> BuildLargeSnapshot(int sample);

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_LARGE_SNAPSHOT_H_
