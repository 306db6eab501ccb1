// The clocks the benchmarks that print their own figures read: the whole process's CPU time
// (every thread's) and the wall clock, in seconds.

#ifndef PERFHIVE_TESTS_BENCH_PROCESS_CLOCK_H_
#define PERFHIVE_TESTS_BENCH_PROCESS_CLOCK_H_

#include <time.h>

#include <chrono>

namespace perfhive::bench {

inline double ProcessCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

inline double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

inline double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace perfhive::bench

#endif  // PERFHIVE_TESTS_BENCH_PROCESS_CLOCK_H_
