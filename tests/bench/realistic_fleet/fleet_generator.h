// FleetGenerator: a fleet of generated Windows hosts made from the layouts of real machines
// (machine_layout.h): host i copies machine i mod M (round-robin over the chosen machines), or,
// for the share of hosts FleetOptions::busy_servers asks for, a busy server (busy_server.h); it
// gets its own name, clocks, uptime and busyness from the seed, and yields its samples through a
// HostSimulator. The same seed gives the same bytes; host i is the same whatever the fleet's size.
//
//   FleetGenerator fleet = FleetGenerator::Create(layouts, {.seed = 7, .hosts = 100}).value();
//   HostSimulator host = fleet.StartHost(3);
//   for (int k = 0; k < 360; ++k) Write(host.Next().snapshot);

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_GENERATOR_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_GENERATOR_H_

#include <memory>
#include <vector>

#include "base/status.h"
#include "tests/bench/realistic_fleet/fleet_options.h"
#include "tests/bench/realistic_fleet/host_simulator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"

namespace perfhive::fleet {

class FleetGenerator {
 public:
  // Fails when a name in options.layouts is not one of `layouts`, or the options are out of
  // range (no hosts, an interval that is not positive).
  static Result<FleetGenerator> Create(std::shared_ptr<const std::vector<MachineLayout>> layouts,
                                       FleetOptions options);

  const FleetOptions& options() const { return options_; }
  int hosts() const { return options_.hosts; }
  const HostProfile& profile(int host) const { return profiles_[static_cast<size_t>(host)]; }
  const MachineLayout& layout_of(int host) const {
    return (*layouts_)[static_cast<size_t>(profile(host).layout)];
  }

  // Host `host` (0 ≤ host < hosts()) at its first sample.
  HostSimulator StartHost(int host) const;

 private:
  FleetGenerator(std::shared_ptr<const std::vector<MachineLayout>> layouts, FleetOptions options,
                 std::vector<HostProfile> profiles)
      : layouts_(std::move(layouts)),
        options_(std::move(options)),
        profiles_(std::move(profiles)) {}

  std::shared_ptr<const std::vector<MachineLayout>> layouts_;
  FleetOptions options_;
  std::vector<HostProfile> profiles_;
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_GENERATOR_H_
