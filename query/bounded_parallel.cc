#include "query/bounded_parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace perfhive::query {

void RunBounded(size_t count, size_t max_threads, const std::function<void(size_t)>& task) {
  size_t cores = std::max<size_t>(1, std::thread::hardware_concurrency());
  size_t threads = std::min({count, std::max<size_t>(1, max_threads), cores});
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < count; i = next++) task(i);
  };
  std::vector<std::jthread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
}

}  // namespace perfhive::query
