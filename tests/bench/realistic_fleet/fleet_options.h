// What a generated fleet looks like (FleetOptions) and what sets one host apart (HostProfile).

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_OPTIONS_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace perfhive::fleet {

struct FleetOptions {
  uint64_t seed = 1;
  int hosts = 1;
  int64_t interval_ns = 10'000'000'000;
  // The first samples' time; each host starts at a point of its own within the first interval.
  int64_t start_unix_ns = 1'767'571'200'000'000'000;  // 2026-01-05T00:00:00Z
  // The real machines hosts copy, assigned round-robin in this order; empty: every machine.
  std::vector<std::string> layouts{};
  // Processes that start on a host per minute (each a copy of one of the host's short-lived
  // processes); as many exit, on average, so the count stays near the real machine's.
  double process_starts_per_minute = 2;
  // The chance that a host's title database changes before a sample.
  double title_change_probability = 1.0 / 20'000;
  // > 0: every host this busy (1: as busy as its real machine was). 0: a mix chosen by seed:
  // 30% of the hosts idle (rates × 0.25), 50% normal (× 1), 20% busy (× 3).
  double activity = 0;
  // The share of hosts that are busy servers (busy_server.h): kinex01 grown to `busy_processes`
  // processes with `busy_threads` threads, a Global snapshot of a few hundred KB. They are spread
  // evenly (host i is one when ⌊(i + 1) × share⌋ > ⌊i × share⌋: every host at 1, every other at
  // 0.5); the other hosts copy the real machines round-robin, as without them.
  double busy_servers = 0;
  int busy_processes = 350;
  int busy_threads = 3500;
};

struct HostProfile {
  int index = 0;
  std::string name{};  // the system name its samples carry, also its replay folder's name
  int layout = 0;      // position in the generator's layouts
  double activity = 1;
  // The host's uptime at its first sample against its real machine's (cumulative counters,
  // PerfTime and start times scale with it).
  double uptime_scale = 1;
  int64_t start_filetime = 0;  // PerfTime100nSec of its first sample
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_FLEET_OPTIONS_H_
