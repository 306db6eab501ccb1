// The query service over a real store: issue 11's three read figures, each measured twice: through
// QueryService::Answer (reads and restores the stored snapshots, parses titles, selects, computes
// and converts to the wire model) and end to end through a real gRPC server on loopback, the
// client reading every streamed response and turning it back into the query model, as the CLI
// does. The store is filled once per run with builder-made hosts: PERFHIVE_BENCH_HOSTS hosts
// (default 2) × PERFHIVE_BENCH_SAMPLES samples (default 600), PERFHIVE_BENCH_INTERVAL seconds
// apart (default 1), of an 8-CPU host with 60 processes; run with 100 × 3600 for issue 11's
// figures, and with 1000 × 360 at 10 s for the fleet aggregate's (an hour of 1,000 hosts whose
// role label is one of four). Closed groups are compacted first, as a
// server's compaction pass leaves them (PERFHIVE_BENCH_COMPACT=0: read frames only).
// Times are wall clock; CPU is the whole process's (the service reads hosts on several threads).

#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/well_known_indexes.h"
#include "proto/series_conversion.h"
#include "server/api/query_service.h"
#include "store/store.h"
#include "wire/title_digest.h"

namespace perfhive {
namespace {

namespace ti = title_index;
constexpr int64_t kStartSeconds = 1'795'000'000;  // 2026-11-18

int EnvOr(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : fallback;
}

std::vector<uint8_t> HostSnapshot(int host, int second) {
  SnapshotBuilder builder;
  int64_t ticks = int64_t{10'000'000} * (1000 + second);
  time_t unix_time = kStartSeconds + second;
  tm utc{};
  gmtime_r(&unix_time, &utc);
  builder.set_system_name("host" + std::to_string(host))
      .set_system_time({static_cast<uint16_t>(utc.tm_year + 1900),
                        static_cast<uint16_t>(utc.tm_mon + 1), 0,
                        static_cast<uint16_t>(utc.tm_mday), static_cast<uint16_t>(utc.tm_hour),
                        static_cast<uint16_t>(utc.tm_min), static_cast<uint16_t>(utc.tm_sec), 0})
      .set_perf_freq(10'000'000)
      .set_perf_time(ticks)
      .set_perf_time_100ns(ticks);
  ObjectBuilder& cpu = builder.AddObject(ti::kProcessor);
  uint32_t idle = cpu.AddCounter({ti::kPercentProcessorTime, winperf::k100NsecTimerInv});
  for (int n = 0; n <= 8; ++n) {
    uint32_t i = cpu.AddInstance(n == 8 ? "_Total" : std::to_string(n));
    cpu.SetValue(i, idle, static_cast<uint64_t>(second) * (5'000'000 + n * 100'000));
  }
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  uint32_t busy = process.AddCounter({ti::kPercentProcessorTime, winperf::k100NsecTimer});
  uint32_t pid = process.AddCounter({ti::kIdProcess, winperf::kCounterRawcount});
  uint32_t working_set = process.AddCounter({ti::kWorkingSet, winperf::kCounterLargeRawcount});
  for (int p = 0; p < 60; ++p) {
    uint32_t i = process.AddInstance("proc" + std::to_string(p % 40));
    process.SetValue(i, busy, static_cast<uint64_t>(second) * (p * 1000 + 7));
    process.SetValue(i, pid, static_cast<uint64_t>(100 + p));
    process.SetValue(i, working_set, static_cast<uint64_t>(1 << 20) * (p + 1));
  }
  return builder.Build();
}

// The store, filled once: every host's snapshots and one shared title database.
struct FilledStore {
  std::string dir;
  std::unique_ptr<Store> store;
  TokenTable tokens = TokenTable::AllowAll();
  std::unique_ptr<SampleLoader> loader;
  std::unique_ptr<QueryService> service;
  std::unique_ptr<grpc::Server> server;  // serving `service` on loopback
  std::unique_ptr<perfhive::v1::Query::Stub> client;
  int hosts = 0;
  int samples = 0;
  int interval = 1;  // seconds between a host's samples
};

FilledStore& Filled() {
  static FilledStore* filled = [] {
    auto* f = new FilledStore;
    f->hosts = EnvOr("PERFHIVE_BENCH_HOSTS", 2);
    f->samples = EnvOr("PERFHIVE_BENCH_SAMPLES", 600);
    f->interval = EnvOr("PERFHIVE_BENCH_INTERVAL", 1);
    f->dir = (std::filesystem::temp_directory_path() / "perfhive-query-bench").string();
    std::filesystem::remove_all(f->dir);
    f->store = std::move(Store::Open(f->dir).value());
    TitleDatabase titles;
    titles.AddName(ti::kProcessor, "Processor");
    titles.AddName(ti::kProcess, "Process");
    titles.AddName(ti::kPercentProcessorTime, "% Processor Time");
    titles.AddName(ti::kIdProcess, "ID Process");
    titles.AddName(ti::kWorkingSet, "Working Set");
    std::vector<uint8_t> counters = titles.EncodeNames();
    Sha256Digest digest = *f->store->catalog().PutTitleDatabase("009", counters, {});
    for (int h = 0; h < f->hosts; ++h) {
      std::string host = "host" + std::to_string(h);
      HostInfo info;
      info.name = host;
      (void)f->store->catalog().UpsertHost(info, 0);
      (void)f->store->catalog().SetTitlesInForce(host, "009", digest, 0);
      for (int s = 0; s < f->samples; ++s) {
        SnapshotToAppend append{.host = host,
                                .query = "Global",
                                .instance_id = "bench",
                                .sequence = static_cast<uint64_t>(s + 1),
                                .receive_time_ns = 1,
                                .raw = HostSnapshot(h, s * f->interval)};
        f->store->AppendAsync(std::move(append), [](Result<AppendResult>) {});
      }
    }
    (void)f->store->Append({.host = "host0",
                            .query = "Global",
                            .instance_id = "flush",
                            .sequence = 1,
                            .receive_time_ns = 1,
                            .raw = HostSnapshot(0, 0)});
    // What a server's store holds: closed groups compacted into columnar blocks, each host's
    // last group open as frames (PERFHIVE_BENCH_COMPACT=0: frames only).
    if (EnvOr("PERFHIVE_BENCH_COMPACT", 1) != 0) (void)f->store->CompactClosedGroups(0);
    f->loader = std::make_unique<SampleLoader>(*f->store);
    f->service = std::make_unique<QueryService>(*f->store, *f->loader, f->tokens);
    f->service->reads().set_host_labels([](const std::string& host) {
      static const char* kRoles[] = {"web", "sql", "app", "cache"};
      return query::HostLabels{{"role", kRoles[std::atoi(host.c_str() + 4) % 4]}};
    });
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(f->service.get());
    f->server = builder.BuildAndStart();
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(-1);
    f->client = perfhive::v1::Query::NewStub(grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials(), arguments));
    return f;
  }();
  return *filled;
}

void Report(benchmark::State& state, const FilledStore& f, size_t points) {
  state.counters["hosts"] = f.hosts;
  state.counters["samples_per_host"] = f.samples;
  state.counters["points"] = static_cast<double>(points);
}

// The points of a response, turned back into the query model as the CLI does.
size_t PointsOf(const perfhive::v1::ReadResponse& response) {
  size_t points = 0;
  for (const perfhive::v1::Series& series : response.series()) {
    Result<query::Series> converted = SeriesFromProto(series);
    if (converted.ok()) points += converted->points.size();
  }
  return points;
}

// The read through QueryService::Answer, without gRPC.
void RunAnswer(benchmark::State& state, const perfhive::v1::ReadRequest& request) {
  FilledStore& f = Filled();
  size_t points = 0;
  for (auto _ : state) {
    Result<std::vector<perfhive::v1::ReadResponse>> answer = f.service->Answer(request);
    if (!answer.ok()) {
      state.SkipWithError(answer.error().c_str());
      return;
    }
    points = 0;
    for (const perfhive::v1::ReadResponse& response : *answer) points += PointsOf(response);
  }
  Report(state, f, points);
}

// The read as a client sees it: a Read call on loopback, every response received and parsed.
void RunGrpc(benchmark::State& state, const perfhive::v1::ReadRequest& request) {
  FilledStore& f = Filled();
  size_t points = 0;
  for (auto _ : state) {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<perfhive::v1::ReadResponse>> reader =
        f.client->Read(&context, request);
    perfhive::v1::ReadResponse response;
    points = 0;
    while (reader->Read(&response)) points += PointsOf(response);
    if (grpc::Status status = reader->Finish(); !status.ok()) {
      state.SkipWithError(status.error_message().c_str());
      return;
    }
  }
  Report(state, f, points);
}

perfhive::v1::ReadRequest ProcessorTimeOfEveryHost() {
  perfhive::v1::ReadRequest request;
  request.add_paths("\\\\*\\Processor(*)\\% Processor Time");
  // 100 hosts × 9 processors × 3600 samples is 3.24 million points, over the server's default
  // limit of 2 million (query::QueryOptions::max_points): the caller raises it.
  request.set_max_points(4'000'000);
  return request;
}

perfhive::v1::ReadRequest WholeProcessObjectAtOnePoint() {
  perfhive::v1::ReadRequest request;
  request.add_paths("\\\\host0\\Process(*)\\*");
  int64_t at = (kStartSeconds + Filled().samples / 2) * 1'000'000'000LL;
  request.set_from_unix_nanos(at);
  request.set_to_unix_nanos(at);
  return request;
}

// avg and p95 across each role's hosts of their _Total processor time, a step a minute (of
// the store's time: 60 samples at 1 s, 6 at 10 s).
perfhive::v1::ReadRequest FleetAverageAndP95ByRolePerMinute() {
  perfhive::v1::ReadRequest request;
  request.add_paths("\\\\*\\Processor(_Total)\\% Processor Time");
  request.set_from_unix_nanos(kStartSeconds * 1'000'000'000LL);
  request.set_step_nanos(60'000'000'000LL);
  request.set_aggregates("avg,p95");
  request.set_group_by("role");
  return request;
}

perfhive::v1::ReadRequest LatestValueOfOneCounter() {
  perfhive::v1::ReadRequest request;
  request.add_paths("\\\\host0\\Processor(_Total)\\% Processor Time");
  request.set_latest_only(true);
  return request;
}

// Each read twice: BM_Server... through Answer, BM_Grpc... through a real server.
const bool kRegistered = [] {
  using Request = perfhive::v1::ReadRequest (*)();
  using Runner = void (*)(benchmark::State&, const perfhive::v1::ReadRequest&);
  const std::pair<const char*, Request> reads[] = {
      {"ProcessorTimeOfEveryHostOverTheWholeRange", ProcessorTimeOfEveryHost},
      {"WholeProcessObjectAtOnePoint", WholeProcessObjectAtOnePoint},
      {"LatestValueOfOneCounter", LatestValueOfOneCounter},
      {"FleetAverageAndP95ByRolePerMinute", FleetAverageAndP95ByRolePerMinute}};
  const std::pair<const char*, Runner> runners[] = {{"BM_Server", RunAnswer}, {"BM_Grpc", RunGrpc}};
  for (const auto& [read, request] : reads) {
    for (const auto& [prefix, runner] : runners) {
      benchmark::RegisterBenchmark(
          (std::string(prefix) + read).c_str(),
          [request, runner](benchmark::State& state) { runner(state, request()); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MeasureProcessCPUTime();
    }
  }
  return true;
}();

}  // namespace
}  // namespace perfhive
