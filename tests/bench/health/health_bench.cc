// health_bench: issue 37's figures. "The report over 1,000 hosts and 24 h is answered in under
// 2 s", and what keeping what it needs as the store writes costs the ingest.
//
// 1. A realistic Windows fleet (tests/bench/realistic_fleet, the real machines of
//    ../shared/fixtures), each host's day as five samples 6 h apart (what the report reads is one
//    inventory row per change, not per sample, so the samples between would add nothing to it),
//    with faults of the health report's kinds: every tenth host's provider goes for one sample
//    and comes back, every twentieth loses Memory for good after its second sample, every
//    fiftieth has a title database that lacks the name of % Processor Time. Labels: role by host
//    number (five roles).
// 2. Each snapshot appended to a store (a temporary directory), its title database in force.
//    Apart, on the same snapshots: the CPU of taking, encoding and hashing each one's inventory
//    (what the store does per append on the ingest's threads), and of following each host's
//    instances (InstanceGapTracker::Note, what the ingest session does per snapshot), against the
//    CPU of the whole append.
// 3. The report as the Health RPC computes it (SampleLoader::HealthHosts, then ReportHealth, peers
//    by role), `--repeats` times: wall and process CPU, median; the findings by kind.
//
//   health_bench [--hosts 1000] [--seed 1] [--repeats 3]
//
// Without the shared fixtures it says so and exits 77 (CTest's skip code).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/instance_gaps.h"
#include "perfdata/snapshot_inventory.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "query/counter_health.h"
#include "store/sample_loader.h"
#include "store/sample_time.h"
#include "store/store.h"
#include "tests/bench/process_clock.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/support/snapshot_edits.h"

#ifndef PERFHIVE_SHARED_DIR
#error "PERFHIVE_SHARED_DIR names the shared folder; tests/CMakeLists.txt sets it"
#endif

namespace perfhive::bench {
namespace {

constexpr int kSkipped = 77;
constexpr int64_t kHourNs = 3600LL * 1'000'000'000;
constexpr int kSamplesPerHost = 5;  // 0 h, 6 h, ..., 24 h

struct Options {
  int hosts = 1000;
  uint64_t seed = 1;
  int repeats = 3;
};

bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--hosts") == 0) {
      options.hosts = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--seed") == 0) {
      options.seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--repeats") == 0) {
      options.repeats = std::atoi(argv[i + 1]);
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && options.hosts > 0 && options.repeats > 0;
}

std::string RoleOf(int host) { return "role" + std::to_string(host % 5); }

// The last object of the snapshot that is neither Memory nor Processor: the one that flaps (0:
// none, or the snapshot does not open).
uint32_t FlappingObject(const std::vector<uint8_t>& raw) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) return 0;
  const SnapshotInventory inventory = InventoryOf(*reader);
  uint32_t chosen = 0;
  for (const ObjectInventory& object : inventory.objects) {
    if (object.index != title_index::kMemory && object.index != title_index::kProcessor) {
      chosen = object.index;
    }
  }
  return chosen;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int Run(const Options& options) {
  const std::filesystem::path fixtures = std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures";
  if (!std::filesystem::exists(fixtures / "realdata")) {
    std::printf("health_bench: no shared fixtures at %s: skipped\n", fixtures.c_str());
    return kSkipped;
  }
  Result<std::vector<fleet::MachineLayout>> layouts = fleet::LoadMachineLayouts(fixtures);
  if (!layouts.ok()) {
    std::fprintf(stderr, "health_bench: %s\n", layouts.error().c_str());
    return 1;
  }
  auto shared = std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(*layouts));
  fleet::FleetOptions fleet_options;
  fleet_options.seed = options.seed;
  fleet_options.hosts = options.hosts;
  fleet_options.interval_ns = 6 * kHourNs;
  fleet_options.title_change_probability = 0;
  Result<fleet::FleetGenerator> generator = fleet::FleetGenerator::Create(shared, fleet_options);
  if (!generator.ok()) {
    std::fprintf(stderr, "health_bench: %s\n", generator.error().c_str());
    return 1;
  }

  const std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("health-bench-" + std::to_string(getpid()));
  Result<std::unique_ptr<Store>> store = Store::Open(directory.string());
  if (!store.ok()) {
    std::fprintf(stderr, "health_bench: %s\n", store.error().c_str());
    return 1;
  }
  double inventory_cpu = 0, instances_cpu = 0, append_cpu = 0;
  int64_t appended = 0, raw_bytes = 0, newest_ns = 0;
  size_t hash_sum = 0;
  for (int h = 0; h < options.hosts; ++h) {
    fleet::HostSimulator simulator = generator->StartHost(h);
    const std::string host = simulator.profile().name;
    std::vector<uint8_t> titles = simulator.titles();
    if (h % 50 == 11)
      titles = *testing::TitlesWithoutName(titles, title_index::kPercentProcessorTime);
    Result<Sha256Digest> digest = (*store)->catalog().PutTitleDatabase("009", titles, {});
    if (!digest.ok()) {
      std::fprintf(stderr, "health_bench: %s\n", digest.error().c_str());
      return 1;
    }
    uint32_t flapping = 0;
    InstanceGapTracker instances;
    for (int k = 0; k < kSamplesPerHost; ++k) {
      std::vector<uint8_t> raw = simulator.Next().snapshot;
      if (k == 0) flapping = FlappingObject(raw);
      // (A machine without Memory keeps its snapshots as they are.)
      if (h % 10 == 3 && k == 2 && flapping != 0) {
        if (Result<std::vector<uint8_t>> without = testing::WithoutObject(raw, flapping);
            without.ok()) {
          raw = std::move(without).value();
        }
      }
      if (h % 20 == 7 && k >= 2) {
        if (Result<std::vector<uint8_t>> without =
                testing::WithoutObject(raw, title_index::kMemory);
            without.ok()) {
          raw = std::move(without).value();
        }
      }
      // The store opens (and so checks) every snapshot anyway: only the inventory is timed.
      Result<SnapshotReader> reader = SnapshotReader::Open(raw);
      if (!reader.ok()) {
        std::fprintf(stderr, "health_bench: %s\n", reader.error().c_str());
        return 1;
      }
      const double before_inventory = ThreadCpuSeconds();
      const std::vector<uint8_t> inventory = EncodeInventory(InventoryOf(*reader));
      const InventoryHash inventory_hash = InventoryHash::Of(inventory);
      inventory_cpu += ThreadCpuSeconds() - before_inventory;
      hash_sum += inventory_hash.hash;  // used, so that it is taken
      const double before_instances = ThreadCpuSeconds();
      const Result<int64_t> sample_ns = UnixNanosFromSystemTime(reader->system_time());
      std::vector<InstanceGap> gaps = instances.Note(*reader, sample_ns.ok() ? *sample_ns : 0);
      instances_cpu += ThreadCpuSeconds() - before_instances;
      raw_bytes += static_cast<int64_t>(raw.size());
      SnapshotToAppend append;
      append.host = host;
      append.query = "Global";
      append.instance_id = "bench";
      append.sequence = static_cast<uint64_t>(k);
      append.raw = std::move(raw);
      append.titles_in_force = {{"009", *digest}};
      append.instance_gaps = std::move(gaps);
      const double before_append = ProcessCpuSeconds();
      Result<AppendResult> stored = (*store)->Append(std::move(append));
      append_cpu += ProcessCpuSeconds() - before_append;
      if (!stored.ok()) {
        std::fprintf(stderr, "health_bench: %s\n", stored.error().c_str());
        return 1;
      }
      newest_ns = std::max(newest_ns, stored->sample_time_ns);
      ++appended;
    }
  }
  std::printf("fleet: %d hosts, %lld snapshots (%.1f KB each on average), a day each\n",
              options.hosts, static_cast<long long>(appended),
              static_cast<double>(raw_bytes) / static_cast<double>(appended) / 1024);
  std::printf(
      "inventory per snapshot: %.1f us of CPU; following its instances: %.1f us; a whole "
      "in-process append (store only): %.1f us (%.1f%% and %.1f%%)\n",
      1e6 * inventory_cpu / static_cast<double>(appended),
      1e6 * instances_cpu / static_cast<double>(appended),
      1e6 * append_cpu / static_cast<double>(appended), 100 * inventory_cpu / append_cpu,
      100 * instances_cpu / append_cpu);

  SampleLoader loader(**store);
  const query::HostLabelsLookup labels = [](const std::string& host) {
    // Generated names end in the host's number.
    size_t digits = host.find_last_not_of("0123456789") + 1;
    return query::HostLabels{{"role", RoleOf(std::atoi(host.c_str() + digits))}};
  };
  std::vector<double> walls, cpus;
  query::HealthReport report;
  size_t versions = 0;
  for (int r = 0; r < options.repeats; ++r) {
    const double wall = WallSeconds(), cpu = ProcessCpuSeconds();
    Result<std::vector<query::HealthHost>> hosts = loader.HealthHosts(newest_ns, labels);
    if (!hosts.ok()) {
      std::fprintf(stderr, "health_bench: %s\n", hosts.error().c_str());
      return 1;
    }
    query::HealthRequest request;
    request.at_ns = newest_ns;
    request.from_ns = newest_ns - query::kHealthDefaultRangeNs - kHourNs;
    report = loader.ReportHealth(request, *hosts);
    walls.push_back(WallSeconds() - wall);
    cpus.push_back(ProcessCpuSeconds() - cpu);
    versions = 0;
    for (const query::HealthHost& host : *hosts) versions += host.inventories.versions.size();
  }
  std::map<std::string, std::pair<int, int>> by_kind;  // findings, hosts
  for (const query::HealthFinding& finding : report.findings) {
    auto& [findings, hosts] = by_kind[query::HealthFindingKindName(finding.kind)];
    ++findings;
    hosts += static_cast<int>(finding.hosts.size());
  }
  std::printf("report: %zu hosts, %zu inventory rows, %zu findings\n", report.hosts.size(),
              versions, report.findings.size());
  for (const auto& [kind, counts] : by_kind) {
    std::printf("  %-22s %5d findings, %5d host entries\n", kind.c_str(), counts.first,
                counts.second);
  }
  if (std::getenv("HEALTH_BENCH_DEBUG")) {
    for (const query::HealthFinding& finding : report.findings) {
      std::printf("%s %s %s: %s\n", query::HealthFindingKindName(finding.kind),
                  finding.object.c_str(), finding.counter.c_str(), finding.hosts[0].cause.c_str());
    }
  }
  std::printf("report time, median of %d: %.3f s wall, %.3f s CPU (runs:", options.repeats,
              Median(walls), Median(cpus));
  for (double wall : walls) std::printf(" %.3f", wall);
  std::printf(")\n");
  store->reset();
  std::filesystem::remove_all(directory);
  return 0;
}

}  // namespace
}  // namespace perfhive::bench

int main(int argc, char** argv) {
  perfhive::bench::Options options;
  if (!perfhive::bench::ParseOptions(argc, argv, options)) {
    std::fprintf(stderr, "usage: health_bench [--hosts 1000] [--seed 1] [--repeats 3]\n");
    return 2;
  }
  return perfhive::bench::Run(options);
}
