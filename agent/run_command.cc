#include "agent/run_command.h"

#include <asio.hpp>
#include <csignal>
#include <memory>

#include "agent/instance_id.h"
#include "agent/outbox.h"
#include "agent/sampler.h"
#include "agent/shipper.h"
#include "agent/spool.h"
#include "sources/replay/replay_source.h"

#ifdef _WIN32
#include "sources/hkpd/hkpd_source.h"
#else
#include "sources/procfs/procfs_source.h"
#endif

namespace perfhive {
namespace {

// Snapshots kept in memory while connected; beyond this they wait in the spool.
constexpr uint64_t kOutboxMemoryBytes = 64ull << 20;
// How often a replay checks whether the server has answered everything.
constexpr std::chrono::milliseconds kReplayPoll{50};

Result<std::unique_ptr<SnapshotSource>> OpenSource(const AgentConfig& config, Env& env) {
  if (config.source == "replay") {
    if (config.replay_dir.empty()) {
      return Status::InvalidArgument("--source replay needs --replay DIR");
    }
    ReplayOptions options;
    options.dir = config.replay_dir;
    options.identity.name = config.host_name;
    Result<std::unique_ptr<ReplaySource>> replay = ReplaySource::Open(env, std::move(options));
    if (!replay.ok()) return replay.status();
    return std::unique_ptr<SnapshotSource>(std::move(replay).value());
  }
#ifdef _WIN32
  if (config.source == "hkpd" || config.source.empty()) return MakeLocalHkpdSource();
  return Status::InvalidArgument("the " + config.source +
                                 " source is not available on Windows; use --source hkpd");
#else
  if (config.source == "procfs" || config.source.empty()) {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create(
        ProcfsOptions{.proc_root = config.proc_root, .sys_root = config.sys_root});
    if (!source.ok()) return source.status();
    return std::unique_ptr<SnapshotSource>(std::move(source).value());
  }
  return Status::InvalidArgument("the " + config.source +
                                 " source reads HKEY_PERFORMANCE_DATA and is only available on "
                                 "Windows; on this platform use --source procfs");
#endif
}

Result<std::string> ReadToken(Env& env, const std::string& path) {
  if (path.empty()) return std::string();
  Result<std::vector<uint8_t>> bytes = env.ReadFile(path);
  if (!bytes.ok()) return bytes.status().Prefixed("--token-file: ");
  std::string token(bytes->begin(), bytes->end());
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) return Status::InvalidArgument("--token-file: " + path + " is empty");
  return token;
}

}  // namespace

int RunAgent(const AgentConfig& config, Env& env, Logger& log) {
  auto fail = [&](const Status& status) {
    log.Error(status.message());
    return 1;
  };
  if (config.server.empty()) {
    return fail(Status::InvalidArgument("no server: give --server HOST:PORT"));
  }
  bool replay = config.source == "replay";
  Result<std::unique_ptr<SnapshotSource>> source = OpenSource(config, env);
  if (!source.ok()) return fail(source.status());
  auto* replay_source = replay ? static_cast<ReplaySource*>(source->get()) : nullptr;
  Result<HostIdentity> identity = (*source)->Identity();
  if (!identity.ok()) return fail(identity.status());
  if (!config.host_name.empty()) identity->name = config.host_name;

  Result<std::shared_ptr<grpc::ChannelCredentials>> credentials = MakeChannelCredentials(
      env, config.insecure, config.ca_file, config.cert_file, config.key_file);
  if (!credentials.ok()) return fail(credentials.status());
  if (config.insecure) {
    log.Warning("--insecure: snapshots travel to " + config.server +
                " in plain text, and the server is not authenticated");
  }
  Result<std::string> token = ReadToken(env, config.token_file);
  if (!token.ok()) return fail(token.status());

  std::string spool_dir = config.spool_dir.empty() ? DefaultSpoolDirectory() : config.spool_dir;
  Result<std::unique_ptr<Spool>> spool = Spool::Open(env, spool_dir, config.spool_max_bytes, log);
  if (!spool.ok()) return fail(spool.status());
  Outbox outbox(**spool, kOutboxMemoryBytes, log);

  std::string instance_id = NewInstanceId();
  Shipper shipper(ShipperOptions{.server = config.server,
                                 .credentials = *credentials,
                                 .token = *token,
                                 .identity = *identity,
                                 .agent_version = kAgentVersion,
                                 .instance_id = instance_id},
                  outbox, **spool, log);

  // A replay hands out its files one per interval, whatever the query.
  std::vector<QuerySchedule> queries = config.queries;
  if (queries.empty() || replay) {
    queries.assign(1, QuerySchedule());
    queries.front().name = "Global";
  }
  if (replay) queries.front().every = config.interval;

  asio::io_context io;
  Sampler sampler(io, **source, shipper, outbox, log, instance_id, queries, config.interval);
  int exit_code = 0;
  bool signalled = false;
  auto stop = [&] {
    sampler.Stop();
    io.stop();
  };
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const std::error_code& error, int signal) {
    if (error) return;
    log.Info("stopping on signal " + std::to_string(signal));
    signalled = true;
    stop();
  });
  asio::steady_timer timeout(io);
  if (config.timeout) {
    timeout.expires_after(*config.timeout);
    timeout.async_wait([&](const std::error_code& error) {
      if (error) return;
      if (replay) {
        log.Error("replay: " + std::to_string(outbox.size() + replay_source->remaining()) +
                  " snapshots still unanswered at the timeout");
        exit_code = 1;
      } else {
        log.Info("stopping at the timeout");
      }
      stop();
    });
  }
  bool source_done = false;
  asio::steady_timer replay_poll(io);
  std::function<void()> poll_replay = [&] {
    replay_poll.expires_after(kReplayPoll);
    replay_poll.async_wait([&](const std::error_code& error) {
      if (error) return;
      if (outbox.size() == 0) {
        log.Info("replay: the server answered all " + std::to_string(replay_source->file_count()) +
                 " files");
        stop();
        return;
      }
      poll_replay();
    });
  };
  sampler.OnSourceExhausted([&] {
    source_done = true;
    if (replay) poll_replay();
  });

  log.Info("perfhive-agent " + std::string(kAgentVersion) + " run: host " + identity->name +
           ", instance " + instance_id + ", server " + config.server + ", spool " + spool_dir);
  sampler.Start();
  shipper.Start();
  io.run();
  shipper.Stop();
  outbox.SpillAll();

  const SamplerStats& sampled = sampler.stats();
  ShipperStats shipped = shipper.stats();
  log.Info("stopped: " + std::to_string(sampled.taken) + " snapshots taken, " +
           std::to_string(sampled.missed_ticks) + " ticks skipped, " +
           std::to_string(sampled.failed) + " failed; " + std::to_string(shipped.sent) + " sent (" +
           std::to_string(shipped.raw_bytes) + " raw bytes as " +
           std::to_string(shipped.payload_bytes) + "), " + std::to_string(shipped.acked) +
           " acknowledged (" + std::to_string(shipped.duplicates) + " duplicates), " +
           std::to_string(shipped.refused) + " refused; " + std::to_string(outbox.size()) +
           " left in the spool, " + std::to_string(outbox.lost()) + " lost");
  // A replay that ended on its own answered everything, unless the spool dropped some.
  if (replay && !signalled && exit_code == 0 && (!source_done || outbox.lost() > 0)) {
    exit_code = 1;
  }
  return exit_code;
}

}  // namespace perfhive
