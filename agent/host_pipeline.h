// HostPipeline: the way of one host's snapshots to the server: its source, spool, outbox,
// shipper (one stream under the host's own identity) and sampler. The agent runs one for its
// own host, or one for each host it polls remotely, each as if that host had an agent of its
// own: its own instance id, sequence numbers, spool folder (locked while the pipeline runs),
// stream and health. It is also where the server's word for the host lands (ShipperDelegate):
// a central collection plan replaces the local queries, interval and spool limit, without a
// restart, and is kept in the spool folder for the next start; a certificate due is renewed.

#ifndef PERFHIVE_AGENT_HOST_PIPELINE_H_
#define PERFHIVE_AGENT_HOST_PIPELINE_H_

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/logger.h"
#include "agent/outbox.h"
#include "agent/sampler.h"
#include "agent/shipper.h"
#include "agent/spool.h"
#include "pki/enrollment_client.h"
#include "port/env.h"
#include "proto/collection_plan.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// Where and how every pipeline of the agent ships.
struct ServerConnection {
  std::string server;  // HOST:PORT
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string token;
  // Of an enrolled credential (empty, null: none): its folder, the host it names (a poller's own
  // name for the hosts it polls) and its channel credentials, which renewal replaces, shared by
  // every host a poller polls with its one certificate.
  std::string credential_dir;
  std::string credential_host;
  std::shared_ptr<StreamCredentials> renewable;
};

struct HostPipelineOptions {
  SnapshotOwner owner;
  std::string spool_dir;
  // The local settings, in force while no central plan says otherwise.
  uint64_t spool_max_bytes = 0;
  std::vector<QuerySchedule> queries;
  std::chrono::milliseconds interval{10000};
  // Which of them were given (flags, config file) rather than defaults: a plan that overrides
  // one of those says so in the log and to the server.
  bool queries_given = false;
  bool interval_given = false;
  bool spool_max_bytes_given = false;
  // The host's labels as the agent was given them, sent in every Hello; a plan's labels win
  // over them at the server, and the ones they override are reported like the settings above.
  query::HostLabels labels = {};
  // A replay hands out its recording's files in order and follows no plan.
  bool follows_plans = true;
  // The channel credentials of an enrolled credential (ServerConnection's): for renewing the
  // certificate on the stream. Null: the host is not enrolled.
  std::function<Result<std::shared_ptr<grpc::ChannelCredentials>>(const EnrolledCredential&)>
      credentials_for;
  // A poller's own stream (Poller): it samples nothing, and the targets of its plan go to
  // `on_plan`, which answers with what it could not do (for the plan's report).
  bool poller_stream = false;
  std::function<std::vector<std::string>(const CollectionPlan&)> on_plan = nullptr;
  // A polled host's: the poller polling it (--poller-name), whose plan may name it.
  std::string poller = "";
};

class HostPipeline : public ShipperDelegate {
 public:
  // `workers`: where the source is read (null: on the io thread). `log` outlives the pipeline.
  static Result<std::unique_ptr<HostPipeline>> Create(
      asio::io_context& io, asio::thread_pool* workers, std::unique_ptr<SnapshotSource> source,
      HostPipelineOptions options, const ServerConnection& server, Env& env, Logger& log);
  HostPipeline(const HostPipeline&) = delete;
  HostPipeline& operator=(const HostPipeline&) = delete;

  void Start();
  void StopSampling() { sampler_->Stop(); }
  // Whether a read of the source is still running on the worker pool: the pipeline must outlive
  // it.
  bool reading() const { return sampler_->reading(); }
  // Ends the stream and spools what the server has not answered.
  void Finish();
  // One line for the log: what was taken, sent, answered, left and lost.
  std::string Summary() const;
  // Logs "stopped HOST: <Summary>", as an error when snapshots were lost.
  void LogStopped(Logger& log) const;
  // Snapshots taken that the server will never have.
  uint64_t lost() const { return outbox_->lost().total(); }

  const HostPipelineOptions& options() const { return options_; }
  // The central plan in force (io thread); no revision: the local settings.
  const CollectionPlan& plan() const { return plan_; }
  const std::string& instance_id() const { return instance_id_; }
  SnapshotSource& source() { return *source_; }
  Sampler& sampler() { return *sampler_; }
  Outbox& outbox() { return *outbox_; }

 private:
  HostPipeline(asio::io_context& io, Env& env, HostPipelineOptions options,
               std::unique_ptr<SnapshotSource> source, std::unique_ptr<Spool> spool, Logger& log);

  // ShipperDelegate, on the shipper's threads.
  void OnPlan(const v1::CollectionPlan& plan) override;
  Result<std::string> MakeRenewalRequest() override;
  Result<RenewedCredentials> AdoptCertificate(const std::string& certificate_pem) override;

  // On the io thread: puts `plan` in force (or says why not) and reports to the server.
  void ApplyPlan(const Result<CollectionPlan>& plan);
  // Puts `plan` in force: the sampler's queries, the spool's limit.
  void Enact(const CollectionPlan& plan);
  // The local settings given that `plan` overrides, one line each.
  std::vector<std::string> Conflicts(const CollectionPlan& plan) const;
  // The plan kept in the spool folder by an earlier run; none when there is none.
  CollectionPlan LoadKeptPlan();
  void KeepPlan(const CollectionPlan& plan);

  asio::io_context& io_;
  Env& env_;
  const HostPipelineOptions options_;
  const std::string instance_id_;
  Logger& log_;
  CollectionPlan plan_;          // in force; touched on the io thread only
  ServerConnection credential_;  // where the streams go, and with which credential
  // Declared in the order they depend on each other, so they are destroyed in reverse.
  std::unique_ptr<SnapshotSource> source_;
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<Outbox> outbox_;
  std::unique_ptr<Shipper> shipper_;
  std::unique_ptr<Sampler> sampler_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_HOST_PIPELINE_H_
