#include "agent/poller.h"

#include <iostream>
#include <set>

#include "agent/remote_source.h"
#include "perfdata/case_folding.h"
#include "perfdata/host_name.h"

namespace perfhive {
namespace {

// How often stopped pipelines are looked at, to destroy those whose last read has ended.
constexpr std::chrono::milliseconds kReapEvery{100};

// The poller's own spool folder (its kept plan): '@' is in no host name, so no polled host's
// folder can be this one.
std::string OwnFolderName(const std::string& poller) { return SpoolFolderName(poller) + "@poller"; }

std::string Names(const std::vector<RemoteHostConfig>& targets) {
  std::string names;
  for (const RemoteHostConfig& target : targets) {
    names += (names.empty() ? "" : ", ") + target.Name();
  }
  return names.empty() ? "none" : names;
}

}  // namespace

Poller::Poller(const AgentConfig& config, std::string name, Context context)
    : config_(config),
      name_(std::move(name)),
      context_(std::move(context)),
      reap_timer_(context_.io) {}

Result<std::unique_ptr<Poller>> Poller::Create(const AgentConfig& config, std::string name,
                                               std::unique_ptr<SnapshotSource> own,
                                               HostIdentity identity, Context context) {
  if (!config.source.empty()) {
    return Status::InvalidArgument(
        "--target and --poller poll remote hosts; they do not go with "
        "--source " +
        config.source);
  }
  std::unique_ptr<Poller> poller(new Poller(config, std::move(name), std::move(context)));
  Poller& p = *poller;
  if (own != nullptr) {
    identity.name = p.name_;
    Result<std::unique_ptr<HostPipeline>> pipeline = HostPipeline::Create(
        p.context_.io, nullptr, std::move(own),
        HostPipelineOptions{.owner = SnapshotOwner{.host = identity},
                            .spool_dir = p.context_.spool_root + "/" + OwnFolderName(p.name_),
                            .spool_max_bytes = config.spool_max_bytes,
                            .queries = {},
                            .interval = config.interval,
                            .labels = config.labels,
                            .follows_plans = true,
                            .credentials_for = p.context_.credentials_for,
                            .poller_stream = true,
                            .on_plan = [&p](const CollectionPlan& plan) { return p.OnPlan(plan); }},
        p.context_.server, p.context_.env, p.context_.log);
    if (!pipeline.ok()) return pipeline.status().Prefixed("poller " + p.name_ + ": ");
    p.own_ = std::move(pipeline).value();
  }
  // The targets given here must all be pollable; a plan's (kept from an earlier run) are the
  // server's word and are polled as far as they can be.
  CollectionPlan kept = p.own_ != nullptr ? p.own_->plan() : CollectionPlan();
  std::vector<RemoteHostConfig> targets = p.TargetsUnder(kept);
  if (kept.targets.empty()) {
    std::set<std::string> names;
    for (const RemoteHostConfig& target : targets) {
      if (Status valid = CheckHostName(target.Name()); !valid.ok()) {
        return Status::InvalidArgument(target.address + ": " + valid.message() +
                                       "; file it under another name with '" + target.address +
                                       "=NAME' or host_name in [[target]]");
      }
      if (!names.insert(SpoolFolderName(target.Name())).second) {
        return Status::InvalidArgument("two targets are named " + target.Name() +
                                       "; give each its own name (--target '\\\\HOST=NAME' or "
                                       "host_name in [[target]])");
      }
      Result<Polled> polled = p.MakePolled(target);
      if (!polled.ok()) return polled.status().Prefixed(target.Name() + ": ");
      p.polled_.emplace(SpoolFolderName(target.Name()), std::move(polled).value());
    }
    p.wanted_ = targets;
  } else {
    for (const std::string& problem : p.Reconcile(targets, false)) p.context_.log.Error(problem);
  }
  if (p.own_ == nullptr && p.polled_.empty()) {
    return Status::InvalidArgument(
        "no host to poll: give --target, or --poller to poll the hosts "
        "the server's policy names");
  }
  return poller;
}

std::vector<RemoteHostConfig> Poller::TargetsUnder(const CollectionPlan& plan) const {
  if (plan.targets.empty()) return config_.targets;
  std::vector<RemoteHostConfig> targets = PlannedTargets(plan);
  for (RemoteHostConfig& target : targets) {
    target.credentials_file = config_.credentials_file;
    for (const RemoteHostConfig& local : config_.targets) {
      if (FoldCase(local.Name()) != FoldCase(target.Name())) continue;
      target.credentials_file = local.credentials_file;
      target.interval = local.interval;
      target.call_timeout = local.call_timeout;
    }
  }
  return targets;
}

Result<Poller::Polled> Poller::MakePolled(const RemoteHostConfig& target) {
  std::string name = target.Name();
  Result<std::unique_ptr<SnapshotSource>> source =
      OpenRemoteSource(target.address, target.credentials_file, target.call_timeout);
  if (!source.ok()) return source.status();
  Polled polled;
  polled.target = target;
  polled.stream = std::make_unique<HostLogStream>(std::cerr, host_log_mutex_, name);
  polled.log = std::make_unique<Logger>(*polled.stream, context_.env);
  std::vector<QuerySchedule> queries = config_.queries;
  if (queries.empty()) queries.assign(1, GlobalQuery());
  Result<std::unique_ptr<HostPipeline>> pipeline = HostPipeline::Create(
      context_.io, &context_.workers, std::move(source).value(),
      HostPipelineOptions{
          .owner = SnapshotOwner{.host = {.name = name, .os = "Windows", .os_version = ""},
                                 .agentless = true},
          .spool_dir = context_.spool_root + "/" + SpoolFolderName(name),
          .spool_max_bytes = config_.spool_max_bytes,
          .queries = queries,
          .interval = target.interval.value_or(config_.interval),
          .queries_given = !config_.queries.empty(),
          .interval_given = target.interval.has_value() || config_.interval_given,
          .spool_max_bytes_given = config_.spool_max_bytes_given,
          .follows_plans = true,
          .credentials_for = context_.credentials_for,
          .poller_stream = false,
          .on_plan = nullptr,
          .poller = name_},
      context_.server, context_.env, *polled.log);
  if (!pipeline.ok()) return pipeline.status();
  polled.pipeline = std::move(pipeline).value();
  return polled;
}

std::vector<std::string> Poller::Reconcile(const std::vector<RemoteHostConfig>& targets,
                                           bool started) {
  wanted_ = targets;
  std::vector<std::string> problems;
  std::map<std::string, const RemoteHostConfig*> wanted;
  for (const RemoteHostConfig& target : targets) {
    wanted.emplace(SpoolFolderName(target.Name()), &target);
  }
  for (auto it = polled_.begin(); it != polled_.end();) {
    auto kept = wanted.find(it->first);
    if (kept != wanted.end() && *kept->second == it->second.target) {
      ++it;
      continue;
    }
    // Taken away, or given with other settings (then polled again below, once its folder is
    // free).
    Polled& polled = it->second;
    context_.log.Info("no longer polling " + polled.target.Name() + " as " + polled.target.address +
                      ": " + polled.pipeline->Summary());
    polled.pipeline->StopSampling();
    if (started) polled.pipeline->Finish();
    retired_.push_back(std::move(polled));
    it = polled_.erase(it);
  }
  std::set<std::string> retiring;
  for (const Polled& polled : retired_) retiring.insert(SpoolFolderName(polled.target.Name()));
  for (const auto& [folder, target] : wanted) {
    if (polled_.contains(folder) || retiring.contains(folder)) continue;
    Result<Polled> polled = MakePolled(*target);
    if (!polled.ok()) {
      problems.push_back("cannot poll " + target->Name() + " (" + target->address +
                         "): " + polled.error());
      continue;
    }
    context_.log.Info("polling " + target->Name() + " as " + target->address);
    if (started) polled->pipeline->Start();
    polled_.emplace(folder, std::move(polled).value());
  }
  if (!retired_.empty() && started) ReapRetired();
  return problems;
}

std::vector<std::string> Poller::OnPlan(const CollectionPlan& plan) {
  std::vector<RemoteHostConfig> targets = TargetsUnder(plan);
  std::vector<std::string> problems;
  // Reported with every answer, logged when it changes, as the plan's other conflicts are.
  bool changed = targets != wanted_;
  if (!plan.targets.empty() && !config_.targets.empty() &&
      Names(targets) != Names(config_.targets)) {
    problems.push_back("local targets " + Names(config_.targets) + " are overridden by policy " +
                       plan.policy + ": " + Names(targets));
    if (changed) context_.log.Warning(problems.back());
  }
  if (!changed || finished_) return problems;
  context_.log.Info(
      "polling " + Names(targets) +
      (plan.targets.empty() ? " (this poller's own targets)" : " (policy " + plan.policy + ")"));
  for (std::string& problem : Reconcile(targets, started_)) {
    context_.log.Error(problem);
    problems.push_back(std::move(problem));
  }
  return problems;
}

void Poller::ReapRetired() {
  std::erase_if(retired_, [](const Polled& polled) { return !polled.pipeline->reading(); });
  if (retired_.empty()) {
    // Folders freed: poll what waited for them.
    if (!finished_) {
      for (const std::string& problem : Reconcile(wanted_, started_)) {
        context_.log.Error(problem);
      }
    }
    return;
  }
  reap_timer_.expires_after(kReapEvery);
  reap_timer_.async_wait([this](const std::error_code& error) {
    if (!error) ReapRetired();
  });
}

void Poller::Start() {
  started_ = true;
  if (own_ != nullptr) {
    context_.log.Info("poller " + name_ + ": polling " + Names(wanted_) +
                      "; the server's policy may change that");
    own_->Start();
  }
  for (auto& [folder, polled] : polled_) polled.pipeline->Start();
}

void Poller::StopSampling() {
  for (auto& [folder, polled] : polled_) polled.pipeline->StopSampling();
}

void Poller::Finish() {
  finished_ = true;
  reap_timer_.cancel();
  if (own_ != nullptr) own_->Finish();
  for (auto& [folder, polled] : polled_) polled.pipeline->Finish();
}

uint64_t Poller::LogSummaries() {
  uint64_t lost = 0;
  for (auto& [folder, polled] : polled_) {
    polled.pipeline->LogStopped(context_.log);
    lost += polled.pipeline->lost();
  }
  return lost;
}

}  // namespace perfhive
