// rules_bench: issue 36's figure, "100 rules evaluated against 1,000 hosts' live ingest cost
// under 5% of the ingest CPU", measured in one process on one store.
//
// 1. A store (temporary directory, the server's 5 ms group commit) is filled with a realistic
//    Windows fleet (tests/bench/realistic_fleet, the real machines of ../shared/fixtures) at one
//    snapshot per host every 10 s. Each snapshot goes through what an ingest session does with
//    it (server/ingest/ingest_session.cc HandleSnapshot), in process: the agent's message parsed
//    from its bytes, restored from its delta against the stream's previous snapshot and checked
//    against its SHA-256 (SnapshotRestorer), opened, its sample time read, its title databases in
//    force noted, and appended (Store::AppendAsync), waiting for every append of a round to be
//    durable. gRPC and the acknowledgements are not in it: the in-process figure is lower than
//    the server's end to end one (docs/capacity.md, (e): 0.33-0.44 ms per realistic snapshot),
//    so the ratio printed against it is the pessimistic one, and the ratio against the end to end
//    figure is printed beside it. The agents' side (generating, encoding) is outside the clock.
// 2. 100 rules (RuleBook TOML, made below): well-known Windows thresholds over 12 distinct paths,
//    20 fleet-wide, 50 per role, 18 per site, with durations from none to 10 minutes, and 12
//    aggregates (p95, p99, avg, min, max, sum) by host, role and site at 15 s and 1 m steps.
//    Hosts' labels: role (5) and site (3) by host number. The six real machines do not all have
//    every object (Process on half of them), so some rules select nothing on some hosts, which
//    the reports count; --layouts kinex01,wprepw01 makes a fleet where every path selects.
// 3. The rules are evaluated as the server's alerting loop does (server/app/server_process.cc
//    OpenAlerting): Alerting (the rules file, the evaluator, alerts.db; no Alertmanager) over a
//    ReadEngine over a SampleLoader on the store, hosts' labels from a HostLabelDirectory. "Now"
//    starts a few seconds after the newest sample and advances 15 s per evaluation; before each,
//    the rounds of snapshots taken by then are ingested (1.5 rounds per evaluation), so the
//    store grows live. The first evaluation (which reads each rule's duration further back) is
//    reported apart. Each evaluation's process CPU time (every thread: the reads run on up to
//    8) and wall time are measured, and each rule's read inside it (the read function is
//    wrapped), which splits the time between reads and the evaluator's own work.
// 4. At the last "now", the same store: the 100 rules' reads alone, one read per distinct path
//    (over the longest window any rule of the path needs, every host, no aggregate), and one read
//    of every distinct path at once: what batching the rules by path would save. And one rule
//    alone in an evaluator of its own.
// 5. A tap on the ingest instead of reads: every distinct path's series computed from each host's
//    newest two snapshots in memory with the engine's AddHostSeries (no store), per snapshot:
//    what evaluating the rules from what the ingest has in hand would cost with today's code.
//
//   rules_bench [--hosts 1000] [--fill-samples 24] [--evaluations 8] [--seed 1]
//               [--layouts kinex01,wprepw01] [--repeats 3] [--print-rules] [--no-live]
//
// By default the rules' paths are followed as the server follows them (query/live_series.h): each
// snapshot's values noted at ingest, in the ingest's figure, and the evaluations' reads answered
// from them; --no-live reads every evaluation's window from the store, as before.
//
// Without the shared fixtures it says so and exits 77 (CTest's skip code). Times are CPU of the
// whole process (CLOCK_PROCESS_CPUTIME_ID) and wall; the machine's other work shows in wall.

#include <time.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/counter_path.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "perfhive/v1/ingest.pb.h"
#include "port/env.h"
#include "port/sha256.h"
#include "query/host_samples.h"
#include "query/read_engine.h"
#include "query/series_query.h"
#include "server/alerts/alerting.h"
#include "server/alerts/rule_book.h"
#include "server/log/server_log.h"
#include "server/policies/host_labels.h"
#include "store/sample_loader.h"
#include "store/sample_time.h"
#include "store/store.h"
#include "tests/bench/countdown.h"
#include "tests/bench/process_clock.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/bench/realistic_fleet/real_machines.h"
#include "wire/snapshot_restorer.h"
#include "wire/title_digest.h"

#ifndef PERFHIVE_SHARED_DIR
#error "PERFHIVE_SHARED_DIR names the shared folder; tests/CMakeLists.txt sets it"
#endif

namespace perfhive::bench {
namespace {

namespace v1 = perfhive::v1;

constexpr int kSkipped = 77;
constexpr int64_t kSecond = 1'000'000'000;
// The server's group commit (server/app/server_process.cc kCommitInterval).
constexpr std::chrono::milliseconds kCommitInterval{5};
// How long after the newest round the first evaluation runs.
constexpr int64_t kNowAfterNewestNs = 2 * kSecond;
// The ingest session's limit on a restored snapshot (server default --max-snapshot-bytes).
constexpr size_t kMaxSnapshotBytes = 64u << 20;

struct Options {
  int hosts = 1000;
  int fill_samples = 24;  // before the first evaluation: 4 minutes, the 1 m aggregates' window
  int evaluations = 8;    // the first and 7 steady ones
  uint64_t seed = 1;
  std::vector<std::string> layouts;  // empty: all six real machines, round-robin
  int repeats = 3;                   // of each read pass at the end (the median is printed)
  bool print_rules = false;
  bool live = true;  // the rules' paths followed as samples are ingested (query/live_series.h)
};

std::filesystem::path FixturesRoot() {
  return std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures";
}

struct Usage {
  double cpu = 0;   // seconds
  double wall = 0;  // seconds
  Usage& operator+=(const Usage& other) {
    cpu += other.cpu;
    wall += other.wall;
    return *this;
  }
};

class Stopwatch {
 public:
  Stopwatch() : cpu_(ProcessCpuSeconds()), wall_(WallSeconds()) {}
  Usage Elapsed() const { return {ProcessCpuSeconds() - cpu_, WallSeconds() - wall_}; }

 private:
  double cpu_, wall_;
};

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string AsString(std::span<const uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// ---------------------------------------------------------------------------------------------
// The fleet and its ingest.

const char* const kRoles[] = {"web", "sql", "app", "dc", "file"};
const char* const kSites[] = {"ams", "fra", "nyc"};

query::HostLabels LabelsOfHost(int index) {
  return {{"role", kRoles[index % 5]}, {"site", kSites[index % 3]}};
}

// One host: its agent's side (the simulator, the previous raw snapshot its next delta is made
// against) and its ingest session's (the restorer, the title databases it knows and has in
// force).
struct FleetHost {
  fleet::HostSimulator simulator;
  std::string name;
  std::string instance_id;
  uint64_t sequence = 0;
  std::vector<uint8_t> previous{};  // the agent's
  // The newest two samples and their times, for the tap measured at the end (not the ingest's).
  std::shared_ptr<const std::vector<uint8_t>> newest{}, before_newest{};
  int64_t newest_ns = 0, before_newest_ns = 0;
  Sha256Digest titles{};  // the agent's database's digest
  SnapshotRestorer restorer{kMaxSnapshotBytes};
  std::set<Sha256Digest> known_titles{};  // the session's
  std::optional<Sha256Digest> in_force{};
};

// One round's messages as the agents send them: an AgentMessage per host, serialized; a title
// database's message first where the host's database changed.
struct Round {
  std::vector<std::string> titles;  // per host; empty: unchanged
  std::vector<std::string> snapshots;
  int64_t newest_sample_ns = 0;
  uint64_t raw_bytes = 0;
};

Round MakeRound(std::vector<FleetHost>& hosts) {
  Round round;
  round.titles.resize(hosts.size());
  round.snapshots.resize(hosts.size());
  for (size_t h = 0; h < hosts.size(); ++h) {
    FleetHost& host = hosts[h];
    fleet::GeneratedSample sample = host.simulator.Next();
    const bool first = host.sequence == 0;
    if (first || sample.titles_changed) {
      const std::vector<uint8_t>& counters = host.simulator.titles();
      host.titles = TitleDigest("009", counters, {});
      v1::AgentMessage message;
      message.mutable_titles()->set_language("009");
      message.mutable_titles()->set_counters(AsString(counters));
      message.mutable_titles()->set_sha256(AsString(host.titles));
      round.titles[h] = message.SerializeAsString();
    }
    const std::vector<uint8_t>& raw = sample.snapshot;
    v1::AgentMessage message;
    v1::Snapshot* snapshot = message.mutable_snapshot();
    snapshot->set_instance_id(host.instance_id);
    snapshot->set_sequence(host.sequence + 1);
    snapshot->set_query("Global");
    snapshot->set_encoding(first ? v1::ENCODING_ZSTD : v1::ENCODING_DELTA_ZSTD);
    snapshot->set_base_sequence(host.sequence);
    snapshot->set_payload(
        AsString(EncodeDelta(first ? std::span<const uint8_t>() : host.previous, raw)));
    snapshot->set_raw_size(static_cast<uint32_t>(raw.size()));
    snapshot->set_sha256(AsString(Sha256(raw)));
    v1::TitleDigest* digest = snapshot->add_titles();
    digest->set_language("009");
    digest->set_sha256(AsString(host.titles));
    round.snapshots[h] = message.SerializeAsString();
    round.raw_bytes += raw.size();
    Result<SnapshotReader> reader = SnapshotReader::Open(raw);
    if (reader.ok()) {
      Result<int64_t> time = UnixNanosFromSystemTime(reader->system_time());
      if (time.ok()) {
        round.newest_sample_ns = std::max(round.newest_sample_ns, *time);
        host.before_newest_ns = host.newest_ns;
        host.newest_ns = *time;
      }
    }
    host.before_newest = std::move(host.newest);
    host.newest = std::make_shared<const std::vector<uint8_t>>(raw);
    host.previous = raw;
    ++host.sequence;
  }
  return round;
}

std::optional<Sha256Digest> DigestOf(const std::string& bytes) {
  if (bytes.size() != 32) return std::nullopt;
  Sha256Digest digest;
  std::memcpy(digest.data(), bytes.data(), 32);
  return digest;
}

// What the ingest sessions do with one round: each host's messages in turn (the server spreads
// them over gRPC's threads; the CPU is the same), each snapshot noted into `live` with the one
// before it (named by `loader`'s title databases) when given, then every append made durable. False
// if one failed.
bool IngestRound(Store& store, std::vector<FleetHost>& hosts, const Round& round,
                 query::LiveSeries* live, SampleLoader& loader) {
  Countdown countdown;
  countdown.Add(static_cast<int>(hosts.size()));
  // One host's messages; false (and its append counted as failed) if refused.
  auto ingest = [&](size_t h) -> bool {
    FleetHost& host = hosts[h];
    if (!round.titles[h].empty()) {  // HandleTitles
      v1::AgentMessage message;
      if (!message.ParseFromString(round.titles[h])) return false;
      const v1::TitleDatabase& titles = message.titles();
      auto counters = std::span(reinterpret_cast<const uint8_t*>(titles.counters().data()),
                                titles.counters().size());
      if (DigestOf(titles.sha256()) != TitleDigest(titles.language(), counters, {})) return false;
      Result<Sha256Digest> stored =
          store.catalog().PutTitleDatabase(titles.language(), counters, {});
      if (!stored.ok()) return false;
      host.known_titles.insert(*stored);
    }
    v1::AgentMessage message;  // HandleSnapshot
    if (!message.ParseFromString(round.snapshots[h])) return false;
    const v1::Snapshot& snapshot = message.snapshot();
    std::vector<uint8_t> previous;
    Result<std::vector<uint8_t>> raw = host.restorer.Restore(snapshot, &previous);
    if (!raw.ok()) {
      std::fprintf(stderr, "rules_bench: %s: %s\n", host.name.c_str(), raw.error().c_str());
      return false;
    }
    Result<SnapshotReader> reader = SnapshotReader::Open(*raw);
    if (!reader.ok()) return false;
    Result<int64_t> sample_ns = UnixNanosFromSystemTime(reader->system_time());
    if (!sample_ns.ok()) return false;
    std::vector<std::pair<std::string, Sha256Digest>> titles_changed;  // ApplyTitles
    for (const v1::TitleDigest& titles : snapshot.titles()) {
      std::optional<Sha256Digest> digest = DigestOf(titles.sha256());
      if (!digest || !host.known_titles.contains(*digest)) return false;
      if (host.in_force == digest) continue;
      titles_changed.emplace_back(titles.language(), *digest);
      host.in_force = digest;
    }
    if (live != nullptr && live->following()) {  // IngestSession::NoteLive
      auto lent = [](const std::vector<uint8_t>& bytes) {
        return std::shared_ptr<const std::vector<uint8_t>>(std::shared_ptr<const void>(), &bytes);
      };
      query::HostSample current{*sample_ns, lent(*raw),
                                host.in_force ? loader.Titles(*host.in_force) : nullptr, nullptr,
                                snapshot.query()};
      std::optional<query::HostSample> before;
      if (Result<SnapshotReader> older = SnapshotReader::Open(previous);
          !previous.empty() && older.ok()) {
        if (Result<int64_t> older_ns = UnixNanosFromSystemTime(older->system_time());
            older_ns.ok()) {
          before = current;
          before->time_ns = *older_ns;
          before->bytes = lent(previous);
        }
      }
      live->Note(host.name, before ? &*before : nullptr, current);
    }
    SnapshotToAppend append{.host = host.name,
                            .query = snapshot.query(),
                            .instance_id = snapshot.instance_id(),
                            .sequence = snapshot.sequence(),
                            .receive_time_ns = 0,
                            .raw = std::move(raw).value(),
                            .sha256 = DigestOf(snapshot.sha256()),
                            .titles_in_force = std::move(titles_changed)};
    store.AppendAsync(std::move(append),
                      [&countdown](Result<AppendResult> r) { countdown.Done(r.ok()); });
    return true;
  };
  for (size_t h = 0; h < hosts.size(); ++h) {
    if (!ingest(h)) countdown.Done(false);
  }
  return countdown.Wait() == 0;
}

// ---------------------------------------------------------------------------------------------
// The rules.

struct RuleSpec {
  std::string name{};
  std::string path{};
  std::string condition{};
  std::string for_span{};  // "": none
  std::string severity = "warning";
  std::string hosts{};
  std::string aggregate{};
  std::string by{};
  std::string step{};
  std::string summary{};
};

// Literal strings for TOML: single quotes keep the backslashes.
std::string TomlLiteral(const std::string& text) { return "'" + text + "'"; }

std::string RuleToml(const RuleSpec& rule) {
  std::string toml =
      "[[rule]]\nname = \"" + rule.name + "\"\npath = " + TomlLiteral(rule.path) + "\n";
  if (!rule.hosts.empty()) toml += "hosts = \"" + rule.hosts + "\"\n";
  if (!rule.aggregate.empty()) toml += "aggregate = \"" + rule.aggregate + "\"\n";
  if (!rule.by.empty()) toml += "by = \"" + rule.by + "\"\n";
  if (!rule.step.empty()) toml += "step = \"" + rule.step + "\"\n";
  toml += "condition = \"" + rule.condition + "\"\n";
  if (!rule.for_span.empty()) toml += "for = \"" + rule.for_span + "\"\n";
  toml += "severity = \"" + rule.severity + "\"\n";
  toml += "labels = { team = \"windows\" }\n";
  toml += "summary = \"" +
          (rule.summary.empty() ? rule.name + ": {path} is {value} (threshold {threshold})"
                                : rule.summary) +
          "\"\n\n";
  return toml;
}

// The paths (12): what Windows administrators alert on, the starter file's
// (packaging/config/rules.toml) and a few more.
const std::string kCpu = "\\Processor(_Total)\\% Processor Time";
const std::string kCpuQueue = "\\System\\Processor Queue Length";
const std::string kAvailable = "\\Memory\\Available MBytes";
const std::string kCommitted = "\\Memory\\% Committed Bytes In Use";
const std::string kPages = "\\Memory\\Pages/sec";
const std::string kPagingFile = "\\Paging File(_Total)\\% Usage";
const std::string kDiskRead = "\\LogicalDisk(*:)\\Avg. Disk sec/Read";
const std::string kDiskWrite = "\\LogicalDisk(*:)\\Avg. Disk sec/Write";
const std::string kFreeSpace = "\\LogicalDisk(*:)\\% Free Space";
const std::string kDiskQueue = "\\PhysicalDisk(*)\\Current Disk Queue Length";
const std::string kProcessCpu = "\\Process(*)\\% Processor Time";
const std::string kNetBytes = "\\Network Interface(*)\\Bytes Total/sec";

std::vector<RuleSpec> MakeRules() {
  std::vector<RuleSpec> rules;
  auto add = [&](RuleSpec rule) { rules.push_back(std::move(rule)); };
  // Fleet-wide (20).
  add({.name = "ProcessorBusy", .path = kCpu, .condition = "> 85", .for_span = "5m"});
  add({.name = "ProcessorSaturated",
       .path = kCpu,
       .condition = "> 95",
       .for_span = "2m",
       .severity = "critical"});
  add({.name = "ProcessorQueueLong", .path = kCpuQueue, .condition = "> 20", .for_span = "5m"});
  add({.name = "MemoryAvailableLow",
       .path = kAvailable,
       .condition = "< 100",
       .for_span = "5m",
       .severity = "critical"});
  add({.name = "MemoryAvailableWarn", .path = kAvailable, .condition = "< 500", .for_span = "10m"});
  add({.name = "CommittedMemoryHigh", .path = kCommitted, .condition = "> 80", .for_span = "10m"});
  add({.name = "CommittedMemoryCritical",
       .path = kCommitted,
       .condition = "> 95",
       .for_span = "2m",
       .severity = "critical"});
  add({.name = "PagingHigh",
       .path = kPages,
       .condition = "> 20",
       .for_span = "10m",
       .severity = "info"});
  add({.name = "PagingStorm", .path = kPages, .condition = "> 1000", .for_span = "1m"});
  add({.name = "PagingFileUsageHigh", .path = kPagingFile, .condition = "> 70", .for_span = "10m"});
  add({.name = "DiskReadLatencyHigh",
       .path = kDiskRead,
       .condition = "> 0.020",
       .for_span = "10m"});
  add({.name = "DiskWriteLatencyHigh",
       .path = kDiskWrite,
       .condition = "> 0.020",
       .for_span = "10m"});
  add({.name = "DiskReadLatencyCritical",
       .path = kDiskRead,
       .condition = "> 0.050",
       .for_span = "5m",
       .severity = "critical"});
  add({.name = "DiskWriteLatencyCritical",
       .path = kDiskWrite,
       .condition = "> 0.050",
       .for_span = "5m",
       .severity = "critical"});
  add({.name = "DiskQueueLong", .path = kDiskQueue, .condition = "> 2", .for_span = "5m"});
  add({.name = "DiskFreeLow", .path = kFreeSpace, .condition = "< 10", .for_span = "5m"});
  add({.name = "DiskFreeCritical", .path = kFreeSpace, .condition = "< 5", .severity = "critical"});
  add({.name = "ProcessHog", .path = kProcessCpu, .condition = "> 90", .for_span = "5m"});
  add({.name = "NetworkBusy", .path = kNetBytes, .condition = "> 100000000", .for_span = "5m"});
  add({.name = "ProcessorBusyNow", .path = kCpu, .condition = ">= 99"});
  // Per role (5 × 10 = 50): each role's own thresholds.
  struct RoleThresholds {
    const char* role;
    const char* cpu;
    const char* available;
    const char* pages;
    const char* disk_read;
    const char* disk_queue;
    const char* cpu_queue;
    const char* process;
    const char* net;
    const char* committed;
    const char* free_space;
  };
  const RoleThresholds roles[] = {{"web", "> 75", "< 1024", "> 50", "> 0.015", "> 4", "> 10",
                                   "> 80", "> 50000000", "> 85", "< 15"},
                                  {"sql", "> 80", "< 2048", "> 100", "> 0.010", "> 8", "> 12",
                                   "> 90", "> 80000000", "> 90", "< 20"},
                                  {"app", "> 85", "< 512", "> 200", "> 0.025", "> 4", "> 16",
                                   "> 75", "> 30000000", "> 85", "< 10"},
                                  {"dc", "> 60", "< 256", "> 20", "> 0.020", "> 2", "> 8", "> 50",
                                   "> 10000000", "> 75", "< 25"},
                                  {"file", "> 70", "< 512", "> 500", "> 0.030", "> 16", "> 10",
                                   "> 60", "> 200000000", "> 80", "< 5"}};
  const char* const durations[] = {"5m", "10m", "2m", "1m", "5m"};
  int r = 0;
  for (const RoleThresholds& t : roles) {
    const std::string role = t.role;
    const std::string hosts = "role=" + role;
    const std::string span = durations[r++];
    std::string suffix = role;
    suffix[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    add({.name = "Processor" + suffix,
         .path = kCpu,
         .condition = t.cpu,
         .for_span = span,
         .hosts = hosts});
    add({.name = "Memory" + suffix,
         .path = kAvailable,
         .condition = t.available,
         .for_span = span,
         .hosts = hosts});
    add({.name = "Paging" + suffix,
         .path = kPages,
         .condition = t.pages,
         .for_span = "10m",
         .hosts = hosts});
    add({.name = "DiskRead" + suffix,
         .path = kDiskRead,
         .condition = t.disk_read,
         .for_span = span,
         .hosts = hosts});
    add({.name = "DiskQueue" + suffix,
         .path = kDiskQueue,
         .condition = t.disk_queue,
         .for_span = span,
         .hosts = hosts});
    add({.name = "ProcessorQueue" + suffix,
         .path = kCpuQueue,
         .condition = t.cpu_queue,
         .for_span = span,
         .hosts = hosts});
    add({.name = "ProcessHog" + suffix,
         .path = kProcessCpu,
         .condition = t.process,
         .for_span = "10m",
         .hosts = hosts});
    add({.name = "Network" + suffix,
         .path = kNetBytes,
         .condition = t.net,
         .for_span = span,
         .hosts = hosts});
    add({.name = "Committed" + suffix,
         .path = kCommitted,
         .condition = t.committed,
         .for_span = "10m",
         .hosts = hosts});
    add({.name = "DiskFree" + suffix,
         .path = kFreeSpace,
         .condition = t.free_space,
         .hosts = hosts});
  }
  // Aggregates (12): p95, p99, avg, max, sum by host, role and site, at the interval and at 1m.
  add({.name = "RoleProcessorP95",
       .path = kCpu,
       .condition = "> 80",
       .for_span = "10m",
       .aggregate = "p95",
       .by = "role",
       .step = "1m"});
  add({.name = "SiteDiskReadP95",
       .path = kDiskRead,
       .condition = "> 0.020",
       .for_span = "10m",
       .aggregate = "p95",
       .by = "site",
       .step = "1m"});
  add({.name = "HostDiskReadP95",
       .path = kDiskRead,
       .condition = "> 0.030",
       .for_span = "5m",
       .aggregate = "p95",
       .by = "host"});
  add({.name = "HostDiskWriteP95",
       .path = kDiskWrite,
       .condition = "> 0.030",
       .for_span = "5m",
       .aggregate = "p95",
       .by = "host"});
  add({.name = "SiteMemoryAvg",
       .path = kAvailable,
       .condition = "< 1000",
       .for_span = "5m",
       .aggregate = "avg",
       .by = "site"});
  add({.name = "HostProcessMax",
       .path = kProcessCpu,
       .condition = "> 95",
       .for_span = "5m",
       .aggregate = "max",
       .by = "host"});
  add({.name = "HostNetworkSum",
       .path = kNetBytes,
       .condition = "> 200000000",
       .for_span = "5m",
       .aggregate = "sum",
       .by = "host"});
  add({.name = "RoleCpuQueueP95",
       .path = kCpuQueue,
       .condition = "> 10",
       .for_span = "5m",
       .aggregate = "p95",
       .by = "role"});
  add({.name = "SiteDiskQueueP99",
       .path = kDiskQueue,
       .condition = "> 4",
       .for_span = "5m",
       .aggregate = "p99",
       .by = "site",
       .step = "1m"});
  add({.name = "RolePagingAvg",
       .path = kPages,
       .condition = "> 500",
       .for_span = "10m",
       .aggregate = "avg",
       .by = "role",
       .step = "1m"});
  add({.name = "WebProcessorP95",
       .path = kCpu,
       .condition = "> 70",
       .for_span = "5m",
       .hosts = "role=web",
       .aggregate = "p95",
       .by = "site"});
  add({.name = "HostFreeSpaceMin",
       .path = kFreeSpace,
       .condition = "< 10",
       .for_span = "5m",
       .aggregate = "min",
       .by = "host"});
  // Per site (3 × 6 = 18).
  for (const char* site : kSites) {
    const std::string hosts = std::string("site=") + site;
    std::string suffix = site;
    suffix[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
    add({.name = "SiteProcessor" + suffix,
         .path = kCpu,
         .condition = "> 90",
         .for_span = "5m",
         .hosts = hosts});
    add({.name = "SiteMemory" + suffix,
         .path = kAvailable,
         .condition = "< 200",
         .for_span = "5m",
         .hosts = hosts});
    add({.name = "SiteCommitted" + suffix,
         .path = kCommitted,
         .condition = "> 90",
         .for_span = "5m",
         .hosts = hosts});
    add({.name = "SitePagingFile" + suffix,
         .path = kPagingFile,
         .condition = "> 80",
         .for_span = "10m",
         .hosts = hosts});
    add({.name = "SiteDiskWrite" + suffix,
         .path = kDiskWrite,
         .condition = "> 0.040",
         .for_span = "5m",
         .hosts = hosts});
    add({.name = "SiteCpuQueue" + suffix,
         .path = kCpuQueue,
         .condition = "> 30",
         .for_span = "2m",
         .hosts = hosts});
  }
  return rules;
}

// ---------------------------------------------------------------------------------------------

// The read a rule's steady evaluation makes at `now_ns` (RuleEvaluator::EvaluateRule, with a
// previous evaluation one interval before and no active alert reaching further back).
query::ReadRequest SteadyRequest(const AlertRule& rule, int64_t interval_ns, int64_t now_ns) {
  query::ReadRequest request = rule.read;
  request.condition.reset();
  const std::optional<int64_t> step =
      rule.aggregate.empty() ? std::nullopt : std::optional<int64_t>(rule.step_ns);
  int64_t from_ns =
      now_ns - RuleEvaluator::kIntervalsRead * std::max(interval_ns, step.value_or(0));
  from_ns = std::min(from_ns, now_ns - 2 * interval_ns);
  if (step) from_ns -= ((from_ns % *step) + *step) % *step;
  request.from_ns = from_ns;
  request.step_ns = step;
  return request;
}

struct ReadTotals {
  Usage usage;
  size_t series = 0;
  size_t points = 0;
  size_t warnings = 0;
  int failed = 0;
};

ReadTotals TimedRead(query::ReadEngine& engine, const query::ReadRequest& request) {
  ReadTotals totals;
  Stopwatch watch;
  Result<query::QueryAnswer> answer = engine.Read(request);
  totals.usage = watch.Elapsed();
  if (!answer.ok()) {
    totals.failed = 1;
    return totals;
  }
  totals.series = answer->series.size();
  totals.points = answer->num_points();
  totals.warnings = answer->warnings.size();
  return totals;
}

// Each rule's read inside the evaluations: the read function the evaluator is given, wrapped.
struct RuleReadStat {
  Usage usage;
  size_t series = 0;
  size_t points = 0;
  size_t warnings = 0;
};

int Run(const Options& options) {
  if (std::filesystem::path missing = fleet::FirstRealMachineFile(FixturesRoot());
      !std::filesystem::exists(missing)) {
    std::fprintf(stderr, "rules_bench: no %s, so no realistic fleet: skipped\n", missing.c_str());
    return kSkipped;
  }
  Result<std::vector<fleet::MachineLayout>> layouts = fleet::LoadMachineLayouts(FixturesRoot());
  if (!layouts.ok()) {
    std::fprintf(stderr, "rules_bench: %s\n", layouts.error().c_str());
    return 1;
  }
  Result<fleet::FleetGenerator> generator = fleet::FleetGenerator::Create(
      std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(layouts).value()),
      {.seed = options.seed, .hosts = options.hosts, .layouts = options.layouts});
  if (!generator.ok()) {
    std::fprintf(stderr, "rules_bench: %s\n", generator.error().c_str());
    return 1;
  }
  const int64_t interval_ns = generator->options().interval_ns;

  std::string pattern =
      (std::filesystem::temp_directory_path() / "perfhive-rules-bench-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("rules_bench: mkdtemp");
    return 1;
  }
  const std::string dir = pattern;
  struct RemoveDir {
    std::string dir;
    ~RemoveDir() { std::filesystem::remove_all(dir); }
  } remove_dir{dir};
  Result<std::unique_ptr<Store>> opened =
      Store::Open(dir, StoreOptions{.commit_interval = kCommitInterval});
  if (!opened.ok()) {
    std::fprintf(stderr, "rules_bench: %s\n", opened.error().c_str());
    return 1;
  }
  Store& store = **opened;

  // Every host says Hello (its row, with its labels) before its first snapshot: per
  // connection, not per snapshot, so outside the ingest figure.
  std::vector<FleetHost> hosts;
  hosts.reserve(static_cast<size_t>(options.hosts));
  {
    Countdown hellos;
    hellos.Add(options.hosts);
    for (int h = 0; h < options.hosts; ++h) {
      fleet::HostSimulator simulator = generator->StartHost(h);
      std::string name = simulator.profile().name;
      hosts.push_back(FleetHost{.simulator = std::move(simulator),
                                .name = name,
                                .instance_id = "bench-" + std::to_string(h)});
      HostInfo info;
      info.name = name;
      info.os = "Windows";
      info.source_kind = "agent";
      info.labels = LabelsOfHost(h);
      store.catalog().UpsertHostAsync(std::move(info), 1,
                                      [&hellos](Status s) { hellos.Done(s.ok()); });
    }
    if (hellos.Wait() != 0) {
      std::fprintf(stderr, "rules_bench: a host's row could not be written\n");
      return 1;
    }
  }

  std::printf("rules_bench: %d hosts (%s), a snapshot each every %lld s; store in %s\n",
              options.hosts,
              options.layouts.empty() ? "the six real machines round-robin" : "chosen machines",
              static_cast<long long>(interval_ns / kSecond), dir.c_str());
  std::fflush(stdout);

  // The rules.
  const std::vector<RuleSpec> specs = MakeRules();
  std::string toml = "interval = \"15s\"\n\n";
  for (const RuleSpec& spec : specs) toml += RuleToml(spec);
  if (options.print_rules) std::fputs(toml.c_str(), stdout);
  Result<RuleBook> book = RuleBook::Parse(toml, "rules.toml");
  if (!book.ok()) {
    std::fprintf(stderr, "rules_bench: %s\n", book.error().c_str());
    return 1;
  }
  const std::string rules_file = dir + "/rules.toml";
  std::ofstream(rules_file) << toml;
  const size_t rule_count = book->rules().size();
  std::set<std::string> distinct_paths;
  for (const AlertRule& rule : book->rules()) distinct_paths.insert(rule.path);

  SampleLoader loader(store);
  // Followed from the first round, as a server started with its rules follows them.
  query::LiveSeries live;
  if (options.live) live.Follow(RuleEvaluator::LiveWindows(*book));

  // Ingest, timed per round. The rounds that begin a group (the first, with each host's first title
  // database, and every group_size-th) are keyframes, reported apart.
  const int group_size = StoreOptions().group_size;
  Usage keyframe_rounds, delta_rounds, generation;
  int keyframe_round_count = 0, delta_round_count = 0;
  uint64_t raw_bytes = 0, snapshots = 0;
  int64_t newest_sample_ns = 0;
  int rounds_ingested = 0;
  auto ingest_round = [&]() -> bool {
    Stopwatch made;
    Round round = MakeRound(hosts);
    generation += made.Elapsed();
    Stopwatch watch;
    if (!IngestRound(store, hosts, round, options.live ? &live : nullptr, loader)) {
      std::fprintf(stderr, "rules_bench: an append failed in round %d\n", rounds_ingested);
      return false;
    }
    Usage used = watch.Elapsed();
    if (rounds_ingested % group_size == 0) {
      keyframe_rounds += used;
      ++keyframe_round_count;
    } else {
      delta_rounds += used;
      ++delta_round_count;
    }
    raw_bytes += round.raw_bytes;
    snapshots += hosts.size();
    newest_sample_ns = std::max(newest_sample_ns, round.newest_sample_ns);
    ++rounds_ingested;
    return true;
  };
  for (int k = 0; k < options.fill_samples; ++k) {
    if (!ingest_round()) return 1;
  }
  std::printf(
      "filled: %d rounds, %llu snapshots, %.1f KB raw each on average; agents' side "
      "(generate, encode) %.1f s CPU, not counted\n",
      rounds_ingested, static_cast<unsigned long long>(snapshots),
      static_cast<double>(raw_bytes) / static_cast<double>(snapshots) / 1024, generation.cpu);
  std::fflush(stdout);

  // As the server wires it (ServerProcess::OpenAlerting).
  HostLabelDirectory labels(store, nullptr);
  query::ReadEngine engine(loader);
  engine.set_max_bytes(uint64_t{1} << 30);  // the server's default --max-query-bytes
  engine.set_host_labels(labels.Lookup());
  if (options.live) engine.set_live_series(&live);
  std::vector<RuleReadStat> rule_reads(rule_count);
  size_t next_rule = 0;
  RuleEvaluator::ReadFunction read = [&](const query::ReadRequest& request) {
    Stopwatch watch;
    Result<query::QueryAnswer> answer = engine.Read(request);
    RuleReadStat& stat = rule_reads[next_rule++ % rule_count];
    stat.usage = watch.Elapsed();
    stat.series = answer.ok() ? answer->series.size() : 0;
    stat.points = answer.ok() ? answer->num_points() : 0;
    stat.warnings = answer.ok() ? answer->warnings.size() : 0;
    return answer;
  };
  std::FILE* devnull = std::fopen("/dev/null", "w");
  ServerLog log(std::chrono::seconds(10), devnull);
  Result<std::unique_ptr<Alerting>> alerting =
      Alerting::Open(Env::Default(), rules_file, dir, read, labels.Lookup(), nullptr, log);
  if (!alerting.ok()) {
    std::fprintf(stderr, "rules_bench: %s\n", alerting.error().c_str());
    return 1;
  }
  if (options.live) (*alerting)->set_live_series(&live);

  std::printf("rules: %zu over %zu distinct paths, evaluated every %lld s\n\n", rule_count,
              distinct_paths.size(), static_cast<long long>(book->interval_ns() / kSecond));
  std::printf("%-5s %8s %7s %10s %10s %10s %8s %9s %6s %6s %6s %8s %6s\n", "eval", "t s", "rounds",
              "cpu ms", "wall ms", "reads cpu", "series", "points", "firing", "pend", "resol",
              "missing", "failed");
  std::fflush(stdout);

  const int64_t first_now = newest_sample_ns + kNowAfterNewestNs;
  const int64_t start_ns = generator->options().start_unix_ns;
  struct Evaluation {
    Usage usage{};
    Usage reads{};
    std::vector<RuleReadStat> rules{};
  };
  std::vector<Evaluation> evaluations;
  int64_t now = first_now;
  for (int e = 0; e < options.evaluations; ++e) {
    now = first_now + e * book->interval_ns();
    // The rounds whose every sample was taken a few seconds before now.
    while (start_ns + (rounds_ingested + 1) * interval_ns <= now - kNowAfterNewestNs) {
      if (!ingest_round()) return 1;
    }
    next_rule = 0;
    Stopwatch watch;
    (*alerting)->Evaluate(now);
    Evaluation evaluation{.usage = watch.Elapsed(), .rules = rule_reads};
    size_t series = 0, points = 0, missing = 0;
    for (const RuleReadStat& stat : rule_reads) {
      evaluation.reads += stat.usage;
      series += stat.series;
      points += stat.points;
    }
    AlertsListing listing = (*alerting)->Listing();
    int firing = 0, pending = 0, resolved = 0;
    for (const Alert& alert : listing.alerts) {
      firing += alert.state == Alert::State::kFiring;
      pending += alert.state == Alert::State::kPending;
      resolved += alert.state == Alert::State::kResolved;
    }
    std::vector<std::string> errors;  // rules whose read failed: their alerts stay as they were
    for (const RuleReport& report : listing.reports) {
      missing += report.missing.size();
      if (!report.error.empty()) errors.push_back(report.rule + ": " + report.error);
    }
    std::printf("%-5s %8.0f %7d %10.1f %10.1f %10.1f %8zu %9zu %6d %6d %6d %8zu %6zu\n",
                e == 0 ? "first" : std::to_string(e).c_str(),
                static_cast<double>(now - first_now) / kSecond, rounds_ingested,
                1000 * evaluation.usage.cpu, 1000 * evaluation.usage.wall,
                1000 * evaluation.reads.cpu, series, points, firing, pending, resolved, missing,
                errors.size());
    for (const std::string& error : errors) {
      std::printf("      failed: %s\n", error.substr(0, 300).c_str());
    }
    std::fflush(stdout);
    evaluations.push_back(std::move(evaluation));
  }

  if (options.live) {
    const query::LiveSeries::Size held = live.size();
    std::printf("live series held: %zu hosts, %zu series, %zu raw samples\n", held.hosts,
                held.series, held.raw_samples);
  }

  // ---- The figures.
  const double keyframe_ms = 1000 * keyframe_rounds.cpu / (keyframe_round_count * options.hosts);
  const double delta_ms =
      delta_round_count > 0 ? 1000 * delta_rounds.cpu / (delta_round_count * options.hosts) : 0;
  const double group = group_size;
  const double per_snapshot_ms = (delta_ms * (group - 1) + keyframe_ms) / group;
  const double snapshots_per_s = options.hosts * static_cast<double>(kSecond) / interval_ns;
  const double ingest_cpu_per_s = snapshots_per_s * per_snapshot_ms / 1000;

  std::vector<double> steady_cpu, steady_wall, steady_reads;
  for (size_t e = 1; e < evaluations.size(); ++e) {
    steady_cpu.push_back(evaluations[e].usage.cpu);
    steady_wall.push_back(evaluations[e].usage.wall);
    steady_reads.push_back(evaluations[e].reads.cpu);
  }
  const double eval_cpu = Median(steady_cpu);
  const double eval_wall = Median(steady_wall);
  const double eval_reads = Median(steady_reads);
  const double interval_s = static_cast<double>(book->interval_ns()) / kSecond;
  const double eval_cpu_per_s = eval_cpu / interval_s;

  std::printf(
      "\ningest (in process: parse, restore + SHA-256 check, open, append, group commit "
      "every 5 ms; no gRPC):\n");
  std::printf("  keyframes (%d rounds): %.3f ms CPU per snapshot\n", keyframe_round_count,
              keyframe_ms);
  std::printf("  deltas (%d rounds): %.3f ms CPU per snapshot, %.0f snapshots/s of wall\n",
              delta_round_count, delta_ms,
              delta_rounds.wall > 0 ? delta_round_count * options.hosts / delta_rounds.wall : 0);
  std::printf(
      "  per snapshot, a keyframe every %.0f: %.3f ms -> at %.0f snapshots/s: %.1f ms of "
      "CPU per second (%.2f%% of a core)\n",
      group, per_snapshot_ms, snapshots_per_s, 1000 * ingest_cpu_per_s, 100 * ingest_cpu_per_s);
  std::printf("\nevaluation of %zu rules x %d hosts (steady: median of %zu; the first apart):\n",
              rule_count, options.hosts, steady_cpu.size());
  if (!evaluations.empty()) {
    std::printf("  first: %.1f ms CPU, %.1f ms wall (reads %.1f ms CPU)\n",
                1000 * evaluations[0].usage.cpu, 1000 * evaluations[0].usage.wall,
                1000 * evaluations[0].reads.cpu);
  }
  std::printf(
      "  steady: %.1f ms CPU, %.1f ms wall per evaluation; reads %.1f ms CPU (%.0f%%), "
      "the rest (evaluator, alerts.db, log) %.1f ms\n",
      1000 * eval_cpu, 1000 * eval_wall, 1000 * eval_reads,
      eval_cpu > 0 ? 100 * eval_reads / eval_cpu : 0, 1000 * (eval_cpu - eval_reads));
  std::printf("  per rule %.2f ms CPU; per host %.3f ms; per rule and host %.2f us\n",
              1000 * eval_cpu / static_cast<double>(rule_count), 1000 * eval_cpu / options.hosts,
              1e6 * eval_cpu / (static_cast<double>(rule_count) * options.hosts));
  std::printf("  one evaluation per %.0f s: %.1f ms of CPU per second (%.2f%% of a core)\n",
              interval_s, 1000 * eval_cpu_per_s, 100 * eval_cpu_per_s);
  std::printf(
      "\nrules / ingest CPU: %.1f%% against the in-process ingest measured here "
      "(issue 36's target: < 5%%)\n",
      ingest_cpu_per_s > 0 ? 100 * eval_cpu_per_s / ingest_cpu_per_s : 0);
  for (double end_to_end_ms : {0.33, 0.44}) {
    std::printf(
        "             %.1f%% against the server's end to end %.2f ms per snapshot "
        "(docs/capacity.md)\n",
        100 * eval_cpu_per_s / (snapshots_per_s * end_to_end_ms / 1000), end_to_end_ms);
  }
  std::printf(
      "  to meet 5%% of the in-process ingest: at most %.1f ms CPU per evaluation "
      "(%.0fx less)\n",
      1000 * 0.05 * ingest_cpu_per_s * interval_s,
      eval_cpu / (0.05 * ingest_cpu_per_s * interval_s));
  std::fflush(stdout);

  // Each rule's read, by path: medians over the steady evaluations.
  std::printf("\nreads by rule, grouped by path (steady evaluations, median CPU per read):\n");
  std::printf("  %-42s %5s %10s %10s %8s %8s %8s\n", "path", "rules", "cpu ms", "ms/rule", "series",
              "points", "missing");
  std::map<std::string, std::vector<size_t>> rules_of_path;
  for (size_t r = 0; r < rule_count; ++r) rules_of_path[book->rules()[r].path].push_back(r);
  std::vector<double> rule_median(rule_count, 0);
  for (size_t r = 0; r < rule_count; ++r) {
    std::vector<double> cpu;
    for (size_t e = 1; e < evaluations.size(); ++e)
      cpu.push_back(evaluations[e].rules[r].usage.cpu);
    rule_median[r] = Median(cpu);
  }
  for (const auto& [path, of_path] : rules_of_path) {
    double cpu = 0;
    size_t series = 0, points = 0, warnings = 0;
    for (size_t r : of_path) {
      cpu += rule_median[r];
      const RuleReadStat& last = evaluations.back().rules[r];
      series += last.series;
      points += last.points;
      warnings += last.warnings;
    }
    std::printf("  %-42s %5zu %10.1f %10.2f %8zu %8zu %8zu\n", path.c_str(), of_path.size(),
                1000 * cpu, 1000 * cpu / static_cast<double>(of_path.size()), series, points,
                warnings);
  }
  std::printf("  by kind of rule:\n");
  auto kind_of = [&](const AlertRule& rule) -> std::string {
    if (!rule.aggregate.empty()) {
      return "aggregate, step " + std::to_string(rule.step_ns / kSecond) + " s";
    }
    return rule.hosts.empty() ? "every host"
                              : "hosts " + rule.hosts.substr(0, rule.hosts.find('='));
  };
  std::map<std::string, std::pair<int, double>> kinds;
  for (size_t r = 0; r < rule_count; ++r) {
    auto& [count, cpu] = kinds[kind_of(book->rules()[r])];
    ++count;
    cpu += rule_median[r];
  }
  for (const auto& [kind, totals] : kinds) {
    std::printf("  %-42s %5d %10.1f %10.2f\n", kind.c_str(), totals.first, 1000 * totals.second,
                1000 * totals.second / totals.first);
  }
  std::fflush(stdout);

  // ---- One rule alone, as its own book: the fleet-wide processor rule, its second evaluation.
  {
    Result<RuleBook> one =
        RuleBook::Parse("interval = \"15s\"\n\n" + RuleToml(specs.front()), "one.toml");
    if (one.ok()) {
      RuleEvaluator alone([&](const query::ReadRequest& request) { return engine.Read(request); },
                          labels.Lookup());
      alone.Evaluate(*one, now - one->interval_ns());
      std::vector<double> cpu, wall;
      for (int k = 0; k < options.repeats; ++k) {
        Stopwatch watch;
        alone.Evaluate(*one, now);
        Usage used = watch.Elapsed();
        cpu.push_back(used.cpu);
        wall.push_back(used.wall);
      }
      std::printf(
          "\none rule alone (%s, %s, every host), a RuleEvaluator of its own: %.1f ms CPU, "
          "%.1f ms wall per evaluation\n",
          specs.front().name.c_str(), specs.front().path.c_str(), 1000 * Median(cpu),
          1000 * Median(wall));
    }
  }

  // ---- Batching by path, at the last now, the same store.
  std::printf("\nreads at the last now (median of %d passes; CPU ms / wall ms):\n",
              options.repeats);
  auto pass = [&](const char* what, const std::vector<query::ReadRequest>& requests) {
    std::vector<double> cpu, wall;
    ReadTotals totals;
    for (int k = 0; k < options.repeats; ++k) {
      ReadTotals pass_totals;
      for (const query::ReadRequest& request : requests) {
        ReadTotals one = TimedRead(engine, request);
        pass_totals.usage += one.usage;
        pass_totals.series += one.series;
        pass_totals.points += one.points;
        pass_totals.warnings += one.warnings;
        pass_totals.failed += one.failed;
      }
      cpu.push_back(pass_totals.usage.cpu);
      wall.push_back(pass_totals.usage.wall);
      totals = pass_totals;
    }
    std::printf("  %-58s %4zu reads %9.1f %9.1f  series %7zu points %8zu warnings %6zu%s\n", what,
                requests.size(), 1000 * Median(cpu), 1000 * Median(wall), totals.series,
                totals.points, totals.warnings, totals.failed ? "  (some failed)" : "");
    std::fflush(stdout);
    return Median(cpu);
  };
  std::vector<query::ReadRequest> per_rule;
  std::map<std::string, int64_t> longest_window;  // by path: the earliest from_ns of its rules
  int64_t earliest = now;
  for (const AlertRule& rule : book->rules()) {
    per_rule.push_back(SteadyRequest(rule, book->interval_ns(), now));
    int64_t from = per_rule.back().from_ns;
    auto [it, added] = longest_window.emplace(rule.path, from);
    if (!added) it->second = std::min(it->second, from);
    earliest = std::min(earliest, from);
  }
  const double per_rule_cpu = pass("one read per rule (the evaluator's reads)", per_rule);
  std::vector<query::ReadRequest> per_path, per_path_short;
  query::ReadRequest all_paths, all_paths_short;
  for (const auto& [path, from] : longest_window) {
    query::ReadRequest request;
    request.paths = {path};
    request.from_ns = from;
    per_path.push_back(request);
    request.from_ns = now - RuleEvaluator::kIntervalsRead * book->interval_ns();
    per_path_short.push_back(request);
    all_paths.paths.push_back(path);
  }
  all_paths_short = all_paths;
  all_paths.from_ns = earliest;
  all_paths_short.from_ns = now - RuleEvaluator::kIntervalsRead * book->interval_ns();
  const double per_path_cpu =
      pass("one read per distinct path, its rules' longest window", per_path);
  pass("one read per distinct path, 3 intervals (45 s)", per_path_short);
  const double all_cpu = pass("one read of every distinct path, the longest window", {all_paths});
  pass("one read of every distinct path, 3 intervals (45 s)", {all_paths_short});
  std::printf("  batching by path: %.1fx less read CPU; all paths in one read: %.1fx less\n",
              per_path_cpu > 0 ? per_rule_cpu / per_path_cpu : 0,
              all_cpu > 0 ? per_rule_cpu / all_cpu : 0);
  std::printf("  one read of every path as a share of the ingest: %.1f%% (in process)\n",
              100 * all_cpu / interval_s / ingest_cpu_per_s);

  // ---- A tap on the ingest instead of reads: every distinct path's values computed from each
  // host's newest snapshot and the one before, as the ingest has them in memory (the engine's own
  // AddHostSeries, as a read computes them, without the store): what computing the rules' series
  // at ingest would cost per snapshot with today's code.
  {
    std::vector<CounterPath> paths;
    for (const std::string& path : distinct_paths) paths.push_back(*ParseCounterPath(path));
    std::map<std::vector<uint8_t>, std::shared_ptr<const TitleDatabase>> parsed;
    std::vector<query::HostSamples> tapped;
    for (FleetHost& host : hosts) {
      if (!host.before_newest) continue;
      std::shared_ptr<const TitleDatabase>& titles = parsed[host.simulator.titles()];
      if (!titles) {
        auto database = std::make_shared<TitleDatabase>();
        (void)ParseTitleList(host.simulator.titles(), false, *database);
        titles = std::move(database);
      }
      query::HostSamples samples;
      samples.host = host.name;
      samples.samples.push_back({.time_ns = host.before_newest_ns,
                                 .bytes = host.before_newest,
                                 .english = titles,
                                 .localized = nullptr,
                                 .query = "Global"});
      samples.samples.push_back({.time_ns = host.newest_ns,
                                 .bytes = host.newest,
                                 .english = titles,
                                 .localized = nullptr,
                                 .query = "Global"});
      tapped.push_back(std::move(samples));
    }
    auto tap = [&](std::span<const CounterPath> of_paths, const std::string& what) {
      std::vector<double> cpu;
      size_t series = 0, points = 0;
      for (int k = 0; k < options.repeats; ++k) {
        series = points = 0;
        Stopwatch watch;
        for (const query::HostSamples& samples : tapped) {
          query::QueryAnswer answer;
          (void)query::AddHostSeries(samples, of_paths, query::QueryOptions(), answer);
          series += answer.series.size();
          points += answer.num_points();
        }
        cpu.push_back(watch.Elapsed().cpu);
      }
      const double per_snapshot =
          Median(cpu) / static_cast<double>(std::max<size_t>(1, tapped.size()));
      std::printf(
          "  %-44s %7.1f us CPU per snapshot (%zu series, %zu points), %5.1f%% of the "
          "in-process ingest's\n",
          what.c_str(), 1e6 * per_snapshot, series, points,
          100 * per_snapshot / (per_snapshot_ms / 1000));
    };
    std::printf(
        "\ntap at ingest: the rules' paths computed from each host's newest two samples "
        "in memory (%zu hosts; AddHostSeries as a read computes them, one thread, no "
        "store):\n",
        tapped.size());
    tap(paths, "all " + std::to_string(paths.size()) + " distinct paths");
    for (const CounterPath& path : paths) {
      tap(std::span<const CounterPath>(&path, 1), FormatCounterPath(path));
    }
  }
  std::fclose(devnull);
  return 0;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

}  // namespace
}  // namespace perfhive::bench

int main(int argc, char** argv) {
  perfhive::bench::Options options;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--hosts") == 0 && has_value) {
      options.hosts = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--fill-samples") == 0 && has_value) {
      options.fill_samples = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--evaluations") == 0 && has_value) {
      options.evaluations = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--seed") == 0 && has_value) {
      options.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--layouts") == 0 && has_value) {
      options.layouts = perfhive::bench::SplitCommas(argv[++i]);
    } else if (std::strcmp(argv[i], "--repeats") == 0 && has_value) {
      options.repeats = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--print-rules") == 0) {
      options.print_rules = true;
    } else if (std::strcmp(argv[i], "--no-live") == 0) {
      options.live = false;
    } else {
      std::fprintf(stderr,
                   "usage: rules_bench [--hosts N] [--fill-samples K] [--evaluations E] "
                   "[--seed S] [--layouts a,b] [--repeats R] [--print-rules] [--no-live]\n");
      return 2;
    }
  }
  if (options.hosts < 1 || options.fill_samples < 1 || options.evaluations < 1 ||
      options.repeats < 1) {
    std::fprintf(stderr, "rules_bench: hosts, fill samples, evaluations and repeats are >= 1\n");
    return 2;
  }
  return perfhive::bench::Run(options);
}
