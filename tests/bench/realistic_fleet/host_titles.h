// HostTitles: one generated host's title database ("Counter 009") and the changes a real host's
// database goes through now and then: a provider registered again (unlodctr, lodctr), which
// moves its names to fresh indexes past the last one, or a new provider installed, which adds
// names. Hosts share their machine's database until theirs changes.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_HOST_TITLES_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_HOST_TITLES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace perfhive::fleet {

class HostTitles {
 public:
  HostTitles(std::shared_ptr<const std::vector<uint8_t>> bytes,
             std::shared_ptr<const std::map<uint32_t, std::string>> names)
      : bytes_(std::move(bytes)), names_(std::move(names)) {}

  // The MULTI_SZ bytes of "Counter 009" as they are now.
  const std::vector<uint8_t>& bytes() const { return *bytes_; }

  // The first index of extensible providers, which index 1 of the list holds ("1847"); 0 when
  // it is not a number.
  uint32_t base_index() const;

  // Moves the names at `indexes` to fresh even indexes after the last one, in increasing order,
  // as registering a provider again does; returns old index → new index.
  std::map<uint32_t, uint32_t> Reregister(const std::set<uint32_t>& indexes);

  // Adds the names of a provider (an object and `counters` counters) after the last index;
  // `number` tells one such provider from another.
  void Install(uint32_t counters, uint64_t number);

 private:
  // The next even index after the last name.
  uint32_t NextFreeIndex() const;
  void Publish(std::map<uint32_t, std::string> names);

  std::shared_ptr<const std::vector<uint8_t>> bytes_;
  std::shared_ptr<const std::map<uint32_t, std::string>> names_;
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_HOST_TITLES_H_
