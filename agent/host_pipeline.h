// HostPipeline: the way of one host's snapshots to the server: its source, spool, outbox,
// shipper (one stream under the host's own identity) and sampler. The agent runs one for its
// own host, or one for each host it polls remotely, each as if that host had an agent of its
// own: its own instance id, sequence numbers, spool folder (locked while the pipeline runs),
// stream and health.

#ifndef PERFHIVE_AGENT_HOST_PIPELINE_H_
#define PERFHIVE_AGENT_HOST_PIPELINE_H_

#include <asio.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/logger.h"
#include "agent/outbox.h"
#include "agent/sampler.h"
#include "agent/shipper.h"
#include "agent/spool.h"
#include "port/env.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// Where and how every pipeline of the agent ships.
struct ServerConnection {
  std::string server;  // HOST:PORT
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string token;
};

struct HostPipelineOptions {
  SnapshotOwner owner;
  std::string spool_dir;
  uint64_t spool_max_bytes = 0;
  std::vector<QuerySchedule> queries;
  std::chrono::milliseconds interval{10000};
};

class HostPipeline {
 public:
  // `workers`: where the source is read (null: on the io thread). `log` outlives the pipeline.
  static Result<std::unique_ptr<HostPipeline>> Create(
      asio::io_context& io, asio::thread_pool* workers, std::unique_ptr<SnapshotSource> source,
      HostPipelineOptions options, const ServerConnection& server, Env& env, Logger& log);
  HostPipeline(const HostPipeline&) = delete;
  HostPipeline& operator=(const HostPipeline&) = delete;

  void Start();
  void StopSampling() { sampler_->Stop(); }
  // Ends the stream and spools what the server has not answered.
  void Finish();
  // One line for the log: what was taken, sent, answered, left and lost.
  std::string Summary() const;
  // Snapshots taken that the server will never have.
  uint64_t lost() const { return outbox_->lost().total(); }

  const HostPipelineOptions& options() const { return options_; }
  const std::string& instance_id() const { return instance_id_; }
  SnapshotSource& source() { return *source_; }
  Sampler& sampler() { return *sampler_; }
  Outbox& outbox() { return *outbox_; }

 private:
  HostPipeline(HostPipelineOptions options, std::unique_ptr<SnapshotSource> source,
               std::unique_ptr<Spool> spool, Logger& log);

  const HostPipelineOptions options_;
  const std::string instance_id_;
  Logger& log_;
  // Declared in the order they depend on each other, so they are destroyed in reverse.
  std::unique_ptr<SnapshotSource> source_;
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<Outbox> outbox_;
  std::unique_ptr<Shipper> shipper_;
  std::unique_ptr<Sampler> sampler_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_HOST_PIPELINE_H_
