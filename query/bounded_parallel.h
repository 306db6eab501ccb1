// RunBounded: runs tasks 0..count-1 on at most `max_threads` threads (the caller's among them),
// for work split by host where one host's part does not depend on another's. Each task writes
// only its own result, so no task needs a lock to report.

#ifndef PERFHIVE_QUERY_BOUNDED_PARALLEL_H_
#define PERFHIVE_QUERY_BOUNDED_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace perfhive::query {

// Returns once every task has run. Threads beyond the machine's cores are not started.
void RunBounded(size_t count, size_t max_threads, const std::function<void(size_t)>& task);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_BOUNDED_PARALLEL_H_
