// ServerProcess: perfhive-server running. It opens the store and builds the named services
// over it in the order they depend on each other (access, store, ingest, enrollment, policies,
// query, export, the HTTP servers, gRPC, then the background loops), serves until a signal, and
// stops them in the order that lets work in flight finish: the loops, the HTTP servers, the
// exporters, then gRPC's streams. Its members are declared in the order they are made, so that
// they are destroyed in the reverse order.

#ifndef PERFHIVE_SERVER_APP_SERVER_PROCESS_H_
#define PERFHIVE_SERVER_APP_SERVER_PROCESS_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "export/http_server.h"
#include "export/metrics_http_server.h"
#include "query/live_series.h"
#include "server/alerts/alerting.h"
#include "server/alerts/alertmanager_notifier.h"
#include "server/api/query_service.h"
#include "server/app/server_config.h"
#include "server/app/server_credentials.h"
#include "server/enrollment/enrolled_clients.h"
#include "server/enrollment/enrollment_registry.h"
#include "server/enrollment/enrollment_service.h"
#include "server/enrollment/token_table.h"
#include "server/export/export_selection.h"
#include "server/export/prometheus_exporter.h"
#include "server/export/server_metrics.h"
#include "server/http/console_server.h"
#include "server/ingest/ingest_service.h"
#include "server/log/server_log.h"
#include "server/policies/host_labels.h"
#include "server/policies/policy_book.h"
#include "server/upkeep/alerting_loop.h"
#include "server/upkeep/compaction_loop.h"
#include "server/upkeep/loop_control.h"
#include "server/upkeep/retention_loop.h"
#include "server/upkeep/stream_upkeep_loop.h"
#include "store/sample_loader.h"
#include "store/store.h"

namespace perfhive {

class ServerProcess {
 public:
  // Builds and starts every service `options` asks for; an error names what could not be
  // opened or started, and what had started is stopped again.
  static Result<std::unique_ptr<ServerProcess>> Start(const ServerConfig& options);
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Serves until SIGINT or SIGTERM (a SIGHUP meanwhile asks the stream upkeep for a pass that
  // reads the policies again), then stops every service.
  void ServeUntilSignalled();

 private:
  explicit ServerProcess(const ServerConfig& options) : options_(options) {}

  // Each step of Start, in its order.
  Status OpenAccess();  // the own CA, gRPC's credentials, the token table
  Status OpenStore();
  void StartIngest();
  Status OpenEnrollment();
  Status OpenPolicies();
  void StartQuery();
  Status OpenAlerting();  // the rules, their saved alerts, the Alertmanager notifier
  Status StartExport();
  void ChooseHttpSecurity();  // for /metrics and the console
  Status StartMetricsHttp();
  Status StartConsole();
  Status StartGrpc();
  void StartLoops();

  void Stop();

  const ServerConfig options_;
  std::optional<OwnCa> own_ca_;
  std::shared_ptr<grpc::ServerCredentials> credentials_;
  std::optional<TokenTable> tokens_;
  // Enrollment, where the server has its own CA.
  std::unique_ptr<EnrollmentRegistry> registry_;
  std::unique_ptr<EnrolledClients> enrolled_;
  std::unique_ptr<EnrollmentService> enrollment_;
  std::unique_ptr<Store> store_;
  ServerLog log_;
  IngestLimits limits_;
  // The rules' paths as the ingest stores them (with --rules); before the ingest, which feeds
  // it, and the rules' reads.
  std::unique_ptr<query::LiveSeries> live_series_;
  std::unique_ptr<IngestService> ingest_;
  std::unique_ptr<PolicyFile> policies_;
  std::unique_ptr<HostLabelDirectory> host_labels_;  // after the store and the policies it reads
  std::unique_ptr<SampleLoader> loader_;
  std::unique_ptr<QueryService> query_;
  std::unique_ptr<query::ReadEngine> alert_reads_;  // the rules' own, beside the clients'
  std::unique_ptr<AlertmanagerNotifier> alertmanager_;
  std::unique_ptr<Alerting> alerting_;
  std::optional<ExportSelection> selection_;
  std::vector<std::unique_ptr<PrometheusExporter>> exporters_;
  std::unique_ptr<ServerMetricsPage> metrics_page_;
  HttpServerOptions http_options_;
  std::unique_ptr<MetricsHttpServer> metrics_server_;
  std::unique_ptr<ConsoleServer> console_;
  std::unique_ptr<grpc::Server> grpc_server_;
  LoopControl loop_control_;
  std::unique_ptr<RetentionLoop> retention_;
  std::unique_ptr<CompactionLoop> compaction_;
  std::unique_ptr<StreamUpkeepLoop> stream_upkeep_;
  std::unique_ptr<AlertingLoop> alerting_loop_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_SERVER_PROCESS_H_
