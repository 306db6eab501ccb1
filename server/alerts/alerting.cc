#include "server/alerts/alerting.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

namespace perfhive {
namespace {

// Firing alerts are sent again within this many intervals, or Alertmanager resolves them itself
// (the server went away): Prometheus uses four evaluation intervals, or at least a minute.
constexpr int64_t kResendIntervals = 4;
constexpr int64_t kShortestResendNs = 60'000'000'000;

}  // namespace

Result<std::unique_ptr<Alerting>> Alerting::Open(Env& env, const std::string& rules_file,
                                                 const std::string& data_dir,
                                                 RuleEvaluator::ReadFunction read,
                                                 query::HostLabelsLookup labels,
                                                 AlertNotifier* notifier, ServerLog& log) {
  Result<std::unique_ptr<RuleFile>> rules = RuleFile::Open(env, rules_file);
  if (!rules.ok()) return rules.status();
  Result<std::unique_ptr<AlertStore>> saved = AlertStore::Open(data_dir);
  if (!saved.ok()) return saved.status();
  Result<std::vector<Alert>> alerts = (*saved)->Load();
  if (!alerts.ok()) return alerts.status();
  std::unique_ptr<Alerting> alerting(new Alerting(
      std::move(*rules), std::move(*saved), std::move(read), std::move(labels), notifier, log));
  alerting->evaluator_.Restore(*alerts);
  alerting->last_saved_ = std::move(alerts).value();
  return alerting;
}

Alerting::Alerting(std::unique_ptr<RuleFile> rules, std::unique_ptr<AlertStore> saved,
                   RuleEvaluator::ReadFunction read, query::HostLabelsLookup labels,
                   AlertNotifier* notifier, ServerLog& log)
    : rules_(std::move(rules)),
      saved_(std::move(saved)),
      evaluator_(std::move(read), std::move(labels)),
      notifier_(notifier),
      log_(log) {
  if (notifier_ != nullptr) {
    notifier_->set_delivered(
        [this](const std::vector<Alert>& resolved) { evaluator_.MarkDelivered(resolved); });
  }
}

void Alerting::set_live_series(query::LiveSeries* live) {
  live_ = live;
  followed_ = rules_->book();
  if (live_ != nullptr) live_->Follow(RuleEvaluator::LiveWindows(*followed_));
}

void Alerting::ReloadRules(bool forced) {
  const std::string& file = rules_->path();
  Result<bool> changed = rules_->Reload();
  if (!changed.ok()) {
    log_.WarnOncePerBurst("rules-unreadable", file, {{"file", file}, {"message", changed.error()}});
  } else if (*changed || forced) {
    log_.Info("rules", {{"file", file},
                        {"rules", std::to_string(rules_->book()->rules().size())},
                        {"reason", forced ? "SIGHUP" : "changed"}});
  }
}

void Alerting::Evaluate(int64_t now_ns) {
  std::shared_ptr<const RuleBook> book = rules_->book();
  if (live_ != nullptr && book != followed_) {
    // New rules: their paths are followed from now on, and read from the store until then.
    live_->Follow(RuleEvaluator::LiveWindows(*book));
    followed_ = book;
  }
  const auto started = std::chrono::steady_clock::now();
  evaluator_.Evaluate(*book, now_ns);
  last_evaluation_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::vector<Alert> alerts = evaluator_.alerts();
  for (const RuleReport& report : evaluator_.reports()) {
    if (!report.error.empty()) {
      log_.WarnOncePerBurst("rule-failed", report.rule,
                            {{"rule", report.rule}, {"message", report.error}});
    }
  }
  // Each alert's state at the last save, by (rule, series, start): a fleet has thousands.
  std::map<std::tuple<std::string_view, std::string_view, int64_t>, Alert::State> before;
  for (const Alert& alert : last_saved_) {
    before.emplace(std::tuple<std::string_view, std::string_view, int64_t>(alert.rule, alert.series,
                                                                           alert.active_since_ns),
                   alert.state);
  }
  for (const Alert& alert : alerts) {
    auto was = before.find({alert.rule, alert.series, alert.active_since_ns});
    if (alert.state == Alert::State::kPending ||
        (was != before.end() && was->second == alert.state)) {
      continue;
    }
    // The value as the alert's annotation writes it, for the log to say what Alertmanager says.
    auto value = alert.annotations.find("value");
    log_.Info(alert.state == Alert::State::kFiring ? "alert-firing" : "alert-resolved",
              {{"rule", alert.rule},
               {"series", alert.series},
               {"value", value == alert.annotations.end() ? "" : value->second}});
  }
  if (notifier_ == nullptr) {
    // Nobody to deliver resolutions to: they are listed for a while, then forgotten.
    std::vector<Alert> resolved;
    for (const Alert& alert : alerts) {
      if (alert.state == Alert::State::kResolved && !alert.delivered) resolved.push_back(alert);
    }
    if (!resolved.empty()) {
      evaluator_.MarkDelivered(resolved);
      alerts = evaluator_.alerts();
    }
  } else {
    const int64_t resend_ns = std::max(kResendIntervals * book->interval_ns(), kShortestResendNs);
    notifier_->Notify(alerts, now_ns, resend_ns);
  }
  if (alerts == last_saved_) return;
  if (Status saved = saved_->Save(alerts); !saved.ok()) {
    // Kept in memory and saved at the next evaluation; a restart before then repeats the
    // transitions since the last save, which Alertmanager takes as the same alerts.
    log_.WarnOncePerBurst("alerts-unsaved", saved_->path(),
                          {{"file", saved_->path()}, {"message", saved.message()}});
    return;
  }
  last_saved_ = std::move(alerts);
}

int64_t Alerting::interval_ns() const { return rules_->book()->interval_ns(); }

AlertsListing Alerting::Listing() const {
  std::shared_ptr<const RuleBook> book = rules_->book();
  return AlertsListing{.rules_file = rules_->path(),
                       .interval_ns = book->interval_ns(),
                       .reload_error = rules_->reload_error(),
                       .rules = book->rules(),
                       .reports = evaluator_.reports(),
                       .alerts = evaluator_.alerts(),
                       .last_evaluation_seconds = last_evaluation_seconds_};
}

}  // namespace perfhive
