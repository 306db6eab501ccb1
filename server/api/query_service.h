// QueryService: the server side of perfhive.v1.Query, over the store. Reads are the query
// engine's (query/read_engine.h), turned into responses; browsing (hosts, objects, counters,
// instances) opens stored samples, one host's (query/browse.h) or many hosts' at once
// (query/fleet_browse.h). Every call needs a token that may read (or --insecure).

#ifndef PERFHIVE_SERVER_API_QUERY_SERVICE_H_
#define PERFHIVE_SERVER_API_QUERY_SERVICE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "perfhive/v1/query.grpc.pb.h"
#include "query/browse.h"
#include "query/fleet_browse.h"
#include "query/host_samples.h"
#include "query/read_engine.h"
#include "query/series_query.h"
#include "server/alerts/alerting.h"
#include "server/enrollment/enrolled_clients.h"
#include "server/enrollment/enrollment_registry.h"
#include "server/enrollment/token_table.h"
#include "server/policies/host_labels.h"
#include "server/policies/policy_book.h"
#include "store/sample_loader.h"
#include "store/store.h"

namespace perfhive {

class QueryService final : public perfhive::v1::Query::CallbackService {
 public:
  QueryService(Store& store, SampleLoader& loader, const TokenTable& tokens)
      : store_(store), loader_(loader), tokens_(tokens), engine_(loader), browser_(loader) {}

  // Enrollment: where ListHosts finds each host's credential, and the readers' certificates
  // (perfhive login); null: no enrollment.
  void set_enrollment(EnrollmentRegistry* registry, const EnrolledClients* enrolled) {
    registry_ = registry;
    enrolled_ = enrolled;
  }

  // The most bytes of samples a Read may restore (query::QueryOptions::max_bytes), estimated
  // before it loads them; reads of the latest values are bounded already.
  void set_max_query_bytes(uint64_t bytes) { engine_.set_max_bytes(bytes); }

  // Where hosts' labels come from, for reads and browsing that select hosts by label.
  void set_host_labels(const query::HostLabelsLookup& labels) {
    engine_.set_host_labels(labels);
    browser_.set_host_labels(labels);
    labels_ = labels;
  }

  // The engine that answers reads, for fronts other than gRPC (the HTTP API) that render its
  // answer themselves.
  query::ReadEngine& reads() { return engine_; }

  // The collection policies whose plan for each host ListHosts gives as its latest, and whose
  // labels it puts over the agents'; null: no policies.
  void set_policies(const PolicyFile* policies) { policies_ = policies; }

  // The alerting rules and their alerts ListAlerts lists; null: the server has no rules.
  void set_alerting(const Alerting* alerting) { alerting_ = alerting; }

  grpc::ServerUnaryReactor* ListHosts(grpc::CallbackServerContext* context,
                                      const perfhive::v1::ListHostsRequest* request,
                                      perfhive::v1::ListHostsResponse* response) override;
  grpc::ServerWriteReactor<perfhive::v1::SnapshotInfo>* ListSnapshots(
      grpc::CallbackServerContext* context,
      const perfhive::v1::ListSnapshotsRequest* request) override;
  grpc::ServerUnaryReactor* GetRawSnapshot(grpc::CallbackServerContext* context,
                                           const perfhive::v1::GetRawSnapshotRequest* request,
                                           perfhive::v1::RawSnapshot* response) override;
  grpc::ServerUnaryReactor* ListObjects(grpc::CallbackServerContext* context,
                                        const perfhive::v1::ListObjectsRequest* request,
                                        perfhive::v1::ListObjectsResponse* response) override;
  grpc::ServerUnaryReactor* ListCounters(grpc::CallbackServerContext* context,
                                         const perfhive::v1::ListCountersRequest* request,
                                         perfhive::v1::ListCountersResponse* response) override;
  grpc::ServerUnaryReactor* ListInstances(grpc::CallbackServerContext* context,
                                          const perfhive::v1::ListInstancesRequest* request,
                                          perfhive::v1::ListInstancesResponse* response) override;
  grpc::ServerWriteReactor<perfhive::v1::ReadResponse>* Read(
      grpc::CallbackServerContext* context, const perfhive::v1::ReadRequest* request) override;
  grpc::ServerUnaryReactor* ListAlerts(grpc::CallbackServerContext* context,
                                       const perfhive::v1::ListAlertsRequest* request,
                                       perfhive::v1::ListAlertsResponse* response) override;
  grpc::ServerUnaryReactor* Health(grpc::CallbackServerContext* context,
                                   const perfhive::v1::HealthRequest* request,
                                   perfhive::v1::HealthResponse* response) override;

  // The answers themselves, for callers that authorized the reader already (the gRPC methods
  // above, the console's HTTP API).
  Result<perfhive::v1::ListHostsResponse> Hosts(const perfhive::v1::ListHostsRequest& request);
  Result<perfhive::v1::ListObjectsResponse> Objects(
      const perfhive::v1::ListObjectsRequest& request);
  Result<perfhive::v1::ListCountersResponse> Counters(
      const perfhive::v1::ListCountersRequest& request);
  Result<perfhive::v1::ListInstancesResponse> Instances(
      const perfhive::v1::ListInstancesRequest& request);
  perfhive::v1::ListAlertsResponse Alerts() const;
  // The fleet's counter health (query/counter_health.h) of the hosts the request picks.
  Result<perfhive::v1::HealthResponse> FleetHealth(const perfhive::v1::HealthRequest& request);
  // A Read's answer as responses: the engine's series, split where a response would grow large.
  Result<std::vector<perfhive::v1::ReadResponse>> Answer(const perfhive::v1::ReadRequest& request);

 private:
  // Objects, Counters and Instances of several hosts (BrowseAt's pattern or selector).
  Result<perfhive::v1::ListObjectsResponse> FleetObjects(
      const perfhive::v1::ListObjectsRequest& request);
  Result<perfhive::v1::ListCountersResponse> FleetCounters(
      const perfhive::v1::ListCountersRequest& request);
  Result<perfhive::v1::ListInstancesResponse> FleetInstances(
      const perfhive::v1::ListInstancesRequest& request);
  // One host's samples to browse (SampleReader::BrowseSamples), the host as stored.
  struct BrowsedHost {
    HostRecord host;
    std::vector<query::HostSample> samples;
  };
  // The samples of the one host `where` names.
  Result<BrowsedHost> Browse(const perfhive::v1::BrowseAt& where);
  // The object named `object` in the host's samples; NOT_FOUND names the host and close names.
  static Result<query::BrowsedObject> FindObjectIn(const BrowsedHost& browsed,
                                                   const std::string& object);
  // The caller may read, or the error to finish with.
  Status Authorize(const grpc::CallbackServerContext& context) const;
  // The stored host named `name` (ignoring case), or NOT_FOUND naming the hosts that come close.
  Result<HostRecord> FindHost(const std::string& name);

  Store& store_;
  SampleLoader& loader_;
  const TokenTable& tokens_;
  EnrollmentRegistry* registry_ = nullptr;
  const EnrolledClients* enrolled_ = nullptr;
  const PolicyFile* policies_ = nullptr;
  const Alerting* alerting_ = nullptr;
  query::ReadEngine engine_;
  query::FleetBrowser browser_;
  query::HostLabelsLookup labels_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_API_QUERY_SERVICE_H_
