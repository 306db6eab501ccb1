// What the realistic fleet's tests share: the real machines' layouts, read once from
// ../shared/fixtures, and a generator over them.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_TEST_UTIL_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <utility>
#include <vector>

#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::fleet {

// Every real machine's layout, read once (empty, with a failure, when the fixtures are absent).
inline std::shared_ptr<const std::vector<MachineLayout>> FixtureLayouts() {
  static const std::shared_ptr<const std::vector<MachineLayout>> layouts = [] {
    Result<std::vector<MachineLayout>> loaded =
        LoadMachineLayouts(::perfhive::testing::SharedFixturesRoot());
    EXPECT_TRUE(loaded.ok()) << loaded.error();
    return std::make_shared<const std::vector<MachineLayout>>(
        loaded.ok() ? std::move(loaded).value() : std::vector<MachineLayout>());
  }();
  return layouts;
}

inline FleetGenerator FixtureFleet(FleetOptions options) {
  Result<FleetGenerator> fleet = FleetGenerator::Create(FixtureLayouts(), std::move(options));
  EXPECT_TRUE(fleet.ok()) << fleet.error();
  return std::move(fleet).value();
}

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_TEST_UTIL_H_
