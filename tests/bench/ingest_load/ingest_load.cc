// ingest_load: the ingest benchmark. Starts a real perfhive-server process on loopback with its
// store in a temporary directory, opens many concurrent agent streams from this process (each a
// host sending a keyframe, then deltas, of builder-made Windows-like snapshots), waits for every
// acknowledgement, and prints snapshots/s, raw MB/s, wire bytes per snapshot and the server's own
// CPU per snapshot (from /proc/PID/stat, so the simulated agents' work is not counted).
//   ingest_load [--streams N] [--snapshots-per-stream K] [--processes P]

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/well_known_indexes.h"
#include "perfhive/v1/ingest.grpc.pb.h"
#include "port/sha256.h"
#include "tests/e2e/e2e_cluster.h"
#include "wire/snapshot_delta.h"
#include "wire/title_digest.h"

namespace perfhive::testing {
namespace {

namespace v1 = perfhive::v1;
namespace ti = title_index;

std::string AsString(std::span<const uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// A Windows-like Global snapshot: `processes` processes with 12 counters each and 8 CPUs (2,000
// processes make about 300 KB); every counter moves from one sample to the next.
std::vector<uint8_t> Snapshot(int host, int sample, int processes) {
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

int64_t ProcessCpuTicks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  int64_t utime = 0, stime = 0;
  for (int n = 3; fields >> field; ++n) {
    if (n == 14) utime = std::stoll(field);
    if (n == 15) {
      stime = std::stoll(field);
      break;
    }
  }
  return utime + stime;
}

int Run(int streams, int per_stream, int processes) {
  ScratchDir scratch("ingest-load");
  ServerProcess server(scratch, {"--insecure", "--max-snapshots-per-second", "1000"});
  if (!server.Start()) return 1;

  TitleDatabase names;
  names.AddName(ti::kProcess, "Process");
  names.AddName(ti::kProcessor, "Processor");
  std::vector<uint8_t> counters = names.EncodeNames();
  Sha256Digest titles = TitleDigest("009", counters, {});

  // Frames are made before the clock starts: an agent's encoding is not the server's cost.
  std::vector<std::vector<v1::AgentMessage>> messages(streams);
  uint64_t raw_bytes = 0, wire_bytes = 0;
  for (int s = 0; s < streams; ++s) {
    std::vector<uint8_t> previous;
    for (int k = 0; k < per_stream; ++k) {
      std::vector<uint8_t> raw = Snapshot(s, k, processes);
      v1::AgentMessage message;
      v1::Snapshot* snapshot = message.mutable_snapshot();
      snapshot->set_instance_id("load-" + std::to_string(s));
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
      raw_bytes += raw.size();
      if (k > 0) wire_bytes += snapshot->payload().size();
      messages[s].push_back(std::move(message));
      previous = std::move(raw);
    }
  }

  pid_t pid = server.process()->pid();
  int64_t cpu_before = ProcessCpuTicks(pid);
  auto started = std::chrono::steady_clock::now();
  std::atomic<uint64_t> acked{0};
  std::vector<std::thread> clients;
  for (int s = 0; s < streams; ++s) {
    clients.emplace_back([&, s] {
      auto channel = grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials());
      auto stub = v1::Ingest::NewStub(channel);
      grpc::ClientContext context;
      auto stream = stub->Stream(&context);
      v1::AgentMessage hello;
      hello.mutable_hello()->set_protocol_version(1);
      hello.mutable_hello()->set_host_name("LOAD" + std::to_string(s));
      hello.mutable_hello()->set_instance_id("load-" + std::to_string(s));
      stream->Write(hello);
      v1::ServerMessage answer;
      stream->Read(&answer);
      v1::AgentMessage title_message;
      title_message.mutable_titles()->set_language("009");
      title_message.mutable_titles()->set_counters(AsString(counters));
      title_message.mutable_titles()->set_sha256(AsString(titles));
      stream->Write(title_message);
      std::thread writer([&] {
        for (const v1::AgentMessage& message : messages[s]) stream->Write(message);
        stream->WritesDone();
      });
      while (stream->Read(&answer)) {
        if (answer.has_ack()) ++acked;
      }
      writer.join();
      stream->Finish();
    });
  }
  for (std::thread& client : clients) client.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  double cpu_seconds = static_cast<double>(ProcessCpuTicks(pid) - cpu_before) /
                       static_cast<double>(sysconf(_SC_CLK_TCK));
  uint64_t total = static_cast<uint64_t>(streams) * static_cast<uint64_t>(per_stream);
  std::printf(
      "ingest_load: %d streams x %d snapshots of %.0f KB (raw), %llu acknowledged of %llu\n",
      streams, per_stream, static_cast<double>(raw_bytes) / total / 1024,
      static_cast<unsigned long long>(acked.load()), static_cast<unsigned long long>(total));
  std::printf("  %.0f snapshots/s, %.1f raw MB/s, wire %.1f%% of raw per steady-state snapshot\n",
              static_cast<double>(total) / seconds, static_cast<double>(raw_bytes) / seconds / 1e6,
              100.0 * static_cast<double>(wire_bytes) /
                  static_cast<double>(raw_bytes - raw_bytes / static_cast<uint64_t>(per_stream)));
  std::printf(
      "  server CPU %.2f ms per snapshot; 1,000 hosts at a 10 s interval would use %.2f "
      "of a core\n",
      cpu_seconds * 1000 / static_cast<double>(total),
      cpu_seconds / static_cast<double>(total) * 100);
  server.Stop();
  return acked.load() == total ? 0 : 1;
}

}  // namespace
}  // namespace perfhive::testing

int main(int argc, char** argv) {
  int streams = 100, per_stream = 20, processes = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--streams") == 0) streams = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--snapshots-per-stream") == 0) per_stream = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--processes") == 0) processes = std::atoi(argv[i + 1]);
  }
  return perfhive::testing::Run(streams, per_stream, processes);
}
