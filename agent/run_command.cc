#include "agent/run_command.h"

#include <asio.hpp>
#include <csignal>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <tuple>

#include "agent/config_update.h"
#include "agent/enrollment.h"
#include "agent/host_pipeline.h"
#include "agent/poller.h"
#include "perfdata/host_name.h"
#include "pki/pinned_ca.h"
#include "sources/replay/replay_source.h"

#ifdef _WIN32
#include "sources/hkpd/hkpd_source.h"
#else
#include "sources/procfs/procfs_source.h"
#endif

namespace perfhive {
namespace {

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

// A secret kept in a file (a token, an enrollment token), without its line end; `flag` names
// the setting in errors.
Result<std::string> ReadToken(Env& env, const std::string& path,
                              const std::string& flag = "--token-file") {
  if (path.empty()) return std::string();
  Result<std::vector<uint8_t>> bytes = env.ReadFile(path);
  if (!bytes.ok()) return bytes.status().Prefixed(flag + ": ");
  std::string token(bytes->begin(), bytes->end());
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ' ||
                            token.back() == '\t')) {
    token.pop_back();
  }
  if (token.empty()) return Status::InvalidArgument(flag + ": " + path + " is empty");
  return token;
}

// The queries in force: a replay hands out its files one per interval, whatever the query.
std::vector<QuerySchedule> Queries(const AgentConfig& config, bool replay) {
  std::vector<QuerySchedule> queries = config.queries;
  if (queries.empty() || replay) queries.assign(1, GlobalQuery());
  if (replay) queries.front().every = config.interval;
  return queries;
}

// Channel credentials from the agent's TLS settings: plain text when `insecure`, else TLS
// trusting the server's CA (`ca_file`, or the pinned `ca_sha256`, or the system's roots) and,
// with `cert_file` and `key_file`, a client certificate for mutual TLS.
Result<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    Env& env, const AgentConfig& config, const EnrolledCredential* enrolled = nullptr) {
  if (config.insecure) {
    if (!config.ca_file.empty() || !config.ca_sha256.empty() || !config.cert_file.empty() ||
        !config.key_file.empty()) {
      return Status::InvalidArgument(
          "--insecure cannot go with --ca, --ca-sha256, --cert or --key");
    }
    return grpc::InsecureChannelCredentials();
  }
  ClientTls tls;
  tls.ca_sha256 = config.ca_sha256;
  if (enrolled != nullptr) {
    if (!config.cert_file.empty() || !config.key_file.empty()) {
      return Status::InvalidArgument("this host is enrolled (a certificate in " +
                                     CredentialDirectory(config.host_name) +
                                     "): --cert and --key cannot go with it");
    }
    tls.certificate_pem = enrolled->certificate_pem;
    tls.key_pem = enrolled->key_pem;
  }
  for (auto [path, text, flag] : {std::tuple{&config.ca_file, &tls.ca_pem, "--ca: "},
                                  std::tuple{&config.cert_file, &tls.certificate_pem, "--cert: "},
                                  std::tuple{&config.key_file, &tls.key_pem, "--key: "}}) {
    if (path->empty()) continue;
    Result<std::vector<uint8_t>> bytes = env.ReadFile(*path);
    if (!bytes.ok()) return bytes.status().Prefixed(flag);
    text->assign(bytes->begin(), bytes->end());
  }
  return ClientChannelCredentials(tls);
}

// Removes the spent enrollment token from the settings file it came from, so that it does not
// lie in the file for anyone to read; a token given on the command line is the caller's.
void ForgetEnrollmentToken(const AgentConfig& config, Env& env, Logger& log) {
  if (!config.enroll_file.empty()) {
    if (Status removed = env.RemoveFile(config.enroll_file); removed.ok()) {
      log.Info("deleted the spent enrollment token " + config.enroll_file);
    }
  }
  if (config.config_file.empty()) return;
  Result<std::vector<uint8_t>> bytes = env.ReadFile(config.config_file);
  if (!bytes.ok()) return;
  std::string text(bytes->begin(), bytes->end());
  AgentConfig in_file;
  if (!LoadConfigText(text, config.config_file, in_file).ok() ||
      (in_file.enroll_token.empty() && in_file.enroll_file.empty())) {
    return;
  }
  ConfigUpdate update;
  update.enroll_token = "";
  update.enroll_file = "";
  Result<std::string> without = ApplyConfigUpdate(text, config.config_file, update);
  Status written = without.ok() ? env.WriteFileAtomically(config.config_file, TextBytes(*without))
                                : without.status();
  if (written.ok()) {
    log.Info("removed the spent enrollment token from " + config.config_file);
  } else {
    log.Warning("could not remove the spent enrollment token from " + config.config_file + ": " +
                written.message());
  }
}

// The connection of an enrolled host: its own certificate for mutual TLS, enrolling first when
// it has none yet and was given an enrollment token. Other hosts keep `plain`.
Result<ServerConnection> WithEnrolledCredential(const AgentConfig& config,
                                                const std::string& host_name,
                                                const std::vector<std::string>& targets,
                                                const ServerConnection& plain, Env& env,
                                                Logger& log) {
  if (config.insecure) {
    if (!config.enroll_token.empty() || !config.enroll_file.empty()) {
      return Status::InvalidArgument(
          "--enroll needs TLS: give --ca-sha256 (or --ca), not --insecure");
    }
    return plain;
  }
  std::string dir = CredentialDirectory(host_name);
  Result<std::optional<EnrolledCredential>> loaded = LoadCredential(env, dir);
  if (!loaded.ok()) return loaded.status();
  std::optional<EnrolledCredential> credential = std::move(loaded).value();
  if (credential && credential->expires <= std::chrono::system_clock::now()) {
    log.Warning("the certificate of " + host_name + " in " + dir + " has expired");
    credential.reset();
  }
  if (!credential) {
    std::string token = config.enroll_token;
    if (token.empty() && !config.enroll_file.empty()) {
      Result<std::string> read = ReadToken(env, config.enroll_file, "--enroll-file");
      if (!read.ok()) return read.status();
      token = *read;
    }
    if (token.empty()) return plain;
    if (config.ca_sha256.empty() && config.ca_file.empty()) {
      return Status::InvalidArgument(
          "--enroll needs the server's CA: give --ca-sha256 with the fingerprint perfhive-server "
          "init printed");
    }
    log.Info("enrolling " + host_name + " at " + config.server);
    Result<EnrolledCredential> enrolled =
        EnrollAgent(env, config.server, plain.credentials, token, host_name, targets, dir, log);
    if (!enrolled.ok()) return enrolled.status();
    credential = std::move(enrolled).value();
    log.Info("enrolled " + host_name + ": its certificate is in " + dir);
    ForgetEnrollmentToken(config, env, log);
  }
  AgentConfig with_host = config;
  with_host.host_name = host_name;
  Result<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials(env, with_host, &*credential);
  if (!credentials.ok()) return credentials.status();
  return ServerConnection{
      .server = plain.server,
      .credentials = *credentials,
      .token = plain.token,
      .credential_dir = dir,
      .credential_host = host_name,
      .renewable = std::make_shared<StreamCredentials>(*credentials, credential->expires)};
}

// The name a poller enrolls as: --poller-name, else this machine's name.
Result<std::string> PollerName(const AgentConfig& config, Env& env) {
  std::string poller = config.poller_name;
  if (poller.empty()) {
    AgentConfig local = config;
    local.targets.clear();
    local.host_name.clear();
    Result<std::unique_ptr<SnapshotSource>> own = OpenSource(local, env);
    Result<HostIdentity> identity = own.ok() ? (*own)->Identity() : own.status();
    if (!identity.ok()) return identity.status().Prefixed("this poller's own name: ");
    poller = identity->name;
  }
  if (Status valid = CheckHostName(poller); !valid.ok()) {
    return valid.Prefixed(config.poller_name.empty()
                              ? "this machine's name cannot be used, give --poller-name: "
                              : "--poller-name: ");
  }
  return poller;
}

}  // namespace

Result<ServerConnection> ConnectionFromConfig(const AgentConfig& config, Env& env, Logger& log) {
  if (config.server.empty()) {
    return Status::InvalidArgument("no server: give --server HOST:PORT");
  }
  Result<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials(env, config);
  if (!credentials.ok()) return credentials.status();
  if (config.insecure) {
    log.Warning("--insecure: snapshots travel to " + config.server +
                " in plain text, and the server is not authenticated");
  }
  Result<std::string> token = ReadToken(env, config.token_file);
  if (!token.ok()) return token.status();
  return ServerConnection{.server = config.server,
                          .credentials = *credentials,
                          .token = std::move(token).value(),
                          .credential_dir = "",
                          .credential_host = "",
                          .renewable = nullptr};
}

int RunAgent(const AgentConfig& config, Env& env, Logger& log) {
  auto fail = [&](const Status& status) {
    log.Error(status.message());
    return 1;
  };
  Result<ServerConnection> connection = ConnectionFromConfig(config, env, log);
  if (!connection.ok()) return fail(connection.status());
  const ServerConnection& server = *connection;
  // Without --spool-dir, every host has a folder of its own under the default root, so agents
  // with different names share the root; each folder is locked by the agent that uses it.
  std::string spool_root = config.spool_dir.empty() ? DefaultSpoolDirectory() : config.spool_dir;

  asio::io_context io;
  // Remote reads block for as long as the host takes; they run here, never on the io thread.
  asio::thread_pool workers(static_cast<size_t>(std::max(1, config.max_concurrent_polls)));
  std::unique_ptr<HostPipeline> local;  // this host's own source
  std::unique_ptr<Poller> poller;       // or the hosts it polls
  bool replay = config.source == "replay";
  // A refused enrollment is settled: exit 2, which the units do not restart on.
  auto enrollment_failed = [&](const Status& status) {
    log.Error(status.message());
    return status.code() == StatusCode::kUnauthenticated ||
                   status.code() == StatusCode::kInvalidArgument
               ? 2
               : 1;
  };
  // A renewed certificate makes new channel credentials the way the first one did.
  CredentialsFor credentials_for = [&config, &env](const EnrolledCredential& credential) {
    return MakeChannelCredentials(env, config, &credential);
  };
  if (config.targets.empty() && !config.poller) {
    Result<std::unique_ptr<SnapshotSource>> source = OpenSource(config, env);
    if (!source.ok()) return fail(source.status());
    Result<HostIdentity> identity = (*source)->Identity();
    if (!identity.ok()) return fail(identity.status());
    if (!config.host_name.empty()) identity->name = config.host_name;
    if (Status valid = CheckHostName(identity->name); !valid.ok()) {
      return fail(valid.Prefixed(config.host_name.empty()
                                     ? "this host's name cannot be used, give --host-name: "
                                     : "--host-name: "));
    }
    Result<ServerConnection> connection_of_host =
        WithEnrolledCredential(config, identity->name, {}, server, env, log);
    if (!connection_of_host.ok()) return enrollment_failed(connection_of_host.status());
    std::string spool_dir = config.spool_dir.empty()
                                ? spool_root + "/" + SpoolFolderName(identity->name)
                                : config.spool_dir;
    Result<std::unique_ptr<HostPipeline>> pipeline = HostPipeline::Create(
        io, nullptr, std::move(source).value(),
        HostPipelineOptions{.owner = SnapshotOwner{.host = *identity},
                            .spool_dir = spool_dir,
                            .spool_max_bytes = config.spool_max_bytes,
                            .queries = Queries(config, replay),
                            .interval = config.interval,
                            .queries_given = !config.queries.empty(),
                            .interval_given = config.interval_given,
                            .spool_max_bytes_given = config.spool_max_bytes_given,
                            .labels = config.labels,
                            .follows_plans = !replay,
                            .credentials_for = credentials_for},
        *connection_of_host, env, log);
    if (!pipeline.ok()) return fail(pipeline.status());
    local = std::move(pipeline).value();
  } else {
    // A poller enrolls as itself (--poller-name, else this machine's name) for the hosts it
    // polls: one certificate for all of them, and for those its policy gives it. In plain text
    // there is nothing to enroll.
    Result<std::string> name = PollerName(config, env);
    if (!name.ok()) return fail(name.status());
    Result<ServerConnection> connection_of_poller = server;
    if (!config.insecure) {
      std::vector<std::string> target_names;
      for (const RemoteHostConfig& target : config.targets) target_names.push_back(target.Name());
      connection_of_poller = WithEnrolledCredential(config, *name, target_names, server, env, log);
      if (!connection_of_poller.ok()) return enrollment_failed(connection_of_poller.status());
    }
    // A poller following the center hears its plan on a stream of its own, as this machine.
    std::unique_ptr<SnapshotSource> own;
    HostIdentity identity;
    if (config.poller) {
      AgentConfig local_config = config;
      local_config.source.clear();
      Result<std::unique_ptr<SnapshotSource>> source = OpenSource(local_config, env);
      if (!source.ok()) return fail(source.status());
      Result<HostIdentity> own_identity = (*source)->Identity();
      if (!own_identity.ok()) return fail(own_identity.status());
      own = std::move(source).value();
      identity = *own_identity;
    }
    Result<std::unique_ptr<Poller>> created =
        Poller::Create(config, *name, std::move(own), identity,
                       Poller::Context{.io = io,
                                       .workers = workers,
                                       .env = env,
                                       .log = log,
                                       .server = *connection_of_poller,
                                       .credentials_for = credentials_for,
                                       .spool_root = spool_root});
    if (!created.ok()) return fail(created.status());
    poller = std::move(created).value();
  }
  auto* replay_source = replay ? static_cast<ReplaySource*>(&local->source()) : nullptr;

  int exit_code = 0;
  bool signalled = false;
  auto stop = [&] {
    if (local != nullptr) local->StopSampling();
    if (poller != nullptr) poller->StopSampling();
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
        log.Error("replay: " + std::to_string(local->outbox().size() + replay_source->remaining()) +
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
      if (local->outbox().size() == 0) {
        log.Info("replay: the server answered all " + std::to_string(replay_source->file_count()) +
                 " files");
        stop();
        return;
      }
      poll_replay();
    });
  };
  if (local != nullptr) {
    local->sampler().OnSourceExhausted([&] {
      source_done = true;
      if (replay) poll_replay();
    });
  }

  size_t hosts = local != nullptr ? 1 : poller->host_count();
  log.Info("perfhive-agent " + std::string(kAgentVersion) + " run: " + std::to_string(hosts) +
           (hosts == 1 ? " host" : " hosts") + ", server " + config.server + ", spool " +
           spool_root);
  if (local != nullptr) local->Start();
  if (poller != nullptr) poller->Start();
  io.run();
  if (local != nullptr) local->Finish();
  if (poller != nullptr) poller->Finish();
  // A read still running on a remote host ends within its call timeout.
  workers.join();

  uint64_t lost = 0;
  if (local != nullptr) {
    local->LogStopped(log);
    lost = local->lost();
  }
  if (poller != nullptr) lost += poller->LogSummaries();
  // A replay that ended on its own answered everything, unless some was lost on the way.
  if (replay && !signalled && exit_code == 0 && (!source_done || lost > 0)) exit_code = 1;
  return exit_code;
}

}  // namespace perfhive
