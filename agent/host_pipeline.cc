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
      outbox_(std::make_unique<Outbox>(*spool_, spool_->TakeRecovered(), kOutboxMemoryBytes, log)) {
}

Result<std::unique_ptr<HostPipeline>> HostPipeline::Create(
    asio::io_context& io, asio::thread_pool* workers, std::unique_ptr<SnapshotSource> source,
    HostPipelineOptions options, const ServerConnection& server, Env& env, Logger& log) {
  Result<std::unique_ptr<Spool>> spool =
      Spool::Open(env, options.spool_dir, options.spool_max_bytes, options.owner, log);
  if (!spool.ok()) return spool.status();
  std::unique_ptr<HostPipeline> pipeline(
      new HostPipeline(std::move(options), std::move(source), std::move(spool).value(), log));
  HostPipeline& p = *pipeline;
  p.shipper_ = std::make_unique<Shipper>(ShipperOptions{.server = server.server,
                                                        .credentials = server.credentials,
                                                        .token = server.token,
                                                        .owner = p.options_.owner,
                                                        .agent_version = kAgentVersion,
                                                        .instance_id = p.instance_id_},
                                         *p.outbox_, *p.spool_, log);
  p.sampler_ =
      std::make_unique<Sampler>(io, *p.source_, *p.shipper_, *p.outbox_, log, p.options_.owner,
                                p.instance_id_, p.options_.queries, p.options_.interval, workers);
  return pipeline;
}

void HostPipeline::Start() {
  log_.Info("host " + options_.owner.Label() + ", instance " + instance_id_ + ", spool " +
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
  LostSnapshots lost = outbox_->lost();
  std::string summary =
      std::to_string(sampled.taken) + " snapshots taken, " + std::to_string(sampled.missed_ticks) +
      " ticks skipped, " + std::to_string(sampled.failed) + " failed; " +
      std::to_string(shipped.sent) + " sent (" + std::to_string(shipped.raw_bytes) +
      " raw bytes as " + std::to_string(shipped.payload_bytes) + "), " +
      std::to_string(shipped.acked) + " acknowledged (" + std::to_string(shipped.duplicates) +
      " duplicates), " + std::to_string(shipped.resent) + " asked for again; " +
      std::to_string(outbox_->size()) + " left in the spool; " + std::to_string(lost.total()) +
      " lost";
  if (lost.total() > 0) {
    summary += " (" + std::to_string(lost.refused) + " refused by the server, " +
               std::to_string(lost.dropped) + " dropped at the spool's limit, " +
               std::to_string(lost.unreadable) + " unreadable in the spool, " +
               std::to_string(lost.unspoolable) + " larger than the spool)";
  }
  return summary;
}

}  // namespace perfhive
