#include "query/bounded_parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace perfhive::query {
namespace {

TEST(BoundedParallelTest, EveryTaskRunsOnceAndAllHaveRunOnReturn) {
  std::vector<std::atomic<int>> runs(1000);
  RunBounded(runs.size(), 4, [&](size_t i) { ++runs[i]; });
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "task " << i;
}

TEST(BoundedParallelTest, NoMoreThreadsThanAskedFor) {
  std::mutex mutex;
  std::set<std::thread::id> threads;
  RunBounded(200, 2, [&](size_t) {
    std::lock_guard lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_LE(threads.size(), 2u);
  RunBounded(0, 2, [](size_t) { FAIL() << "no task to run"; });
}

}  // namespace
}  // namespace perfhive::query
