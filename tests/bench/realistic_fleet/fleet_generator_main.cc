// fleet_generator: writes a generated Windows fleet as replay directories, one per host, made
// from the layouts of the real machines in ../shared/fixtures/realdata (docs/fleet_generator.md):
//
//   fleet_generator --hosts 100 --snapshots 360 --interval 10s --seed 7 --out /tmp/fleet
//   fleet_generator --hosts 10 --busy-servers 1 --out /tmp/busy   # 10 busy servers
//   perfhive-agent run --source replay --replay /tmp/fleet/KINEX01-000000
//       --host-name KINEX01-000000 --server ...
//
// --stats prints how the generated samples' compressibility compares with the real pairs'.
// Without the fixtures it says which path is missing and exits with 77 (CTest's skip code).

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "perfdata/time_text.h"
#include "tests/bench/realistic_fleet/compressibility.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/bench/realistic_fleet/real_machines.h"
#include "tests/bench/realistic_fleet/replay_writer.h"

#ifndef PERFHIVE_SHARED_DIR
#error "PERFHIVE_SHARED_DIR names the shared folder; tests/CMakeLists.txt sets it"
#endif

namespace perfhive::fleet {
namespace {

namespace fs = std::filesystem;

constexpr int kSkipped = 77;

struct Arguments {
  FleetOptions fleet;
  int64_t snapshots = 10;
  std::string interval = "10s";
  std::string start;
  std::string out;
  std::string fixtures = (fs::path(PERFHIVE_SHARED_DIR) / "fixtures").string();
  bool stats = false;
  int stats_pairs = 20;
};

// Writes every host's samples; prints what was written and how fast it was generated.
int WriteFleet(const FleetGenerator& fleet, const Arguments& arguments) {
  using Clock = std::chrono::steady_clock;
  const fs::path out(arguments.out);
  std::error_code error;
  fs::create_directories(out, error);
  if (error) {
    std::fprintf(stderr, "fleet_generator: cannot create %s: %s\n", out.c_str(),
                 error.message().c_str());
    return 1;
  }
  std::ofstream manifest(out / "fleet.tsv");
  manifest << "host\tmachine\tactivity\tuptime_scale\ttitle_changes\n";
  Clock::duration generating{};
  const Clock::time_point began = Clock::now();
  uint64_t bytes = 0;
  for (int h = 0; h < fleet.hosts(); ++h) {
    HostSimulator host = fleet.StartHost(h);
    Result<ReplayWriter> writer =
        ReplayWriter::Create(out, host.profile().name, host.titles(), arguments.snapshots);
    if (!writer.ok()) {
      std::fprintf(stderr, "fleet_generator: %s\n", writer.error().c_str());
      return 1;
    }
    int title_changes = 0;
    for (int64_t k = 0; k < arguments.snapshots; ++k) {
      const Clock::time_point before = Clock::now();
      GeneratedSample sample = host.Next();
      generating += Clock::now() - before;
      bytes += sample.snapshot.size();
      title_changes += sample.titles_changed;
      Status written = writer->Write(sample.snapshot, sample.titles_changed, host.titles());
      if (!written.ok()) {
        std::fprintf(stderr, "fleet_generator: %s\n", written.message().c_str());
        return 1;
      }
    }
    manifest << host.profile().name << '\t' << fleet.layout_of(h).name << '\t'
             << host.profile().activity << '\t' << host.profile().uptime_scale << '\t'
             << title_changes << '\n';
  }
  manifest.close();
  if (!manifest) {
    std::fprintf(stderr, "fleet_generator: cannot write %s\n", (out / "fleet.tsv").c_str());
    return 1;
  }
  const double total = std::chrono::duration<double>(Clock::now() - began).count();
  const double generated = std::chrono::duration<double>(generating).count();
  const double count =
      static_cast<double>(fleet.hosts()) * static_cast<double>(arguments.snapshots);
  std::printf(
      "wrote %d hosts x %lld snapshots (%.1f MB) to %s\n"
      "generation: %.0f snapshots/s, %.1f MB/s (%.3f s); with writing: %.0f snapshots/s\n",
      fleet.hosts(), static_cast<long long>(arguments.snapshots), static_cast<double>(bytes) / 1e6,
      out.c_str(), count / generated, static_cast<double>(bytes) / 1e6 / generated, generated,
      count / total);
  std::printf(
      "feed one host to a server: perfhive-agent run --source replay --replay %s "
      "--host-name %s ...\n",
      (out / fleet.profile(0).name).c_str(), fleet.profile(0).name.c_str());
  return 0;
}

int PrintStats(const std::shared_ptr<const std::vector<MachineLayout>>& layouts,
               const Arguments& arguments) {
  std::vector<MachineComparison> rows;
  for (size_t m = 0; m < layouts->size(); ++m) {
    if ((*layouts)[m].real_older.empty()) continue;
    Result<MachineComparison> row =
        CompareWithRealPair(layouts, m, arguments.fleet.seed, arguments.stats_pairs);
    if (!row.ok()) {
      std::fprintf(stderr, "fleet_generator: %s\n", row.error().c_str());
      return 1;
    }
    rows.push_back(std::move(row).value());
  }
  std::printf("%s", FormatComparison(rows).c_str());
  return 0;
}

// Takes a parsed time into `out`, or says what is wrong with the flag's value.
bool ParseTime(const char* flag, const Result<int64_t>& parsed, int64_t* out) {
  if (!parsed.ok()) {
    std::fprintf(stderr, "fleet_generator: %s: %s\n", flag, parsed.error().c_str());
    return false;
  }
  *out = *parsed;
  return true;
}

int Run(const Arguments& arguments) {
  const fs::path fixtures(arguments.fixtures);
  if (!fs::exists(FirstRealMachineFile(fixtures))) {
    std::fprintf(stderr,
                 "fleet_generator: no real machine fixtures at %s (../shared is not part of "
                 "every clone; --fixtures names another folder)\n",
                 FirstRealMachineFile(fixtures).c_str());
    return kSkipped;
  }
  Result<std::vector<MachineLayout>> loaded = LoadMachineLayouts(fixtures);
  if (!loaded.ok()) {
    std::fprintf(stderr, "fleet_generator: %s\n", loaded.error().c_str());
    return 1;
  }
  auto layouts = std::make_shared<const std::vector<MachineLayout>>(std::move(loaded).value());

  FleetOptions options = arguments.fleet;
  if (!ParseTime("--interval", ParseSpan(arguments.interval), &options.interval_ns)) return 2;
  if (!arguments.start.empty() &&
      !ParseTime("--start", ParseRfc3339(arguments.start), &options.start_unix_ns)) {
    return 2;
  }
  if (!arguments.out.empty()) {
    Result<FleetGenerator> fleet = FleetGenerator::Create(layouts, options);
    if (!fleet.ok()) {
      std::fprintf(stderr, "fleet_generator: %s\n", fleet.error().c_str());
      return 2;
    }
    if (int code = WriteFleet(*fleet, arguments); code != 0) return code;
  }
  return arguments.stats ? PrintStats(layouts, arguments) : 0;
}

}  // namespace
}  // namespace perfhive::fleet

int main(int argc, char** argv) {
  perfhive::fleet::Arguments arguments;
  CLI::App app{
      "Writes a generated Windows fleet, made from real machines' layouts, as replay "
      "directories (one per host)"};
  app.add_option("--hosts", arguments.fleet.hosts, "Hosts in the fleet")
      ->check(CLI::PositiveNumber);
  app.add_option("--snapshots", arguments.snapshots, "Samples per host")
      ->check(CLI::PositiveNumber);
  app.add_option("--interval", arguments.interval, "Time between a host's samples (10s, 500ms)");
  app.add_option("--seed", arguments.fleet.seed, "The same seed writes the same bytes");
  app.add_option("--out", arguments.out, "Folder for the hosts' replay directories");
  app.add_option("--start", arguments.start,
                 "Time of the first samples, RFC 3339 (default 2026-01-05T00:00:00Z)");
  app.add_option("--layouts", arguments.fleet.layouts,
                 "Real machines to copy, round-robin (default all: kinex01, s-exch2007-64, "
                 "win2003, wprepw01, wrxxcrpisax01, getaway)")
      ->delimiter(',');
  app.add_option("--process-starts-per-minute", arguments.fleet.process_starts_per_minute,
                 "Processes started (and, on average, exited) per host and minute");
  app.add_option("--title-change-probability", arguments.fleet.title_change_probability,
                 "Chance that a host's title database changes before a sample");
  app.add_option("--activity", arguments.fleet.activity,
                 "Every host this busy (1: as its real machine); default a mix of idle, normal "
                 "and busy hosts");
  app.add_option("--busy-servers", arguments.fleet.busy_servers,
                 "Share of the hosts that are busy servers: kinex01 with a few hundred processes "
                 "and a Thread object of a few thousand threads, a few hundred KB a sample "
                 "(0 to 1; default 0)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--busy-processes", arguments.fleet.busy_processes,
                 "Processes of a busy server (default 350)")
      ->check(CLI::PositiveNumber);
  app.add_option("--busy-threads", arguments.fleet.busy_threads,
                 "Threads of a busy server (default 3500)")
      ->check(CLI::PositiveNumber);
  app.add_option("--fixtures", arguments.fixtures, "The shared fixtures folder");
  app.add_flag("--stats", arguments.stats,
               "Print the compressibility of generated samples against the real pairs");
  app.add_option("--stats-pairs", arguments.stats_pairs, "Generated pairs per machine for --stats")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (arguments.out.empty() && !arguments.stats) {
    std::fprintf(stderr, "fleet_generator: nothing to do: give --out DIR, --stats, or both\n");
    return 2;
  }
  return perfhive::fleet::Run(arguments);
}
