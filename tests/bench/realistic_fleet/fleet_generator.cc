#include "tests/bench/realistic_fleet/fleet_generator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>

#include "sources/procfs/sample_clock.h"
#include "tests/bench/realistic_fleet/busy_server.h"
#include "tests/bench/realistic_fleet/fleet_random.h"

namespace perfhive::fleet {
namespace {

// Streams of the seed: profiles and hosts draw from sequences of their own.
constexpr uint64_t kProfileStream = 0x5052'4F46'494C'4500ull;  // "PROFILE"
constexpr uint64_t kHostStream = 0x484F'5354'0000'0000ull;     // "HOST"

// Uptimes from a twentieth to twice the real machine's, spread evenly on a log scale.
constexpr double kShortestUptime = 0.05;
constexpr double kLongestUptime = 2.0;

// "KINEX01-000003": the machine's name in capitals, cut to 8 characters, and the host's number;
// 15 characters, the longest NetBIOS computer name, up to a million hosts.
std::string HostName(const std::string& machine, int index) {
  std::string prefix;
  for (char c : machine.substr(0, 8)) {
    prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  while (!prefix.empty() && prefix.back() == '-') prefix.pop_back();
  char number[16];
  std::snprintf(number, sizeof number, "-%06d", index);
  return prefix + number;
}

// Whether host `index` is a busy server: `share` of the hosts, spread evenly, the same host
// whatever the fleet's size.
bool IsBusyServer(int index, double share) {
  if (!(share > 0)) return false;
  return std::floor(static_cast<double>(index + 1) * share) >
         std::floor(static_cast<double>(index) * share);
}

}  // namespace

Result<FleetGenerator> FleetGenerator::Create(
    std::shared_ptr<const std::vector<MachineLayout>> layouts, FleetOptions options) {
  if (options.hosts < 1) return Status::InvalidArgument("fleet: at least one host is needed");
  if (options.interval_ns <= 0) return Status::InvalidArgument("fleet: the interval must be > 0");
  std::vector<int> chosen;
  if (options.layouts.empty()) {
    for (size_t i = 0; i < layouts->size(); ++i) chosen.push_back(static_cast<int>(i));
  }
  for (const std::string& name : options.layouts) {
    auto found = std::find_if(layouts->begin(), layouts->end(),
                              [&](const MachineLayout& layout) { return layout.name == name; });
    if (found == layouts->end()) {
      std::string known;
      for (const MachineLayout& layout : *layouts) known += " " + layout.name;
      return Status::InvalidArgument("fleet: no real machine named '" + name + "'; there are" +
                                     known);
    }
    chosen.push_back(static_cast<int>(found - layouts->begin()));
  }
  if (chosen.empty()) return Status::InvalidArgument("fleet: no real machine to copy");
  if (options.busy_servers < 0 || options.busy_servers > 1) {
    return Status::InvalidArgument("fleet: the share of busy servers is between 0 and 1");
  }

  // Busy servers copy a layout of their own, made once for the fleet, after the real ones.
  std::optional<int> busy_layout;
  if (options.busy_servers > 0) {
    auto base = std::find_if(layouts->begin(), layouts->end(), [](const MachineLayout& layout) {
      return layout.name == kBusyServerBase;
    });
    if (base == layouts->end()) {
      return Status::InvalidArgument(std::string("fleet: busy servers copy ") + kBusyServerBase +
                                     ", which is not among the real machines");
    }
    Result<MachineLayout> busy = MakeBusyServerLayout(
        *base, {.processes = options.busy_processes, .threads = options.busy_threads},
        options.seed);
    if (!busy.ok()) return busy.status();
    auto extended = std::make_shared<std::vector<MachineLayout>>(*layouts);
    extended->push_back(std::move(busy).value());
    busy_layout = static_cast<int>(extended->size() - 1);
    layouts = std::move(extended);
  }

  std::vector<HostProfile> profiles;
  for (int i = 0; i < options.hosts; ++i) {
    FleetRandom random(options.seed, kProfileStream + static_cast<uint64_t>(i));
    HostProfile profile{.index = i, .layout = chosen[static_cast<size_t>(i) % chosen.size()]};
    if (busy_layout.has_value() && IsBusyServer(i, options.busy_servers)) {
      profile.layout = *busy_layout;
    }
    profile.name = HostName((*layouts)[static_cast<size_t>(profile.layout)].name, i);
    const double pick = random.Uniform();
    profile.activity = options.activity > 0 ? options.activity
                       : pick < 0.3         ? 0.25
                       : pick < 0.8         ? 1.0
                                            : 3.0;
    profile.uptime_scale =
        kShortestUptime * std::exp(random.Uniform() * std::log(kLongestUptime / kShortestUptime));
    const int64_t phase =
        static_cast<int64_t>(random.Below(static_cast<uint64_t>(options.interval_ns)));
    const int64_t start = options.start_unix_ns + phase;
    profile.start_filetime = start / 100 + kFiletimeUnixEpochSeconds * 10'000'000;
    profiles.push_back(std::move(profile));
  }
  return FleetGenerator(std::move(layouts), std::move(options), std::move(profiles));
}

HostSimulator FleetGenerator::StartHost(int host) const {
  return HostSimulator(layouts_, profile(host), options_, options_.seed ^ kHostStream);
}

}  // namespace perfhive::fleet
