#include "agent/host_pipeline.h"

#include "agent/instance_id.h"
#include "agent/run_command.h"
#include "config/duration.h"
#include "perfdata/case_folding.h"
#include "pki/certificate_request.h"

namespace perfhive {
namespace {

// Snapshots kept in memory while connected; beyond this they wait in the spool.
constexpr uint64_t kOutboxMemoryBytes = 64ull << 20;

// The central plan in force, in the spool folder: perfhive.v1.CollectionPlan's bytes.
constexpr const char* kKeptPlanFile = "/plan.binpb";

// What is in force under `plan`: its settings where it has them, else the local ones.
std::vector<QuerySchedule> QueriesUnder(const CollectionPlan& plan,
                                        const HostPipelineOptions& local) {
  return plan.queries.empty() ? local.queries : plan.queries;
}
std::chrono::milliseconds IntervalUnder(const CollectionPlan& plan,
                                        const HostPipelineOptions& local) {
  return plan.interval.value_or(local.interval);
}
uint64_t SpoolLimitUnder(const CollectionPlan& plan, const HostPipelineOptions& local) {
  return plan.spool_max_bytes.value_or(local.spool_max_bytes);
}

}  // namespace

HostPipeline::HostPipeline(asio::io_context& io, Env& env, HostPipelineOptions options,
                           std::unique_ptr<SnapshotSource> source, std::unique_ptr<Spool> spool,
                           Logger& log)
    : io_(io),
      env_(env),
      options_(std::move(options)),
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
  std::unique_ptr<HostPipeline> pipeline(new HostPipeline(
      io, env, std::move(options), std::move(source), std::move(spool).value(), log));
  HostPipeline& p = *pipeline;
  p.credential_ = server;
  // The plan an earlier run was given holds until the server says otherwise.
  p.plan_ = p.LoadKeptPlan();
  p.spool_->SetMaxBytes(SpoolLimitUnder(p.plan_, p.options_));
  p.shipper_ = std::make_unique<Shipper>(ShipperOptions{.server = server.server,
                                                        .credentials = server.credentials,
                                                        .renewable = server.renewable,
                                                        .token = server.token,
                                                        .owner = p.options_.owner,
                                                        .agent_version = kAgentVersion,
                                                        .instance_id = p.instance_id_,
                                                        .poller_stream = p.options_.poller_stream,
                                                        .poller = p.options_.poller,
                                                        .labels = p.options_.labels,
                                                        .delegate = &p},
                                         *p.outbox_, log);
  p.sampler_ = std::make_unique<Sampler>(io, *p.source_, *p.outbox_, log, p.options_.owner,
                                         p.instance_id_, QueriesUnder(p.plan_, p.options_),
                                         IntervalUnder(p.plan_, p.options_), workers);
  p.sampler_->set_replaying(!p.options_.follows_plans);
  return pipeline;
}

void HostPipeline::Start() {
  log_.Info("host " + options_.owner.Label() + ", instance " + instance_id_ + ", spool " +
            options_.spool_dir);
  if (!plan_.revision.empty()) {
    log_.Info("following policy " + plan_.policy + " (revision " + plan_.revision +
              ", kept from an earlier run) until the server speaks: " + DescribePlan(plan_));
  }
  if (!options_.poller_stream) sampler_->Start();
  shipper_->Start();
}

void HostPipeline::Finish() {
  shipper_->Stop();
  outbox_->SpillAll();
}

void HostPipeline::OnPlan(const v1::CollectionPlan& message) {
  asio::post(io_, [this, plan = PlanFromProto(message)] { ApplyPlan(plan); });
}

void HostPipeline::ApplyPlan(const Result<CollectionPlan>& plan) {
  v1::PlanStatus status;
  if (!plan.ok()) {
    log_.Error("the server's collection plan cannot be applied: " + plan.error());
    status.set_revision(plan_.revision);
    status.set_error(plan.error());
  } else if (!options_.follows_plans) {
    if (!plan->revision.empty()) {
      status.set_error("a replay hands out its recording's files in order and follows no plan");
    }
  } else {
    if (plan->revision != plan_.revision) {
      Enact(*plan);
      if (plan->revision.empty()) {
        log_.Info("no policy names " + options_.owner.host.name +
                  " any more: back to the local settings");
      } else {
        log_.Info("applied policy " + plan->policy + " revision " + plan->revision + ": " +
                  DescribePlan(*plan));
        for (const std::string& conflict : Conflicts(*plan)) log_.Warning(conflict);
      }
      plan_ = *plan;
      KeepPlan(plan_);
    }
    status.set_revision(plan_.revision);
    for (const std::string& conflict : Conflicts(plan_)) status.add_conflicts(conflict);
    if (options_.on_plan != nullptr) {
      for (const std::string& problem : options_.on_plan(plan_)) status.add_conflicts(problem);
    }
  }
  shipper_->ReportPlanStatus(status);
}

void HostPipeline::Enact(const CollectionPlan& plan) {
  spool_->SetMaxBytes(SpoolLimitUnder(plan, options_));
  // A poller's own stream samples nothing: the queries of its plan are for its host's agent.
  // A plan that changes no schedule (only labels, say) leaves the sampler as it runs, rather than
  // taking every query's snapshot again at once on every host it names.
  const bool same_schedules = QueriesUnder(plan, options_) == QueriesUnder(plan_, options_) &&
                              IntervalUnder(plan, options_) == IntervalUnder(plan_, options_);
  if (!options_.poller_stream && !same_schedules) {
    sampler_->Replan(QueriesUnder(plan, options_), IntervalUnder(plan, options_));
  }
}

std::vector<std::string> HostPipeline::Conflicts(const CollectionPlan& plan) const {
  std::vector<std::string> conflicts;
  std::string by = " is overridden by policy " + plan.policy + ": ";
  if (options_.queries_given && !plan.queries.empty() && plan.queries != options_.queries) {
    conflicts.push_back("local queries " + FormatQueries(options_.queries) + by +
                        FormatQueries(plan.queries));
  }
  if (options_.interval_given && plan.interval && *plan.interval != options_.interval) {
    conflicts.push_back("local interval " + FormatDuration(options_.interval) + by +
                        FormatDuration(*plan.interval));
  }
  if (options_.spool_max_bytes_given && plan.spool_max_bytes &&
      *plan.spool_max_bytes != options_.spool_max_bytes) {
    conflicts.push_back("local spool_max_bytes " + std::to_string(options_.spool_max_bytes) + by +
                        std::to_string(*plan.spool_max_bytes));
  }
  for (const auto& [key, value] : options_.labels) {
    auto planned = plan.labels.find(key);
    if (planned != plan.labels.end() && planned->second != value) {
      conflicts.push_back("local label " + key + "=" + value + by + key + "=" + planned->second);
    }
  }
  return conflicts;
}

CollectionPlan HostPipeline::LoadKeptPlan() {
  if (!options_.follows_plans) return CollectionPlan();
  Result<std::vector<uint8_t>> bytes = env_.ReadFile(options_.spool_dir + kKeptPlanFile);
  if (!bytes.ok()) return CollectionPlan();
  v1::CollectionPlan message;
  Result<CollectionPlan> plan = Status::DataLoss("not a collection plan");
  if (message.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) {
    plan = PlanFromProto(message);
  }
  if (!plan.ok()) {
    log_.Warning("ignoring the kept plan " + options_.spool_dir + kKeptPlanFile + ": " +
                 plan.error());
    return CollectionPlan();
  }
  return *plan;
}

void HostPipeline::KeepPlan(const CollectionPlan& plan) {
  std::string path = options_.spool_dir + kKeptPlanFile;
  if (plan.revision.empty()) {
    // None kept is the goal; a file that was never there is fine.
    static_cast<void>(env_.RemoveFile(path));
    return;
  }
  v1::CollectionPlan message;
  PlanToProto(plan, &message);
  std::string bytes = message.SerializeAsString();
  if (Status kept = env_.WriteFileAtomically(path, TextBytes(bytes)); !kept.ok()) {
    log_.Warning("cannot keep the plan for the next start: " + kept.message());
  }
}

Result<std::string> HostPipeline::MakeRenewalRequest() {
  if (credential_.credential_dir.empty() || options_.credentials_for == nullptr) {
    return Status::NotFound("this host is not enrolled: it has no certificate to renew");
  }
  Result<std::optional<EnrolledCredential>> credential =
      LoadCredential(env_, credential_.credential_dir);
  if (!credential.ok()) return credential.status();
  if (!credential->has_value()) {
    return Status::NotFound("no credential in " + credential_.credential_dir);
  }
  return MakeRequestForKey((*credential)->key_pem, credential_.credential_host);
}

Result<RenewedCredentials> HostPipeline::AdoptCertificate(const std::string& certificate_pem) {
  Result<CertificateSubject> subject = DescribeCertificate(certificate_pem);
  if (!subject.ok()) return subject.status();
  if (FoldCase(subject->common_name) != FoldCase(credential_.credential_host)) {
    return Status::InvalidArgument("the renewed certificate names " + subject->common_name +
                                   ", not " + credential_.credential_host);
  }
  Result<std::optional<EnrolledCredential>> current =
      LoadCredential(env_, credential_.credential_dir);
  if (!current.ok()) return current.status();
  if (!current->has_value()) return Status::NotFound("no key in " + credential_.credential_dir);
  EnrolledCredential renewed{.key_pem = (*current)->key_pem,
                             .certificate_pem = certificate_pem,
                             .expires = subject->not_after};
  if (Status saved = SaveCredential(env_, credential_.credential_dir, renewed); !saved.ok()) {
    return saved;
  }
  Result<std::shared_ptr<grpc::ChannelCredentials>> credentials = options_.credentials_for(renewed);
  if (!credentials.ok()) return credentials.status();
  return RenewedCredentials{.credentials = *credentials, .expires = renewed.expires};
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

void HostPipeline::LogStopped(Logger& log) const {
  std::string summary = "stopped " + options_.owner.Label() + ": " + Summary();
  if (lost() > 0) {
    log.Error(summary);
  } else {
    log.Info(summary);
  }
}

}  // namespace perfhive
