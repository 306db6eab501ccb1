// The real Windows machines the fleet generator copies: their raw replies and title databases,
// read at run time from the shared fixtures (../shared/fixtures/realdata, described in its
// README.md). The files are never copied into the repository; a clone without them gets an error
// naming the path that is missing.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_REAL_MACHINES_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_REAL_MACHINES_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"

namespace perfhive::fleet {

// One reply of a machine: a sample and, where the fixtures have one, the machine's next sample
// of the same query.
struct RealReply {
  std::vector<uint8_t> older{};
  std::vector<uint8_t> newer{};  // empty: a single sample
};

// What the fixtures hold of one machine.
struct RealMachine {
  std::string name{};                // "kinex01"
  std::vector<RealReply> replies{};  // several for a machine whose objects came in several queries
  // The machine's "Counter 009" list as the registry returns it (UTF-16LE MULTI_SZ).
  std::vector<uint8_t> titles{};
  // Where the titles came from, for messages: the machine's own list, or a `lodctr /S` dump of
  // another host of the same Windows version, encoded as that list.
  std::string titles_source{};
};

// The machines of realdata/ under `fixtures_root` (the folder holding realdata/ and
// title-databases/): the five zenoss-windowsmonitor machines with their sample pairs, and the
// windows-rust-counters machine (System and Processor, one sample each, named "getaway" after
// its system name). An error names the first file that is missing or unreadable.
Result<std::vector<RealMachine>> ReadRealMachines(const std::filesystem::path& fixtures_root);

// The file whose absence ReadRealMachines reports first: what a caller names when it skips.
std::filesystem::path FirstRealMachineFile(const std::filesystem::path& fixtures_root);

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_REAL_MACHINES_H_
