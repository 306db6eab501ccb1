// The MS-RRP source against a private smbd on loopback (tests/support/samba_server.h): remote
// snapshots per second on a warm connection, the same spread over many targets (one smbd
// polled as many hosts, each with its own connection), and the time from connecting to the
// first snapshot. CPU time is the client's (the agent's) share; smbd's is not counted.
// Skipped where Samba cannot run (not root, not installed).

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "sources/msrrp/msrrp_source.h"
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

}  // namespace
}  // namespace perfhive
