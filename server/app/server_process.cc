#include "server/app/server_process.h"

#include <chrono>
#include <cstddef>
#include <iostream>
#include <string_view>
#include <utility>

#include "port/env.h"
#include "server/app/listen_address.h"
#include "server/app/stop_signals.h"

namespace perfhive {
namespace {

// How often the store commits at most under load: a fleet's appends share a transaction and an
// fsync per interval instead of paying one each (10,000 hosts at a 10 s interval are 1,000
// snapshots a second), and none waits longer than this for its commit to start.
constexpr std::chrono::milliseconds kCommitInterval{5};

}  // namespace

Result<std::unique_ptr<ServerProcess>> ServerProcess::Start(const ServerConfig& options) {
  std::unique_ptr<ServerProcess> server(new ServerProcess(options));
  if (Status s = server->OpenAccess(); !s.ok()) return s;
  if (Status s = server->OpenStore(); !s.ok()) return s;
  server->StartIngest();
  if (Status s = server->OpenEnrollment(); !s.ok()) return s;
  if (Status s = server->OpenPolicies(); !s.ok()) return s;
  server->StartQuery();
  if (Status s = server->OpenAlerting(); !s.ok()) return s;
  if (Status s = server->StartExport(); !s.ok()) return s;
  server->ChooseHttpSecurity();
  if (Status s = server->StartMetricsHttp(); !s.ok()) return s;
  if (Status s = server->StartConsole(); !s.ok()) return s;
  if (Status s = server->StartGrpc(); !s.ok()) return s;
  server->StartLoops();
  return server;
}

Status ServerProcess::OpenAccess() {
  Result<std::optional<OwnCa>> own_ca = LoadOwnCa(options_);
  if (!own_ca.ok()) return own_ca.status();
  own_ca_ = std::move(own_ca).value();
  Result<std::shared_ptr<grpc::ServerCredentials>> credentials =
      GrpcServerCredentials(options_, own_ca_);
  if (!credentials.ok()) return credentials.status();
  credentials_ = *credentials;
  Result<TokenTable> tokens = TokenTable::AllowAll();
  if (!options_.tokens.empty()) {
    tokens = TokenTable::Load(options_.tokens);
  } else if (own_ca_.has_value()) {
    tokens = TokenTable::None();  // enrolled agents only
  } else if (!options_.insecure) {
    return Status::InvalidArgument(
        "give --tokens FILE (tokens in the config file), or run perfhive-server init and enroll "
        "agents: without either anyone could write and read");
  }
  if (!tokens.ok()) return tokens.status();
  tokens_.emplace(std::move(tokens).value());
  return Status();
}

Status ServerProcess::OpenStore() {
  Result<std::unique_ptr<Store>> store =
      Store::Open(options_.data, StoreOptions{.commit_interval = kCommitInterval});
  if (!store.ok()) return store.status().Prefixed("cannot open the store: ");
  store_ = std::move(store).value();
  if (!store_->gives_pages_back()) {
    log_.Warn("store-keeps-free-pages",
              {{"data", options_.data},
               {"message",
                "this store was made before freed pages were given back to the file system: "
                "retention and compaction free pages that later appends reuse, but the file does "
                "not shrink; to convert it, stop the server and run sqlite3 " +
                    store_->path() + " 'PRAGMA auto_vacuum=INCREMENTAL; VACUUM;'"}});
  }
  return Status();
}

void ServerProcess::StartIngest() {
  limits_ = IngestLimits{.max_snapshot_bytes = static_cast<size_t>(options_.max_snapshot_bytes),
                         .max_snapshots_per_second = options_.max_snapshots_per_second,
                         .max_bytes_in_flight = options_.max_ingest_bytes_in_flight};
  ingest_ = std::make_unique<IngestService>(*store_, *tokens_, limits_, log_);
}

Status ServerProcess::OpenEnrollment() {
  if (!own_ca_.has_value()) return Status();
  Result<std::unique_ptr<EnrollmentRegistry>> opened = EnrollmentRegistry::Open(options_.data);
  if (!opened.ok()) return opened.status().Prefixed("the enrollment registry: ");
  registry_ = std::move(opened).value();
  enrolled_ = std::make_unique<EnrolledClients>(*registry_);
  enrollment_ = std::make_unique<EnrollmentService>(
      own_ca_->ca, *registry_, log_, std::chrono::seconds(options_.certificate_lifetime_seconds));
  ingest_->set_enrolled_clients(enrolled_.get());
  ingest_->set_renewals(enrollment_.get());
  return Status();
}

Status ServerProcess::OpenPolicies() {
  if (options_.policies.empty()) return Status();
  Result<std::unique_ptr<PolicyFile>> opened = PolicyFile::Open(Env::Default(), options_.policies);
  if (!opened.ok()) return opened.status().Prefixed("--policies: ");
  policies_ = std::move(opened).value();
  ingest_->set_policies(policies_.get());
  log_.Info("policies", {{"file", options_.policies},
                         {"policies", std::to_string(policies_->book()->policies().size())}});
  return Status();
}

void ServerProcess::StartQuery() {
  host_labels_ = std::make_unique<HostLabelDirectory>(*store_, policies_.get());
  loader_ = std::make_unique<SampleLoader>(*store_);
  query_ = std::make_unique<QueryService>(*store_, *loader_, *tokens_);
  query_->set_max_query_bytes(options_.max_query_bytes);
  query_->set_enrollment(registry_.get(), enrolled_.get());
  query_->set_policies(policies_.get());
  query_->set_host_labels(host_labels_->Lookup());
}

Status ServerProcess::OpenAlerting() {
  if (options_.rules.empty()) {
    if (options_.alertmanager.empty()) return Status();
    return Status::InvalidArgument(
        "--alertmanager: alerts come from rules; give --rules FILE too (docs/alerts.md)");
  }
  if (!options_.alertmanager.empty()) {
    Result<HttpClientOptions> http = AlertmanagerHttp(options_);
    if (!http.ok()) return http.status().Prefixed("--alertmanager: ");
    // Notifications link back to the console where there is one.
    std::string console;
    if (!options_.http_listen.empty()) {
      console = std::string(options_.insecure ? "http" : "https") + "://" + options_.http_listen +
                "/#alerts";
    }
    alertmanager_ = std::make_unique<AlertmanagerNotifier>(
        AlertmanagerOptions{.url = options_.alertmanager, .http = *http, .generator_url = console},
        &log_);
  }
  alert_reads_ = std::make_unique<query::ReadEngine>(*loader_);
  alert_reads_->set_max_bytes(options_.max_query_bytes);
  alert_reads_->set_host_labels(host_labels_->Lookup());
  // The rules' paths are followed as the ingest stores samples, so that their evaluations read
  // the last minutes from memory rather than from the store.
  live_series_ = std::make_unique<query::LiveSeries>();
  alert_reads_->set_live_series(live_series_.get());
  ingest_->set_live_series(live_series_.get(), loader_.get());
  Result<std::unique_ptr<Alerting>> opened = Alerting::Open(
      Env::Default(), options_.rules, options_.data,
      [this](const query::ReadRequest& request) { return alert_reads_->Read(request); },
      host_labels_->Lookup(), alertmanager_.get(), log_);
  if (!opened.ok()) return opened.status().Prefixed("--rules: ");
  alerting_ = std::move(opened).value();
  alerting_->set_live_series(live_series_.get());
  query_->set_alerting(alerting_.get());
  log_.Info("rules",
            {{"file", options_.rules},
             {"rules", std::to_string(alerting_->Listing().rules.size())},
             {"alertmanager", options_.alertmanager.empty() ? "-" : options_.alertmanager}});
  return Status();
}

Status ServerProcess::StartExport() {
  Result<ExportSelection> selection =
      ExportSelection::Parse(options_.export_include, options_.export_exclude);
  if (!selection.ok()) return selection.status();
  selection_.emplace(std::move(selection).value());
  Result<HttpClientOptions> http = RemoteWriteHttp(options_);
  if (!http.ok()) return http.status();
  for (const std::string& url : options_.remote_write) {
    PrometheusExporterOptions exporter;
    exporter.writer.url = url;
    exporter.writer.http = *http;
    exporter.host_labels = host_labels_->Lookup();
    exporter.new_host_lookback = std::chrono::seconds(options_.remote_write_backfill_seconds);
    exporters_.push_back(
        std::make_unique<PrometheusExporter>(*store_, *loader_, *selection_, exporter, log_));
    log_.Info("remote-write", {{"receiver", exporters_.back()->receiver()}});
  }
  metrics_page_ = std::make_unique<ServerMetricsPage>(
      *store_, *loader_, *selection_, ingest_->counters(), exporters_, host_labels_->Lookup());
  metrics_page_->set_alerting(alerting_.get());
  return Status();
}

void ServerProcess::ChooseHttpSecurity() {
  // HTTP (/metrics, the console) with gRPC's TLS certificate; plain only where gRPC is too.
  if (!options_.insecure) {
    http_options_.tls_cert_file = options_.tls_cert;
    http_options_.tls_key_file = options_.tls_key;
  }
}

Status ServerProcess::StartMetricsHttp() {
  if (options_.metrics_listen.empty()) return Status();
  Result<std::pair<std::string, uint16_t>> where = SplitHostPort(options_.metrics_listen);
  if (!where.ok()) return where.status().Prefixed("--metrics-listen: ");
  if (options_.insecure && !IsLoopback(options_.metrics_listen)) {
    return Status::InvalidArgument("--metrics-listen: --insecure serves on loopback only");
  }
  // Prometheus scrapes with a read token (its authorization.credentials_file).
  MetricsHttpOptions metrics_options{.http = http_options_};
  if (!options_.insecure) {
    metrics_options.authorize = [this](std::string_view authorization) {
      Result<Principal> scraper = tokens_->Authenticate(authorization);
      if (!scraper.ok()) return scraper.status();
      if (!scraper->read) {
        return Status::PermissionDenied("token \"" + scraper->name + "\" may not read");
      }
      return Status();
    };
  }
  Result<std::unique_ptr<MetricsHttpServer>> started = MetricsHttpServer::Start(
      where->first, where->second, [this] { return metrics_page_->Render(); }, metrics_options);
  if (!started.ok()) return started.status().Prefixed("--metrics-listen: ");
  metrics_server_ = std::move(started).value();
  std::string address = where->first + ":" + std::to_string(metrics_server_->port());
  log_.Info("metrics", {{"address", address}});
  std::cout << "perfhive-server: metrics on " << (options_.insecure ? "http" : "https") << "://"
            << address << "/metrics" << std::endl;
  return Status();
}

Status ServerProcess::StartConsole() {
  if (options_.http_listen.empty()) return Status();
  Result<std::pair<std::string, uint16_t>> where = SplitHostPort(options_.http_listen);
  if (!where.ok()) return where.status().Prefixed("--http-listen: ");
  if (options_.insecure && !IsLoopback(options_.http_listen)) {
    return Status::InvalidArgument(
        "--http-listen: --insecure serves on loopback only; for " + options_.http_listen +
        " give --tls-cert and --tls-key (or run perfhive-server init) and --tokens");
  }
  Result<std::unique_ptr<ConsoleServer>> started =
      ConsoleServer::Start(where->first, where->second, *query_, *tokens_,
                           /*login_required=*/!options_.insecure, http_options_);
  if (!started.ok()) return started.status().Prefixed("--http-listen: ");
  console_ = std::move(started).value();
  std::string address = where->first + ":" + std::to_string(console_->port());
  log_.Info("console", {{"address", address}});
  std::cout << "perfhive-server: console on " << (options_.insecure ? "http" : "https") << "://"
            << address << "/" << std::endl;
  return Status();
}

Status ServerProcess::StartGrpc() {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options_.listen, credentials_, &port);
  builder.SetMaxReceiveMessageSize(MaxReceiveMessageBytes(limits_));
  builder.RegisterService(ingest_.get());
  builder.RegisterService(query_.get());
  if (enrollment_ != nullptr) builder.RegisterService(enrollment_.get());
  grpc_server_ = builder.BuildAndStart();
  if (!grpc_server_ || port == 0) {
    return Status::Unavailable("cannot listen on " + options_.listen +
                               " (in use, or not an address of this host?)");
  }
  std::string address = options_.listen.substr(0, options_.listen.rfind(':'));
  log_.Info("listening", {{"address", address + ":" + std::to_string(port)},
                          {"data", options_.data},
                          {"tls", options_.insecure ? "off" : "on"}});
  std::cout << "perfhive-server: listening on " << address << ":" << port << std::endl;
  return Status();
}

void ServerProcess::StartLoops() {
  retention_ = std::make_unique<RetentionLoop>(
      *store_,
      RetentionPolicy{.max_age_ns = options_.retention_age_seconds * 1'000'000'000,
                      .max_bytes = options_.retention_bytes},
      log_, loop_control_);
  compaction_ = std::make_unique<CompactionLoop>(*store_, log_, loop_control_);
  stream_upkeep_ =
      std::make_unique<StreamUpkeepLoop>(*ingest_, policies_.get(), log_, loop_control_);
  retention_->Start();
  if (options_.compact_groups) compaction_->Start();
  stream_upkeep_->Start();
  if (alerting_ != nullptr) {
    alerting_loop_ = std::make_unique<AlertingLoop>(*alerting_, loop_control_);
    alerting_loop_->Start();
  }
}

void ServerProcess::ServeUntilSignalled() {
  std::string stopped_by = WaitForStopSignal([this] { loop_control_.RequestReload(); });
  log_.Info("stopping", {{"signal", stopped_by}});
  Stop();
}

void ServerProcess::Stop() {
  // The first Stop asks every loop to stop at once; each then waits for its own to end.
  retention_->Stop();
  compaction_->Stop();
  stream_upkeep_->Stop();
  if (alerting_loop_) alerting_loop_->Stop();
  // What Alertmanager was not given yet is given after the next start (the alerts are saved).
  if (alertmanager_) alertmanager_->Stop();
  if (console_) console_->Stop();
  if (metrics_server_) metrics_server_->Stop();
  // What was delivered is persisted; the rest is sent again after the next start.
  for (auto& exporter : exporters_) exporter->Stop();
  // Streams get a moment to finish what is in flight; acknowledged snapshots are durable already.
  grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc_server_->Wait();
}

}  // namespace perfhive
