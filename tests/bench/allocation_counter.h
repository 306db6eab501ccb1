// Counts heap allocations made by the benchmark binary, so benchmarks can report allocations
// per iteration (replaces the global operator new for this binary only).

#ifndef PERFHIVE_TESTS_BENCH_ALLOCATION_COUNTER_H_
#define PERFHIVE_TESTS_BENCH_ALLOCATION_COUNTER_H_

#include <cstdint>

namespace perfhive::testing {

// Allocations since the program started.
uint64_t AllocationCount();

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_BENCH_ALLOCATION_COUNTER_H_
