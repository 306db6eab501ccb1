// Counts heap allocations made by the benchmark binary, so benchmarks can report allocations
// per iteration (replaces the global operator new for this binary only).

#ifndef PERFHIVE_TESTS_BENCH_ALLOCATION_COUNTER_H_
#define PERFHIVE_TESTS_BENCH_ALLOCATION_COUNTER_H_

#include <cstdint>

namespace perfhive::testing {

// Allocations the calling thread has made since it started. Each thread counts its own: one
// counter shared by every thread cost the multi-threaded benchmarks (a server's reads) a
// cache-line transfer per allocation, a fifth of their CPU.
uint64_t AllocationCount();

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_BENCH_ALLOCATION_COUNTER_H_
