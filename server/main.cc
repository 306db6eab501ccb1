// perfhive-server: receives raw snapshots from agents (Ingest), keeps them in its embedded store
// and answers queries (Query); optionally pushes computed values to Prometheus-compatible
// receivers (remote write) and serves /metrics. docs/wire_protocol.md, docs/store_format.md and
// docs/prometheus.md describe them; README shows how to start it.

#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "export/metrics_http_server.h"
#include "perfhive/version.h"
#include "pki/certificate_authority.h"
#include "port/env.h"
#include "server/app/enroll_command.h"
#include "server/app/server_config.h"
#include "server/enrollment/enrolled_clients.h"
#include "server/enrollment/enrollment_registry.h"
#include "server/enrollment/enrollment_service.h"
#include "server/enrollment/server_pki.h"
#include "server/enrollment/token_table.h"
#include "server/export/export_selection.h"
#include "server/export/prometheus_exporter.h"
#include "server/export/server_metrics.h"
#include "server/http/console_server.h"
#include "server/ingest/ingest_service.h"
#include "server/log/server_log.h"
#include "server/policies/policy_book.h"
#include "server/query_service.h"
#include "server/sample_loader.h"
#include "store/store.h"

namespace perfhive {
namespace {

// How often the store commits at most under load: a fleet's appends share a transaction and an
// fsync per interval instead of paying one each (10,000 hosts at a 10 s interval are 1,000
// snapshots a second), and none waits longer than this for its commit to start.
constexpr std::chrono::milliseconds kCommitInterval{5};
// How often the compaction pass looks for closed groups, and how long a group must have had no
// append to count as closed (its host went quiet: a new group starts when it speaks again).
// A group of 60 fills in a minute at 1 s, ten at 10 s: a host idle longer than that has stopped.
constexpr std::chrono::seconds kCompactionInterval{10};
constexpr std::chrono::seconds kCompactIdleGroupsAfter{15 * 60};
constexpr size_t kCompactionGroupsPerCall = 256;

bool IsLoopback(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  return host == "localhost" || host.starts_with("127.") || host == "[::1]" || host == "::1";
}

Result<std::string> ReadText(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(std::string("cannot read the ") + what + " " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The server's own CA when `perfhive-server init` made one in the data directory: it signs the
// certificates of enrolling agents, and TLS asks clients for one (without requiring it: token
// holders have none).
struct OwnCa {
  CertificateAuthority ca;
  std::string certificate_pem;
};
Result<std::optional<OwnCa>> LoadOwnCa(const ServerConfig& options) {
  if (options.insecure) return std::optional<OwnCa>();
  ServerPkiPaths paths = PkiPaths(options.data);
  Result<std::string> certificate = ReadText(paths.ca_certificate, "CA certificate");
  if (!certificate.ok()) return std::optional<OwnCa>();
  Result<std::string> key = ReadText(paths.ca_key, "CA key");
  if (!key.ok()) return key.status();
  Result<CertificateAuthority> ca = CertificateAuthority::Load(*certificate, *key);
  if (!ca.ok()) return ca.status().Prefixed(paths.ca_certificate + ": ");
  return std::optional<OwnCa>(OwnCa{std::move(ca).value(), *certificate});
}

Result<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServerConfig& options,
                                                             const std::optional<OwnCa>& own_ca) {
  if (options.insecure) {
    if (!IsLoopback(options.listen)) {
      return Status::InvalidArgument(
          "--insecure listens on loopback only (127.0.0.1, localhost, [::1]); for " +
          options.listen + " give --tls-cert and --tls-key (tls_cert, tls_key in the config file)");
    }
    return grpc::InsecureServerCredentials();
  }
  if (options.tls_cert.empty() || options.tls_key.empty()) {
    return Status::InvalidArgument(
        "no TLS certificate: run perfhive-server init --data " + options.data +
        " --name NAME once (or give --tls-cert and --tls-key), and --tokens; or --insecure for "
        "plain text on loopback (in the config file: tls_cert, tls_key, tokens, insecure)");
  }
  Result<std::string> cert = ReadText(options.tls_cert, "TLS certificate");
  if (!cert.ok()) return cert.status();
  Result<std::string> key = ReadText(options.tls_key, "TLS key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!options.client_ca.empty()) {
    Result<std::string> ca = ReadText(options.client_ca, "client CA");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  } else if (own_ca.has_value()) {
    ssl.pem_root_certs = own_ca->certificate_pem;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

// A secret kept in a file, without the line end an editor adds.
Result<std::string> ReadSecret(const std::string& path, const char* what) {
  Result<std::string> text = ReadText(path, what);
  if (!text.ok()) return text;
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
  return text;
}

Result<HttpClientOptions> RemoteWriteHttp(const ServerConfig& options) {
  HttpClientOptions http;
  if (!options.remote_write_bearer_token_file.empty()) {
    Result<std::string> token =
        ReadSecret(options.remote_write_bearer_token_file, "remote-write bearer token");
    if (!token.ok()) return token.status();
    http.bearer_token = *token;
  }
  if (!options.remote_write_user.empty()) {
    http.username = options.remote_write_user;
    if (!options.remote_write_password_file.empty()) {
      Result<std::string> password =
          ReadSecret(options.remote_write_password_file, "remote-write password");
      if (!password.ok()) return password.status();
      http.password = *password;
    }
  }
  http.ca_file = options.remote_write_ca;
  return http;
}

// HOST:PORT, with the port a number.
Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("give HOST:PORT, not " + address);
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535) return Status::InvalidArgument("bad port in " + address);
  return std::make_pair(host, static_cast<uint16_t>(port));
}

Status Run(const ServerConfig& options) {
  Result<std::optional<OwnCa>> own_ca = LoadOwnCa(options);
  if (!own_ca.ok()) return own_ca.status();
  Result<std::shared_ptr<grpc::ServerCredentials>> credentials = Credentials(options, *own_ca);
  if (!credentials.ok()) return credentials.status();
  Result<TokenTable> tokens = TokenTable::AllowAll();
  if (!options.tokens.empty()) {
    tokens = TokenTable::Load(options.tokens);
  } else if (own_ca->has_value()) {
    tokens = TokenTable::None();  // enrolled agents only
  } else if (!options.insecure) {
    return Status::InvalidArgument(
        "give --tokens FILE (tokens in the config file), or run perfhive-server init and enroll "
        "agents: without either anyone could write and read");
  }
  if (!tokens.ok()) return tokens.status();
  // Enrollment, where the server has its own CA.
  std::unique_ptr<EnrollmentRegistry> registry;
  std::unique_ptr<EnrolledClients> enrolled;
  std::unique_ptr<EnrollmentService> enrollment;
  Result<std::unique_ptr<Store>> store =
      Store::Open(options.data, StoreOptions{.commit_interval = kCommitInterval});
  if (!store.ok()) return store.status().Prefixed("cannot open the store: ");

  ServerLog log;
  if (!(*store)->gives_pages_back()) {
    log.Warn("store-keeps-free-pages",
             {{"data", options.data},
              {"message",
               "this store was made before freed pages were given back to the file system: "
               "retention and compaction free pages that later appends reuse, but the file does "
               "not shrink; to convert it, stop the server and run sqlite3 " +
                   (*store)->path() + " 'PRAGMA auto_vacuum=INCREMENTAL; VACUUM;'"}});
  }
  IngestLimits limits{.max_snapshot_bytes = static_cast<size_t>(options.max_snapshot_bytes),
                      .max_snapshots_per_second = options.max_snapshots_per_second,
                      .max_bytes_in_flight = options.max_ingest_bytes_in_flight};
  IngestService ingest(**store, *tokens, limits, log);
  if (own_ca->has_value()) {
    Result<std::unique_ptr<EnrollmentRegistry>> opened = EnrollmentRegistry::Open(options.data);
    if (!opened.ok()) return opened.status().Prefixed("the enrollment registry: ");
    registry = std::move(opened).value();
    enrolled = std::make_unique<EnrolledClients>(*registry);
    enrollment = std::make_unique<EnrollmentService>(
        (*own_ca)->ca, *registry, log, std::chrono::seconds(options.certificate_lifetime_seconds));
    ingest.set_enrolled_clients(enrolled.get());
    ingest.set_renewals(enrollment.get());
  }
  std::unique_ptr<PolicyFile> policies;
  if (!options.policies.empty()) {
    Result<std::unique_ptr<PolicyFile>> opened = PolicyFile::Open(Env::Default(), options.policies);
    if (!opened.ok()) return opened.status().Prefixed("--policies: ");
    policies = std::move(opened).value();
    ingest.set_policies(policies.get());
    log.Info("policies", {{"file", options.policies},
                          {"policies", std::to_string(policies->book()->policies().size())}});
  }
  SampleLoader loader(**store);
  QueryService query(**store, loader, *tokens);
  query.set_max_query_bytes(options.max_query_bytes);
  query.set_enrollment(registry.get(), enrolled.get());
  query.set_policies(policies.get());

  Result<ExportSelection> selection =
      ExportSelection::Parse(options.export_include, options.export_exclude);
  if (!selection.ok()) return selection.status();
  Result<HttpClientOptions> http = RemoteWriteHttp(options);
  if (!http.ok()) return http.status();
  std::vector<std::unique_ptr<PrometheusExporter>> exporters;
  for (const std::string& url : options.remote_write) {
    PrometheusExporterOptions exporter;
    exporter.writer.url = url;
    exporter.writer.http = *http;
    exporters.push_back(
        std::make_unique<PrometheusExporter>(**store, loader, *selection, exporter, log));
    log.Info("remote-write", {{"receiver", exporters.back()->receiver()}});
  }
  ServerMetricsPage metrics_page(**store, loader, *selection, ingest.counters(), exporters);
  // HTTP (/metrics, the console) with gRPC's TLS certificate; plain only where gRPC is too.
  HttpServerOptions http_options;
  if (!options.insecure) {
    http_options.tls_cert_file = options.tls_cert;
    http_options.tls_key_file = options.tls_key;
  }
  std::unique_ptr<MetricsHttpServer> metrics_server;
  if (!options.metrics_listen.empty()) {
    Result<std::pair<std::string, uint16_t>> where = SplitHostPort(options.metrics_listen);
    if (!where.ok()) return where.status().Prefixed("--metrics-listen: ");
    if (options.insecure && !IsLoopback(options.metrics_listen)) {
      return Status::InvalidArgument("--metrics-listen: --insecure serves on loopback only");
    }
    // Prometheus scrapes with a read token (its authorization.credentials_file).
    MetricsHttpOptions metrics_options{.http = http_options};
    if (!options.insecure) {
      metrics_options.authorize = [&tokens](std::string_view authorization) {
        Result<Principal> scraper = tokens->Authenticate(authorization);
        if (!scraper.ok()) return scraper.status();
        if (!scraper->read) {
          return Status::PermissionDenied("token \"" + scraper->name + "\" may not read");
        }
        return Status();
      };
    }
    Result<std::unique_ptr<MetricsHttpServer>> started = MetricsHttpServer::Start(
        where->first, where->second, [&metrics_page] { return metrics_page.Render(); },
        metrics_options);
    if (!started.ok()) return started.status().Prefixed("--metrics-listen: ");
    metrics_server = std::move(started).value();
    std::string address = where->first + ":" + std::to_string(metrics_server->port());
    log.Info("metrics", {{"address", address}});
    std::cout << "perfhive-server: metrics on " << (options.insecure ? "http" : "https") << "://"
              << address << "/metrics" << std::endl;
  }
  std::unique_ptr<ConsoleServer> console;
  if (!options.http_listen.empty()) {
    Result<std::pair<std::string, uint16_t>> where = SplitHostPort(options.http_listen);
    if (!where.ok()) return where.status().Prefixed("--http-listen: ");
    if (options.insecure && !IsLoopback(options.http_listen)) {
      return Status::InvalidArgument(
          "--http-listen: --insecure serves on loopback only; for " + options.http_listen +
          " give --tls-cert and --tls-key (or run perfhive-server init) and --tokens");
    }
    Result<std::unique_ptr<ConsoleServer>> started =
        ConsoleServer::Start(where->first, where->second, query, *tokens,
                             /*login_required=*/!options.insecure, http_options);
    if (!started.ok()) return started.status().Prefixed("--http-listen: ");
    console = std::move(started).value();
    std::string address = where->first + ":" + std::to_string(console->port());
    log.Info("console", {{"address", address}});
    std::cout << "perfhive-server: console on " << (options.insecure ? "http" : "https") << "://"
              << address << "/" << std::endl;
  }

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, *credentials, &port);
  builder.SetMaxReceiveMessageSize(MaxReceiveMessageBytes(limits));
  builder.RegisterService(&ingest);
  builder.RegisterService(&query);
  if (enrollment != nullptr) builder.RegisterService(enrollment.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    return Status::Unavailable("cannot listen on " + options.listen +
                               " (in use, or not an address of this host?)");
  }
  std::string address = options.listen.substr(0, options.listen.rfind(':'));
  log.Info("listening", {{"address", address + ":" + std::to_string(port)},
                         {"data", options.data},
                         {"tls", options.insecure ? "off" : "on"}});
  std::cout << "perfhive-server: listening on " << address << ":" << port << std::endl;

  // Retention runs every minute until a signal stops the server.
  std::mutex mutex;
  std::condition_variable stop_requested;
  bool stopping = false;
  std::thread retention([&] {
    RetentionPolicy policy{.max_age_ns = options.retention_age_seconds * 1'000'000'000,
                           .max_bytes = options.retention_bytes};
    std::unique_lock lock(mutex);
    while (!stop_requested.wait_for(lock, std::chrono::minutes(1), [&] { return stopping; })) {
      if (policy.max_age_ns == 0 && policy.max_bytes == 0) continue;
      Result<RetentionResult> result = (*store)->ApplyRetention(policy, UnixNanosNow());
      if (!result.ok()) {
        log.Error("retention", {{"message", result.error()}});
      } else if (result->snapshots_deleted > 0) {
        log.Info("retention", {{"deleted", std::to_string(result->snapshots_deleted)},
                               {"bytes", std::to_string(result->bytes_deleted)},
                               {"transactions", std::to_string(result->transactions)}});
      }
    }
  });
  // Closed groups become columnar blocks within seconds; a group its stream stopped adding to
  // (a host gone quiet) once it has been idle for kCompactIdleGroupsAfter.
  std::thread compaction([&] {
    if (!options.compact_groups) return;
    std::unique_lock lock(mutex);
    while (!stop_requested.wait_for(lock, kCompactionInterval, [&] { return stopping; })) {
      // In budgets of groups, so that a stop is not held up by a long pass (the first after an
      // upgrade takes every group stored before).
      bool more = true;
      while (more && !stopping) {
        lock.unlock();
        const int64_t idle_before =
            UnixNanosNow() - kCompactIdleGroupsAfter.count() * 1'000'000'000;
        Result<CompactionResult> result =
            (*store)->CompactClosedGroups(idle_before, kCompactionGroupsPerCall);
        more = result.ok() && result->more;
        if (!result.ok()) {
          log.WarnOncePerBurst("compaction-failed", "store", {{"message", result.error()}});
        } else if (result->groups > 0) {
          log.Info("compaction", {{"groups", std::to_string(result->groups)},
                                  {"snapshots", std::to_string(result->snapshots)},
                                  {"bytes_saved", std::to_string(result->bytes_saved)},
                                  {"transactions", std::to_string(result->transactions)}});
        }
        lock.lock();
      }
    }
  });
  // Every 2 s (and at once on SIGHUP) the open streams hear what changed: a revoked host's
  // stream ends, a certificate due is renewed, a changed policy's plan is sent.
  bool reload_requested = false;
  std::thread streams([&] {
    std::unique_lock lock(mutex);
    while (!stopping) {
      stop_requested.wait_for(lock, std::chrono::seconds(2),
                              [&] { return stopping || reload_requested; });
      if (stopping) break;
      bool forced = std::exchange(reload_requested, false);
      lock.unlock();
      if (int closed = ingest.CloseRevokedStreams(); closed > 0) {
        log.Info("revoked", {{"streams", std::to_string(closed)}});
      }
      ingest.AskRenewals(std::chrono::system_clock::now());
      if (policies != nullptr) {
        Result<bool> changed = policies->Reload();
        if (!changed.ok()) {
          // The policies in force stay; the file is read again at the next pass.
          log.WarnOncePerBurst("policies-unreadable", options.policies,
                               {{"file", options.policies}, {"message", changed.error()}});
        } else if (*changed || forced) {
          log.Info("policies", {{"file", options.policies},
                                {"policies", std::to_string(policies->book()->policies().size())},
                                {"reason", forced ? "SIGHUP" : "changed"}});
        }
        if (int offered = ingest.OfferPlans(); offered > 0) {
          log.Info("plans-sent", {{"streams", std::to_string(offered)}});
        }
      }
      lock.lock();
    }
  });

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  int signal_number = 0;
  while (sigwait(&signals, &signal_number) == 0 && signal_number == SIGHUP) {
    std::lock_guard lock(mutex);
    reload_requested = true;
    stop_requested.notify_all();
  }
  log.Info("stopping", {{"signal", signal_number == SIGINT ? "SIGINT" : "SIGTERM"}});
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  stop_requested.notify_all();
  retention.join();
  compaction.join();
  streams.join();
  if (console) console->Stop();
  if (metrics_server) metrics_server->Stop();
  // What was delivered is persisted; the rest is sent again after the next start.
  for (auto& exporter : exporters) exporter->Stop();
  // Streams get a moment to finish what is in flight; acknowledged snapshots are durable already.
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  server->Wait();
  return Status();
}

}  // namespace
}  // namespace perfhive

int main(int argc, char** argv) {
  // Signals are taken by sigwait in Run; every thread started after this inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  CLI::App app{"perfhive-server: receives raw snapshots from agents, stores them, answers queries"};
  app.set_version_flag("--version", std::string("perfhive-server ") + perfhive::kPerfhiveVersion);
  perfhive::ServerFlags flags(app);
  perfhive::InitOptions init_options;
  CLI::App* init = app.add_subcommand(
      "init",
      "Make this server's certificate authority and TLS certificate in DIR/pki, and print the "
      "fingerprint agents pin (--ca-sha256); run again to change names or renew the "
      "certificate, keeping the CA");
  init->add_option("--data", init_options.data_dir, "The server's data directory")->required();
  init->add_option("--name", init_options.names,
                   "A DNS name agents dial (repeatable); localhost is always added");
  init->add_option("--address", init_options.addresses,
                   "An IP address agents dial (repeatable); 127.0.0.1 and ::1 are always added");
  perfhive::EnrollCommands enroll_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version end here with 0; a bad flag is bad usage, 2, as a bad config file is
    // (the unit does not restart on 2).
    return app.exit(error) == 0 ? 0 : 2;
  }

  if (enroll_commands.parsed()) {
    perfhive::Status done = enroll_commands.Run(std::cout);
    if (!done.ok()) {
      std::cerr << "perfhive-server: " << done.message() << "\n";
      return done.code() == perfhive::StatusCode::kInvalidArgument ? 2 : 1;
    }
    return 0;
  }
  if (init->parsed()) {
    perfhive::Status made =
        perfhive::InitServerPki(perfhive::Env::Default(), init_options, std::cout);
    if (!made.ok()) {
      std::cerr << "perfhive-server init: " << made.message() << "\n";
      return made.code() == perfhive::StatusCode::kInvalidArgument ? 2 : 1;
    }
    return 0;
  }
  perfhive::Result<perfhive::ServerConfig> config = flags.Resolve(perfhive::Env::Default());
  if (!config.ok()) {
    std::cerr << "perfhive-server: " << config.error() << "\n";
    return 2;
  }
  perfhive::Status status = perfhive::Run(*config);
  if (!status.ok()) {
    std::cerr << "perfhive-server: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
