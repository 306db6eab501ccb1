#include "agent/host_pipeline.h"

#include "agent/instance_id.h"
#include "agent/run_command.h"

namespace perfhive {
namespace {

// Snapshots kept in memory while connected; beyond this they wait in the spool.
constexpr uint64_t kOutboxMemoryBytes = 64ull << 20;

}  // namespace

HostPipeline::HostPipeline(HostPipelineOptions options, std::unique_ptr<SnapshotSource> source,
                           std::unique_ptr<Spool> spool, Logger& log)
    : options_(std::move(options)),
      instance_id_(NewInstanceId()),
      log_(log),
      source_(std::move(source)),
      spool_(std::move(spool)),
      outbox_(std::make_unique<Outbox>(*spool_, kOutboxMemoryBytes, log)) {}

Result<std::unique_ptr<HostPipeline>> HostPipeline::Create(
    asio::io_context& io, asio::thread_pool* workers, std::unique_ptr<SnapshotSource> source,
    HostPipelineOptions options, const ServerConnection& server, Env& env, Logger& log) {
  Result<std::unique_ptr<Spool>> spool =
      Spool::Open(env, options.spool_dir, options.spool_max_bytes, log);
  if (!spool.ok()) return spool.status();
  std::unique_ptr<HostPipeline> pipeline(
      new HostPipeline(std::move(options), std::move(source), std::move(spool).value(), log));
  HostPipeline& p = *pipeline;
  p.shipper_ = std::make_unique<Shipper>(ShipperOptions{.server = server.server,
                                                        .credentials = server.credentials,
                                                        .token = server.token,
                                                        .identity = p.options_.identity,
                                                        .source_kind = p.options_.source_kind,
                                                        .agent_version = kAgentVersion,
                                                        .instance_id = p.instance_id_},
                                         *p.outbox_, *p.spool_, log);
  p.sampler_ =
      std::make_unique<Sampler>(io, *p.source_, *p.shipper_, *p.outbox_, log, p.instance_id_,
                                p.options_.queries, p.options_.interval, workers);
  return pipeline;
}

void HostPipeline::Start() {
  log_.Info("host " + options_.identity.name + ", instance " + instance_id_ + ", spool " +
            options_.spool_dir);
  sampler_->Start();
  shipper_->Start();
}

void HostPipeline::Finish() {
  shipper_->Stop();
  outbox_->SpillAll();
}

std::string HostPipeline::Summary() const {
  const SamplerStats& sampled = sampler_->stats();
  ShipperStats shipped = shipper_->stats();
  return std::to_string(sampled.taken) + " snapshots taken, " +
         std::to_string(sampled.missed_ticks) + " ticks skipped, " +
         std::to_string(sampled.failed) + " failed; " + std::to_string(shipped.sent) + " sent (" +
         std::to_string(shipped.raw_bytes) + " raw bytes as " +
         std::to_string(shipped.payload_bytes) + "), " + std::to_string(shipped.acked) +
         " acknowledged (" + std::to_string(shipped.duplicates) + " duplicates), " +
         std::to_string(shipped.refused) + " refused; " + std::to_string(outbox_->size()) +
         " left in the spool, " + std::to_string(outbox_->lost()) + " lost";
}

}  // namespace perfhive
