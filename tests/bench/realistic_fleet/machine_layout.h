// MachineLayout: what the fleet generator copies of one real machine: its objects, counter
// definitions and types, instances with their names and first values, and how each value moves
// (value_model.h), read off the machine's real consecutive samples. A machine with single samples
// only (no pair to read rates from) borrows the motions of the same object and counters on the
// machines that have pairs.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_MACHINE_LAYOUT_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_MACHINE_LAYOUT_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "perfdata/snapshot_builder.h"
#include "tests/bench/realistic_fleet/real_machines.h"
#include "tests/bench/realistic_fleet/value_model.h"

namespace perfhive::fleet {

struct InstanceLayout {
  std::string name{};
  int32_t unique_id = winperf::kNoUniqueId;
  uint32_t parent_object_index = 0;
  uint32_t parent_instance = 0;
  std::vector<uint64_t> values{};  // by counter, as in the older sample (0 for non-numbers)
  std::vector<ValueModel> models{};
  std::map<uint32_t, std::vector<uint8_t>> bytes{};  // counters other than 4 or 8 bytes, as read
};

// Which running clock an object's PerfTime is, if any.
enum class ObjectClock : uint8_t { kNone, kTick, k100Ns };

struct ObjectLayout {
  uint32_t name_index = 0;
  uint32_t help_index = 0;
  uint32_t detail_level = winperf::kDetailNovice;
  int32_t default_counter = -1;
  uint32_t code_page = 0;
  bool no_instances = false;
  int64_t perf_time = 0;  // as read: what a host writes when the clock is kNone
  int64_t perf_freq = 0;
  ObjectClock clock = ObjectClock::kNone;
  int64_t clock_offset = 0;  // PerfTime − the block clock it follows
  std::vector<CounterSpec> counters{};
  std::vector<InstanceLayout> instances{};
  // The busy-server shape's Thread object (busy_server.h): no instances here; the host makes
  // them from its processes (thread_table.h).
  bool generated_threads = false;
};

struct MachineLayout {
  std::string name{};         // the fixture's machine name ("kinex01")
  std::string system_name{};  // as its samples say ("KINEX01")
  int64_t perf_time = 0;      // the older sample's block clocks
  int64_t perf_freq = 0;
  int64_t perf_time_100ns = 0;
  int32_t default_object = 0;
  double pair_seconds = 0;  // the real interval its motions were read over; 0: borrowed
  std::vector<ObjectLayout> objects{};
  // "Counter 009" as the host returns it, and the names it holds.
  std::shared_ptr<const std::vector<uint8_t>> titles{};
  std::shared_ptr<const std::map<uint32_t, std::string>> names{};
  // The real pair, for comparing generated samples with it (empty for a single-sample machine).
  std::vector<uint8_t> real_older{}, real_newer{};

  // Seconds the machine had been up at its older sample (PerfTime counts from boot).
  double uptime_seconds() const {
    return perf_freq > 0 ? static_cast<double>(perf_time) / static_cast<double>(perf_freq) : 0;
  }
};

// The layout of one machine; motions of a single-sample machine stay constant until borrowed.
Result<MachineLayout> BuildMachineLayout(const RealMachine& machine);

// Gives the counters of `target` that could not be read off a pair the motions of the same
// counter (index and type) of the same object on a donor that has a pair: the donor object with
// the most instances, instance by position (_Total for _Total).
void BorrowMotions(MachineLayout& target, const std::vector<MachineLayout>& donors);

// Every real machine's layout (ReadRealMachines, BuildMachineLayout, BorrowMotions).
Result<std::vector<MachineLayout>> LoadMachineLayouts(const std::filesystem::path& fixtures_root);

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_MACHINE_LAYOUT_H_
