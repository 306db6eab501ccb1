// The MS-RRP source against a private smbd on loopback (tests/support/samba_server.h): remote
// snapshots per second on a warm connection, the same spread over many targets (one smbd
// polled as many hosts, each with its own connection), and the time from connecting to the
// first snapshot; and the agent's sampler polling one smbd as many hosts through its worker
// pool. CPU time is the client's (the agent's) share; smbd's is not counted.
// Skipped where Samba cannot run (not root, not installed).

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <asio.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "agent/sampler.h"
#include "sources/msrrp/msrrp_source.h"
#include "tests/agent/agent_test_util.h"
#include "tests/support/samba_server.h"

namespace perfhive {
namespace {

using testing::SambaServer;

// One server for all benchmarks: a host with 3 objects, one of them with 200 instances
// (about 25 KB a snapshot, 6 fragments).
SambaServer* Server() {
  static std::unique_ptr<SambaServer> server = [] {
    if (!SambaServer::Unavailable().empty()) return std::unique_ptr<SambaServer>();
    auto started = std::make_unique<SambaServer>();
    if (!started->ready()) return std::unique_ptr<SambaServer>();
    testing::SambaObject process{.name = "Process", .instances = {}, .counters = {}};
    process.counters = {{"Handles", 0x00010000, 0, {}}, {"Bytes", 0x00010100, 0, {}}};
    for (uint64_t i = 0; i < 200; ++i) {
      process.instances.push_back("proc" + std::to_string(i));
      process.counters[0].per_instance.push_back(i);
      process.counters[1].per_instance.push_back(i << 20);
    }
    testing::SambaObject memory{.name = "Memory", .instances = {}, .counters = {}};
    memory.counters = {{"Available Bytes", 0x00010100, 1 << 30, {}}};
    testing::SambaObject system{.name = "System", .instances = {}, .counters = {}};
    system.counters = {{"Processes", 0x00010000, 200, {}}};
    started->Write({.perf_time = 1,
                    .perf_time_100ns = 1,
                    .perf_freq = 10000000,
                    .objects = {process, memory, system}});
    return started;
  }();
  return server.get();
}

std::unique_ptr<MsrrpSource> NewSource(SambaServer& server) {
  return std::make_unique<MsrrpSource>(
      *ParseRemoteTarget(server.target()),
      SmbCredentials{
          .user = server.options().user, .password = server.options().password, .domain = ""});
}

void BM_MsrrpSnapshotWarm(benchmark::State& state) {
  SambaServer* server = Server();
  if (server == nullptr) return state.SkipWithError("no Samba here (see samba_server.h)");
  std::unique_ptr<MsrrpSource> source = NewSource(*server);
  if (!source->TakeSnapshot("Global").ok()) return state.SkipWithError("first snapshot failed");
  size_t bytes = 0;
  for (auto _ : state) {
    Result<std::vector<uint8_t>> snapshot = source->TakeSnapshot("Global");
    if (!snapshot.ok()) return state.SkipWithError(snapshot.error().c_str());
    bytes += snapshot->size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_MsrrpSnapshotWarm)->Unit(benchmark::kMicrosecond)->UseRealTime();

// One poll round over `targets` sources (each its own SMB session on the same smbd).
void BM_MsrrpSnapshotManyTargets(benchmark::State& state) {
  SambaServer* server = Server();
  if (server == nullptr) return state.SkipWithError("no Samba here (see samba_server.h)");
  std::vector<std::unique_ptr<MsrrpSource>> sources;
  for (int64_t i = 0; i < state.range(0); ++i) sources.push_back(NewSource(*server));
  for (auto _ : state) {
    for (std::unique_ptr<MsrrpSource>& source : sources) {
      Result<std::vector<uint8_t>> snapshot = source->TakeSnapshot("Global");
      if (!snapshot.ok()) return state.SkipWithError(snapshot.error().c_str());
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MsrrpSnapshotManyTargets)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Connect (TCP, SMB negotiate, NTLMv2 session, tree connect, pipe open, bind, open keys) and
// take the first snapshot.
void BM_MsrrpConnectToFirstSnapshot(benchmark::State& state) {
  SambaServer* server = Server();
  if (server == nullptr) return state.SkipWithError("no Samba here (see samba_server.h)");
  for (auto _ : state) {
    std::unique_ptr<MsrrpSource> source = NewSource(*server);
    Result<std::vector<uint8_t>> snapshot = source->TakeSnapshot("Global");
    if (!snapshot.ok()) return state.SkipWithError(snapshot.error().c_str());
    state.PauseTiming();
    source.reset();  // closing is not part of the first snapshot
    state.ResumeTiming();
  }
}
BENCHMARK(BM_MsrrpConnectToFirstSnapshot)->Unit(benchmark::kMillisecond)->UseRealTime();

// User and system CPU of this process, all threads.
double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The agent's remote polling: range(0) hosts (one smbd, each host its own SMB session) sampled
// by their Samplers through a pool of range(1) workers, each host scheduled every 5 ms so that
// it is read about as often as it can be (ticks that find the host still busy are skipped; their
// timers are part of the CPU counted).
// Counters: snapshots_per_s and cpu_us_per_snapshot over 2 s of steady polling (connections
// already up), and first_all_ms, from starting every host at once to the last one's first
// snapshot (connect, logon, bind, titles, snapshot). Snapshots are spooled (the agent writes each
// ahead to disk) and kept in memory: no shipping.
void BM_AgentPollsTargets(benchmark::State& state) {
  SambaServer* server = Server();
  if (server == nullptr) return state.SkipWithError("no Samba here (see samba_server.h)");
  constexpr auto kWindow = std::chrono::seconds(2);
  Env& env = Env::Default();
  std::ostringstream log_text;
  Logger log(log_text, env);
  testing::TempDir dir;
  QuerySchedule global;
  global.name = "Global";
  double snapshots_per_s = 0, cpu_us = 0, first_all_ms = 0;
  for (auto _ : state) {
    std::unique_ptr<Spool> spool =
        std::move(Spool::Open(env, dir.path(), 1ull << 30, std::nullopt, log)).value();
    Outbox outbox(*spool, {}, 1ull << 40, log);
    outbox.SetConnected(true);  // keeps them in memory
    asio::io_context io;
    asio::thread_pool workers(static_cast<size_t>(state.range(1)));
    std::vector<std::unique_ptr<MsrrpSource>> sources;
    std::vector<std::unique_ptr<Sampler>> samplers;
    for (int64_t i = 0; i < state.range(0); ++i) {
      sources.push_back(NewSource(*server));
      samplers.push_back(std::make_unique<Sampler>(
          io, *sources.back(), outbox, log,
          SnapshotOwner{.host = {.name = "bench" + std::to_string(i), .os = "", .os_version = ""},
                        .agentless = true},
          "bench" + std::to_string(i), std::vector<QuerySchedule>{global},
          std::chrono::milliseconds(5), &workers));
    }
    auto taken = [&] {
      uint64_t sum = 0;
      for (const auto& sampler : samplers) sum += sampler->stats().taken;
      return sum;
    };
    auto started = std::chrono::steady_clock::now();
    std::optional<std::chrono::steady_clock::time_point> window_start;
    double cpu_at_start = 0;
    uint64_t taken_at_start = 0;
    asio::steady_timer check(io);
    std::function<void()> poll = [&] {
      check.expires_after(std::chrono::milliseconds(1));
      check.async_wait([&](const std::error_code&) {
        auto now = std::chrono::steady_clock::now();
        if (!window_start) {
          bool all = true;
          for (const auto& sampler : samplers) all &= sampler->stats().taken > 0;
          if (all) {
            window_start = now;
            first_all_ms = std::chrono::duration<double, std::milli>(now - started).count();
            cpu_at_start = ProcessCpuSeconds();
            taken_at_start = taken();
          }
        } else if (now - *window_start >= kWindow) {
          uint64_t count = taken() - taken_at_start;
          double seconds = std::chrono::duration<double>(now - *window_start).count();
          snapshots_per_s = static_cast<double>(count) / seconds;
          cpu_us = (ProcessCpuSeconds() - cpu_at_start) * 1e6 / static_cast<double>(count);
          for (auto& sampler : samplers) sampler->Stop();
          return;
        }
        poll();
      });
    };
    for (auto& sampler : samplers) sampler->Start();
    poll();
    io.run();
    workers.join();
  }
  state.counters["snapshots_per_s"] = snapshots_per_s;
  state.counters["cpu_us_per_snapshot"] = cpu_us;
  state.counters["first_all_ms"] = first_all_ms;
}
BENCHMARK(BM_AgentPollsTargets)
    ->Args({1, 1})
    ->Args({16, 1})
    ->Args({16, 8})
    ->Args({64, 8})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace perfhive
