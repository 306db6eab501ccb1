// Awaited: turns a call that reports its outcome to a completion into one that waits for it,
// for the store's synchronous calls over its asynchronous ones (Append over AppendAsync, a
// catalog write over the writer's queue).

#ifndef PERFHIVE_STORE_AWAITED_H_
#define PERFHIVE_STORE_AWAITED_H_

#include <functional>
#include <future>
#include <utility>

namespace perfhive {

// Calls `start` with a completion and waits for the outcome it is given.
template <typename Outcome>
Outcome Awaited(const std::function<void(std::function<void(Outcome)>)>& start) {
  std::promise<Outcome> promise;
  std::future<Outcome> outcome = promise.get_future();
  start([&promise](Outcome given) { promise.set_value(std::move(given)); });
  return outcome.get();
}

}  // namespace perfhive

#endif  // PERFHIVE_STORE_AWAITED_H_
