// ingest_load: the ingest benchmark. Starts a real perfhive-server process on loopback with its
// store in a temporary directory, opens many concurrent agent streams from this process (each a
// host sending a keyframe, then deltas), waits for every acknowledgement, and prints snapshots/s,
// raw MB/s, wire bytes per snapshot, the server's own CPU per snapshot (from /proc/PID/stat, so
// the simulated agents' work is not counted), its memory per connected stream (VmRSS while
// streaming, less an idle server's) and the time from each snapshot's send to its
// acknowledgement.
//
// The snapshots are builder-made Windows-like ones (every counter moves every sample; --processes
// sets their size), or with --fleet a realistic fleet's (tests/bench/realistic_fleet: hosts made
// from real machines' layouts, docs/fleet_generator.md); --busy-servers SHARE makes that share of
// the fleet's hosts busy servers (kinex01 with a few hundred processes and a few thousand threads,
// about 490 KB a snapshot; --busy-processes and --busy-threads size them). Streams send as fast
// as the server takes them, or with --interval-ms one snapshot each per interval, their starts
// spread over the first interval, as a fleet sends: then the latencies are those of a server at
// that load.
//   ingest_load [--streams N] [--snapshots-per-stream K] [--processes P] [--fleet]
//               [--busy-servers SHARE] [--busy-processes P] [--busy-threads T]
//               [--seed S] [--interval-ms I]

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/well_known_indexes.h"
#include "perfhive/v1/ingest.grpc.pb.h"
#include "perfhive/v1/query.grpc.pb.h"
#include "port/sha256.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/bench/realistic_fleet/real_machines.h"
#include "tests/e2e/e2e_cluster.h"
#include "wire/title_digest.h"

#ifndef PERFHIVE_SHARED_DIR
#error "PERFHIVE_SHARED_DIR names the shared folder; tests/CMakeLists.txt sets it"
#endif

namespace perfhive::testing {
namespace {

namespace v1 = perfhive::v1;
namespace ti = title_index;
using Clock = std::chrono::steady_clock;

constexpr int kSkipped = 77;

struct Options {
  int streams = 100;
  int per_stream = 20;
  int processes = 2000;
  bool fleet = false;
  // The fleet's share of busy servers, and their size (FleetOptions).
  double busy_servers = 0;
  int busy_processes = 350;
  int busy_threads = 3500;
  uint64_t seed = 1;
  int interval_ms = 0;  // 0: as fast as the server takes them
  // Side by side with the load: this path read over everything stored so far, again and again
  // with this pause between (0: no reads), as an administrator's dashboards would.
  std::string query_path = "\\\\*-0000*\\Processor(*)\\% Processor Time";
  int query_every_ms = 0;
  // The server's --retention-age in seconds (0: none); its pass runs every minute.
  int retention_age_s = 0;
};

std::filesystem::path FixturesRoot() {
  return std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures";
}

std::string AsString(std::span<const uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// A Windows-like Global snapshot: `processes` processes with 12 counters each and 8 CPUs (2,000
// processes make about 300 KB); every counter moves from one sample to the next.
std::vector<uint8_t> BuilderSnapshot(int host, int sample, int processes) {
  SnapshotBuilder builder;
  builder.set_system_name("LOAD" + std::to_string(host))
      .set_system_time({2026, 11, 1, 22, 10, static_cast<uint16_t>(sample / 60 % 60),
                        static_cast<uint16_t>(sample % 60), static_cast<uint16_t>(host % 1000)})
      .set_perf_freq(10'000'000)
      .set_perf_time(int64_t{10'000'000} * sample)
      .set_perf_time_100ns(int64_t{10'000'000} * sample);
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  std::vector<uint32_t> counters;
  for (uint32_t c = 0; c < 12; ++c) {
    counters.push_back(process.AddCounter(
        {.name_index = 1000 + 2 * c,
         .type = c == 0 ? winperf::k100NsecTimer : winperf::kCounterLargeRawcount}));
  }
  for (int p = 0; p < processes; ++p) {
    uint32_t i = process.AddInstance("process" + std::to_string(p % (processes / 2 + 1)));
    for (uint32_t c = 0; c < counters.size(); ++c) {
      // Counters move by irregular amounts, as real ones do: a multiplicative hash of the
      // process, counter and sample decides each step.
      uint64_t step = (static_cast<uint64_t>(p) * 2654435761u ^ c * 40503u ^
                       static_cast<uint64_t>(sample) * 2246822519u) %
                      5000;
      process.SetValue(i, counters[c],
                       static_cast<uint64_t>(p * 7919 + c * 104729) +
                           static_cast<uint64_t>(sample) * 2500 + step);
    }
  }
  ObjectBuilder& processor = builder.AddObject(ti::kProcessor);
  uint32_t idle = processor.AddCounter(
      {.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
  for (int cpu = 0; cpu < 8; ++cpu) {
    uint32_t i = processor.AddInstance(std::to_string(cpu));
    processor.SetValue(i, idle, static_cast<uint64_t>(sample) * 7'000'000 + cpu);
  }
  return builder.Build();
}

// What one simulated host sends after Hello: title databases and snapshots, in order, encoded
// as its agent would encode them.
struct HostFeed {
  std::string name;
  std::vector<v1::AgentMessage> messages;  // the first is its title database
};

v1::AgentMessage TitlesMessage(std::span<const uint8_t> counters) {
  v1::AgentMessage message;
  message.mutable_titles()->set_language("009");
  message.mutable_titles()->set_counters(AsString(counters));
  message.mutable_titles()->set_sha256(AsString(TitleDigest("009", counters, {})));
  return message;
}

v1::AgentMessage SnapshotMessage(const std::string& instance, int k,
                                 std::span<const uint8_t> previous, std::span<const uint8_t> raw,
                                 const Sha256Digest& titles) {
  v1::AgentMessage message;
  v1::Snapshot* snapshot = message.mutable_snapshot();
  snapshot->set_instance_id(instance);
  snapshot->set_sequence(static_cast<uint64_t>(k + 1));
  snapshot->set_query("Global");
  snapshot->set_encoding(k == 0 ? v1::ENCODING_ZSTD : v1::ENCODING_DELTA_ZSTD);
  snapshot->set_base_sequence(static_cast<uint64_t>(k));
  snapshot->set_payload(AsString(EncodeDelta(previous, raw)));
  snapshot->set_raw_size(static_cast<uint32_t>(raw.size()));
  snapshot->set_sha256(AsString(Sha256(raw)));
  v1::TitleDigest* digest = snapshot->add_titles();
  digest->set_language("009");
  digest->set_sha256(AsString(titles));
  return message;
}

struct Feeds {
  std::vector<HostFeed> hosts;
  uint64_t raw_bytes = 0;
  uint64_t steady_raw_bytes = 0;  // of the deltas, against which wire bytes are compared
  uint64_t wire_bytes = 0;        // of the deltas
};

Result<Feeds> MakeFeeds(const Options& options) {
  Feeds feeds;
  std::optional<fleet::FleetGenerator> generator;
  if (options.fleet) {
    Result<std::vector<fleet::MachineLayout>> layouts = fleet::LoadMachineLayouts(FixturesRoot());
    if (!layouts.ok()) return layouts.status();
    Result<fleet::FleetGenerator> created = fleet::FleetGenerator::Create(
        std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(layouts).value()),
        {.seed = options.seed,
         .hosts = options.streams,
         .busy_servers = options.busy_servers,
         .busy_processes = options.busy_processes,
         .busy_threads = options.busy_threads});
    if (!created.ok()) return created.status();
    generator.emplace(std::move(created).value());
  }
  TitleDatabase names;
  names.AddName(ti::kProcess, "Process");
  names.AddName(ti::kProcessor, "Processor");
  std::vector<uint8_t> builder_titles = names.EncodeNames();
  for (int s = 0; s < options.streams; ++s) {
    HostFeed& host = feeds.hosts.emplace_back();
    std::string instance = "load-" + std::to_string(s);
    std::optional<fleet::HostSimulator> simulator;
    if (generator) simulator.emplace(generator->StartHost(s));
    host.name = simulator ? simulator->profile().name : "LOAD" + std::to_string(s);
    std::vector<uint8_t> previous;
    Sha256Digest titles{};
    for (int k = 0; k < options.per_stream; ++k) {
      std::vector<uint8_t> raw;
      bool titles_changed = k == 0;
      if (simulator) {
        fleet::GeneratedSample sample = simulator->Next();
        raw = std::move(sample.snapshot);
        titles_changed = titles_changed || sample.titles_changed;
      } else {
        raw = BuilderSnapshot(s, k, options.processes);
      }
      if (titles_changed) {
        const std::vector<uint8_t>& counters = simulator ? simulator->titles() : builder_titles;
        titles = TitleDigest("009", counters, {});
        host.messages.push_back(TitlesMessage(counters));
      }
      host.messages.push_back(SnapshotMessage(instance, k, previous, raw, titles));
      feeds.raw_bytes += raw.size();
      if (k > 0) {
        feeds.steady_raw_bytes += raw.size();
        feeds.wire_bytes += host.messages.back().snapshot().payload().size();
      }
      previous = std::move(raw);
    }
  }
  return feeds;
}

// The process's user and system time in clock ticks, and its resident memory in bytes.
struct ProcessUsage {
  int64_t cpu_ticks = 0;
  int64_t rss_bytes = 0;
};

ProcessUsage ReadUsage(pid_t pid) {
  ProcessUsage usage;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15, rss
  // (in pages) 24.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  for (int n = 3; fields >> field; ++n) {
    if (n == 14 || n == 15) usage.cpu_ticks += std::stoll(field);
    if (n == 24) {
      usage.rss_bytes = std::stoll(field) * sysconf(_SC_PAGESIZE);
      break;
    }
  }
  return usage;
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t at = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(at, sorted.size() - 1)];
}

int Run(const Options& options) {
  if (std::filesystem::path missing = fleet::FirstRealMachineFile(FixturesRoot());
      options.fleet && !std::filesystem::exists(missing)) {
    // Without the shared fixtures there is no fleet: CTest counts that as skipped.
    std::fprintf(stderr, "ingest_load: no %s, so no realistic fleet\n", missing.c_str());
    return kSkipped;
  }
  Result<Feeds> made = MakeFeeds(options);
  if (!made.ok()) {
    std::fprintf(stderr, "ingest_load: %s\n", made.error().c_str());
    return 1;
  }
  const Feeds& feeds = *made;
  ScratchDir scratch("ingest-load");
  // A paced fleet runs at its own pace; flat out, the rate limit is set above what one stream
  // can send, so it never holds a stream back.
  std::vector<std::string> server_flags = {"--insecure", "--max-snapshots-per-second", "100000"};
  if (options.retention_age_s > 0) {
    server_flags.insert(server_flags.end(),
                        {"--retention-age", std::to_string(options.retention_age_s)});
  }
  ServerProcess server(scratch, server_flags);
  if (!server.Start()) return 1;
  pid_t pid = server.process()->pid();
  std::printf("ingest_load: server pid %d\n", static_cast<int>(pid));
  std::fflush(stdout);
  // What the server holds before any stream, after a moment to settle.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ProcessUsage idle = ReadUsage(pid);

  const int streams = options.streams;
  const auto interval = std::chrono::milliseconds(options.interval_ms);
  std::atomic<uint64_t> acked{0};
  std::atomic<int> connected{0};
  std::atomic<bool> go{false};
  // Send to ack in ms, of each stream's first snapshot (a keyframe, and its host's first title
  // databases in force) and of the others.
  std::vector<std::vector<double>> firsts(static_cast<size_t>(streams));
  std::vector<std::vector<double>> latencies(static_cast<size_t>(streams));
  // Hello to Welcome in ms: every stream connects at once, as a fleet does when its server
  // restarts.
  std::vector<double> welcomes(static_cast<size_t>(streams));
  std::vector<std::thread> clients;
  Clock::time_point started;
  for (int s = 0; s < streams; ++s) {
    clients.emplace_back([&, s] {
      const HostFeed& host = feeds.hosts[static_cast<size_t>(s)];
      // A connection of its own, as every agent has.
      grpc::ChannelArguments arguments;
      arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
      auto channel = grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(),
                                               arguments);
      auto stub = v1::Ingest::NewStub(channel);
      grpc::ClientContext context;
      auto stream = stub->Stream(&context);
      v1::AgentMessage hello;
      hello.mutable_hello()->set_protocol_version(1);
      hello.mutable_hello()->set_host_name(host.name);
      hello.mutable_hello()->set_instance_id("load-" + std::to_string(s));
      const v1::TitleDatabase& titles = host.messages.front().titles();
      v1::TitleDigest* digest = hello.mutable_hello()->add_titles();
      digest->set_language(titles.language());
      digest->set_sha256(titles.sha256());
      Clock::time_point hello_sent = Clock::now();
      stream->Write(hello);
      v1::ServerMessage answer;
      stream->Read(&answer);
      welcomes[static_cast<size_t>(s)] =
          std::chrono::duration<double, std::milli>(Clock::now() - hello_sent).count();
      // As an agent does: its title database only when the server lacks it, before any snapshot.
      if (answer.welcome().needed_titles_size() > 0) stream->Write(host.messages.front());
      ++connected;
      while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::vector<Clock::time_point> sent(host.messages.size() + 1);
      std::mutex sent_mutex;
      std::thread writer([&] {
        Clock::time_point next = started + interval * s / streams;
        for (const v1::AgentMessage& message : std::span(host.messages).subspan(1)) {
          if (message.has_snapshot()) {
            if (interval.count() > 0) {
              std::this_thread::sleep_until(next);
              next += interval;
            }
            std::lock_guard lock(sent_mutex);
            sent[message.snapshot().sequence()] = Clock::now();
          }
          stream->Write(message);
        }
        stream->WritesDone();
      });
      while (stream->Read(&answer)) {
        if (!answer.has_ack()) continue;
        ++acked;
        Clock::time_point now = Clock::now();
        uint64_t sequence = answer.ack().sequence();
        std::lock_guard lock(sent_mutex);
        (sequence == 1 ? firsts : latencies)[static_cast<size_t>(s)].push_back(
            std::chrono::duration<double, std::milli>(now - sent[sequence]).count());
      }
      writer.join();
      stream->Finish();
    });
  }
  while (connected < streams) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ProcessUsage before = ReadUsage(pid);
  std::atomic<bool> done{false};
  int64_t rss_peak = before.rss_bytes;
  std::thread sampler([&] {
    while (!done) {
      rss_peak = std::max(rss_peak, ReadUsage(pid).rss_bytes);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  // Reads side by side with the load: their times, and the points they answered.
  std::vector<double> query_ms;
  uint64_t query_points = 0;
  std::thread querier([&] {
    if (options.query_every_ms <= 0) return;
    auto stub = v1::Query::NewStub(
        grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials()));
    while (!done) {
      v1::ReadRequest request;
      request.add_paths(options.query_path);
      request.set_max_points(100'000'000);
      grpc::ClientContext context;
      Clock::time_point asked = Clock::now();
      auto reader = stub->Read(&context, request);
      v1::ReadResponse response;
      uint64_t points = 0;
      while (reader->Read(&response)) {
        for (const v1::Series& series : response.series()) {
          points += static_cast<uint64_t>(series.points().values_size());
        }
      }
      if (grpc::Status status = reader->Finish(); !status.ok()) {
        std::fprintf(stderr, "ingest_load: read: %s\n", status.error_message().c_str());
      }
      query_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - asked).count());
      query_points = points;
      std::this_thread::sleep_for(std::chrono::milliseconds(options.query_every_ms));
    }
  });
  started = Clock::now();
  go = true;
  for (std::thread& client : clients) client.join();
  double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  ProcessUsage after = ReadUsage(pid);
  done = true;
  sampler.join();
  querier.join();
  double cpu_seconds = static_cast<double>(after.cpu_ticks - before.cpu_ticks) /
                       static_cast<double>(sysconf(_SC_CLK_TCK));

  uint64_t total = static_cast<uint64_t>(streams) * static_cast<uint64_t>(options.per_stream);
  auto sorted = [](const std::vector<std::vector<double>>& per_stream) {
    std::vector<double> all;
    for (const std::vector<double>& mine : per_stream) {
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    return all;
  };
  std::vector<double> first = sorted(firsts);
  std::vector<double> rest = sorted(latencies);
  std::vector<double> all = sorted({first, rest});
  std::vector<double> welcome = sorted({welcomes});
  double cpu_ms = cpu_seconds * 1000 / static_cast<double>(total);
  char busy_share[32];
  std::snprintf(busy_share, sizeof busy_share, "%g", options.busy_servers);
  const std::string workload =
      !options.fleet              ? "builder-made"
      : options.busy_servers >= 1 ? "busy-server fleet"
      : options.busy_servers > 0  ? "realistic fleet (" + std::string(busy_share) + " busy servers)"
                                  : "realistic fleet";
  std::printf(
      "ingest_load: %d %s streams x %d snapshots of %.1f KB (raw), %s, %llu "
      "acknowledged of %llu\n",
      streams, workload.c_str(), options.per_stream,
      static_cast<double>(feeds.raw_bytes) / static_cast<double>(total) / 1024,
      options.interval_ms > 0
          ? ("one each every " + std::to_string(options.interval_ms) + " ms").c_str()
          : "flat out",
      static_cast<unsigned long long>(acked.load()), static_cast<unsigned long long>(total));
  std::printf("  %.0f snapshots/s, %.1f raw MB/s, wire %.1f%% of raw per steady-state snapshot\n",
              static_cast<double>(total) / seconds,
              static_cast<double>(feeds.raw_bytes) / seconds / 1e6,
              100.0 * static_cast<double>(feeds.wire_bytes) /
                  static_cast<double>(std::max<uint64_t>(feeds.steady_raw_bytes, 1)));
  std::printf(
      "  server CPU %.3f ms per snapshot (%.2f s in all): %.0f snapshots/s per core, "
      "%.0f hosts at a 10 s interval per core\n",
      cpu_ms, cpu_seconds, 1000 / cpu_ms, 10'000 / cpu_ms);
  std::printf(
      "  server RSS idle %.1f MB, %d streams connected %.1f MB, peak %.1f MB: "
      "%.0f KB per stream\n",
      static_cast<double>(idle.rss_bytes) / 1e6, streams,
      static_cast<double>(before.rss_bytes) / 1e6, static_cast<double>(rss_peak) / 1e6,
      static_cast<double>(rss_peak - idle.rss_bytes) / 1024 / streams);
  std::printf("  hello to welcome, all streams at once: p50 %.1f ms, p99 %.1f ms\n",
              Percentile(welcome, 0.5), Percentile(welcome, 0.99));
  std::printf(
      "  send to ack: p50 %.1f ms, p99 %.1f ms, max %.1f ms; each stream's first: p50 "
      "%.1f ms, p99 %.1f ms; the others: p50 %.1f ms, p99 %.1f ms\n",
      Percentile(all, 0.5), Percentile(all, 0.99), all.empty() ? 0 : all.back(),
      Percentile(first, 0.5), Percentile(first, 0.99), Percentile(rest, 0.5),
      Percentile(rest, 0.99));
  if (!query_ms.empty()) {
    std::sort(query_ms.begin(), query_ms.end());
    std::printf("  side by side: %zu reads of %s, the last %llu points: p50 %.0f ms, max %.0f ms\n",
                query_ms.size(), options.query_path.c_str(),
                static_cast<unsigned long long>(query_points), Percentile(query_ms, 0.5),
                query_ms.back());
  }
  server.Stop();
  // Once stopped, SQLite's WAL is checkpointed into the database: what the snapshots keep.
  uint64_t stored = 0;
  for (const auto& file : std::filesystem::recursive_directory_iterator(scratch / "server-data")) {
    if (file.is_regular_file()) stored += file.file_size();
  }
  std::printf("  data directory %.1f MB: %.0f bytes per snapshot, %.2f%% of raw\n",
              static_cast<double>(stored) / 1e6,
              static_cast<double>(stored) / static_cast<double>(total),
              100.0 * static_cast<double>(stored) / static_cast<double>(feeds.raw_bytes));
  return acked.load() == total ? 0 : 1;
}

}  // namespace
}  // namespace perfhive::testing

int main(int argc, char** argv) {
  perfhive::testing::Options options;
  for (int i = 1; i < argc; ++i) {
    auto value = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (std::strcmp(argv[i], "--streams") == 0) options.streams = value();
    if (std::strcmp(argv[i], "--snapshots-per-stream") == 0) options.per_stream = value();
    if (std::strcmp(argv[i], "--processes") == 0) options.processes = value();
    if (std::strcmp(argv[i], "--fleet") == 0) options.fleet = true;
    // Busy servers are a kind of fleet host: the flag implies --fleet.
    if (std::strcmp(argv[i], "--busy-servers") == 0 && i + 1 < argc) {
      options.busy_servers = std::atof(argv[++i]);
      options.fleet = true;
    }
    if (std::strcmp(argv[i], "--busy-processes") == 0) options.busy_processes = value();
    if (std::strcmp(argv[i], "--busy-threads") == 0) options.busy_threads = value();
    if (std::strcmp(argv[i], "--seed") == 0) options.seed = static_cast<uint64_t>(value());
    if (std::strcmp(argv[i], "--interval-ms") == 0) options.interval_ms = value();
    if (std::strcmp(argv[i], "--query-every-ms") == 0) options.query_every_ms = value();
    if (std::strcmp(argv[i], "--query") == 0 && i + 1 < argc) options.query_path = argv[++i];
    if (std::strcmp(argv[i], "--retention-age") == 0) options.retention_age_s = value();
  }
  return perfhive::testing::Run(options);
}
