#include "server/alerts/rule_evaluator.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "perfdata/pdh_status.h"

namespace perfhive {
namespace {

std::string NumberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The newest valid value of `series`, if it has one.
std::optional<double> LatestValue(const query::Series& series) {
  for (auto point = series.points.rbegin(); point != series.points.rend(); ++point) {
    if (IsSuccess(point->value.status)) return point->value.value;
  }
  return std::nullopt;
}

std::string FillPlaceholders(const std::string& text, const AlertRule& rule,
                             const query::Series& series, double value) {
  std::string filled;
  for (size_t k = 0; k < text.size(); ++k) {
    const size_t close = text[k] == '{' ? text.find('}', k) : std::string::npos;
    if (close == std::string::npos) {
      filled += text[k];
      continue;
    }
    const std::string name = text.substr(k + 1, close - k - 1);
    if (name == "host") {
      filled += series.host.empty() && series.aggregate ? series.aggregate->group : series.host;
    } else if (name == "instance") {
      filled += series.instance;
    } else if (name == "path") {
      filled += series.path();
    } else if (name == "value") {
      filled += NumberText(value);
    } else if (name == "threshold") {
      filled += NumberText(rule.condition.threshold);
    } else {
      filled += text.substr(k, close - k + 1);
    }
    k = close;
  }
  return filled;
}

bool Active(const Alert& alert) { return alert.state != Alert::State::kResolved; }

// Whether `alert` is about the run [from_ns, to_ns] of its series: the two overlap.
bool SameRun(const Alert& alert, int64_t from_ns, int64_t to_ns) {
  const int64_t end = Active(alert) ? alert.last_held_ns : alert.resolved_ns;
  return from_ns <= end && alert.active_since_ns <= to_ns;
}

// Ends `alert`'s run at `last_held_ns`: a firing one is resolved, a pending one is dropped.
// Whether to keep it.
bool EndRun(Alert& alert, int64_t last_held_ns) {
  if (alert.state == Alert::State::kPending) return false;
  alert.state = Alert::State::kResolved;
  alert.resolved_ns = last_held_ns;
  return true;
}

int StateOrder(Alert::State state) {
  switch (state) {
    case Alert::State::kFiring:
      return 0;
    case Alert::State::kPending:
      return 1;
    case Alert::State::kResolved:
      return 2;
  }
  return 3;
}

}  // namespace

RuleEvaluator::RuleEvaluator(ReadFunction read, query::HostLabelsLookup labels)
    : read_(std::move(read)), labels_(std::move(labels)) {}

std::vector<query::LiveSeries::Followed> RuleEvaluator::LiveWindows(const RuleBook& book) {
  // Beyond the window: samples further apart than an interval, and evaluations that run late.
  constexpr int64_t kMarginNs = 120'000'000'000;
  std::vector<query::LiveSeries::Followed> windows;
  for (const AlertRule& rule : book.rules()) {
    const int64_t step = rule.aggregate.empty() ? 0 : rule.step_ns;
    const int64_t longest = std::max(book.interval_ns(), step);
    query::LiveSeries::Followed followed;
    followed.path = rule.read.paths.empty() ? rule.path : rule.read.paths.front();
    followed.format = rule.read.format;
    followed.keep_ns = (kIntervalsRead + 2) * longest + kMarginNs;
    windows.push_back(std::move(followed));
  }
  return windows;
}

void RuleEvaluator::Restore(std::vector<Alert> alerts) {
  std::lock_guard lock(mutex_);
  alerts_ = std::move(alerts);
}

void RuleEvaluator::Evaluate(const RuleBook& book, int64_t now_ns) {
  std::vector<Alert> all;
  std::map<std::string, int64_t> previous;  // each rule's last evaluation
  {
    std::lock_guard lock(mutex_);
    all = alerts_;
    for (const RuleReport& report : reports_) previous[report.rule] = report.evaluated_ns;
  }
  std::vector<RuleReport> reports;
  std::vector<Alert> kept;
  std::set<std::string> names;
  for (const AlertRule& rule : book.rules()) {
    names.insert(rule.name);
    std::vector<Alert> of_rule;
    for (Alert& alert : all) {
      if (alert.rule == rule.name) of_rule.push_back(std::move(alert));
    }
    auto last = previous.find(rule.name);
    reports.push_back(EvaluateRule(rule, book.interval_ns(), now_ns,
                                   last == previous.end() ? 0 : last->second, of_rule));
    for (Alert& alert : of_rule) kept.push_back(std::move(alert));
  }
  // Alerts of rules that are gone (renamed or removed): their condition is no longer watched.
  for (Alert& alert : all) {
    if (alert.rule.empty() || names.count(alert.rule) != 0) continue;
    if (Active(alert) && !EndRun(alert, alert.last_held_ns)) continue;
    kept.push_back(std::move(alert));
  }
  std::erase_if(kept, [&](const Alert& alert) {
    return alert.state == Alert::State::kResolved && alert.delivered &&
           now_ns - alert.resolved_ns > kResolvedKeptNs;
  });
  std::sort(kept.begin(), kept.end(), [](const Alert& a, const Alert& b) {
    return std::tuple(StateOrder(a.state), a.rule, a.series, a.active_since_ns) <
           std::tuple(StateOrder(b.state), b.rule, b.series, b.active_since_ns);
  });
  std::lock_guard lock(mutex_);
  alerts_ = std::move(kept);
  reports_ = std::move(reports);
}

RuleReport RuleEvaluator::EvaluateRule(const AlertRule& rule, int64_t interval_ns, int64_t now_ns,
                                       int64_t previous_ns, std::vector<Alert>& alerts) {
  RuleReport report;
  report.rule = rule.name;
  report.evaluated_ns = now_ns;
  query::ReadRequest request = rule.read;
  request.condition.reset();  // every series, to see where each holds and where it stopped
  const std::optional<int64_t> step =
      rule.aggregate.empty() ? std::nullopt : std::optional<int64_t>(rule.step_ns);
  // A few intervals back (the first evaluation: the rule's duration too, so that a condition
  // that already held long enough fires at once), and back to each active alert's newest point.
  int64_t from_ns = now_ns - kIntervalsRead * std::max(interval_ns, step.value_or(0));
  if (previous_ns == 0) from_ns -= rule.condition.for_ns;
  if (previous_ns != 0) from_ns = std::min(from_ns, previous_ns - interval_ns);
  for (const Alert& alert : alerts) {
    if (Active(alert)) from_ns = std::min(from_ns, alert.last_held_ns);
  }
  from_ns = std::max(from_ns, now_ns - rule.condition.for_ns - kLongestCatchUpNs);
  if (step) from_ns -= ((from_ns % *step) + *step) % *step;  // steps on the same boundaries
  request.from_ns = from_ns;
  request.step_ns = step;
  Result<query::QueryAnswer> answer = read_(request);
  if (!answer.ok()) {
    // No host has the path (yet): nothing holds, and the report says why. Any other failure
    // leaves the alerts as they are until a read succeeds.
    if (answer.status().code() != StatusCode::kNotFound) {
      report.error = answer.error();
      return report;
    }
    report.missing.push_back(answer.error());
    answer = query::QueryAnswer();
  }
  report.series_checked = answer->series.size();
  report.missing.insert(report.missing.end(), answer->warnings.begin(), answer->warnings.end());

  query::HeldCondition every_run = rule.condition;
  every_run.for_ns = 0;
  std::vector<bool> seen(alerts.size(), false);
  // The rule's alerts by series: a fleet's evaluation has thousands of each.
  std::unordered_map<std::string_view, std::vector<Alert*>> by_series;
  for (size_t k = 0; k < alerts.size(); ++k) by_series[alerts[k].series].push_back(&alerts[k]);
  std::vector<Alert> added;
  for (const query::Series& series : answer->series) {
    if (series.points.empty()) continue;
    const std::string& key = series.path();
    auto found = by_series.find(key);
    static const std::vector<Alert*> kNone;
    const std::vector<Alert*>& of_series = found == by_series.end() ? kNone : found->second;
    for (Alert* alert : of_series) seen[static_cast<size_t>(alert - alerts.data())] = true;
    const std::vector<query::HeldInterval> runs = query::HeldIntervals(series, every_run, step);
    // Whether the first run begins at the window's first point: it may have begun before.
    const query::Point& first_point = series.points.front();
    const bool held_at_window_start =
        IsSuccess(first_point.value.status) && every_run.Meets(first_point.value.value);
    for (size_t r = 0; r < runs.size(); ++r) {
      const query::HeldInterval& run = runs[r];
      // The alert this run is, if one is: they overlap, or the run begins where the window
      // does and an alert of the series was active up to before it (its run may reach back
      // out of the window).
      Alert* alert = nullptr;
      for (Alert* candidate : of_series) {
        const bool continues = r == 0 && held_at_window_start && Active(*candidate) &&
                               candidate->last_held_ns <= first_point.time_ns;
        if (continues || SameRun(*candidate, run.from_ns, run.to_ns)) alert = candidate;
      }
      if (alert == nullptr) {
        // A run no alert had: it began since the last evaluation, or it began and ended unseen
        // (the server was down, or the rule is new) and counts if it lasted long enough.
        if (!run.ongoing && run.to_ns - run.from_ns < rule.condition.for_ns) continue;
        added.push_back(NewAlert(rule, series, run.from_ns));
        alert = &added.back();
      }
      if (!Active(*alert)) continue;  // resolved already: seen again in an overlapping window
      Advance(rule, series, run, *alert);
      if (!run.ongoing && !EndRun(*alert, run.to_ns)) alert->rule.clear();  // pending, ended
    }
    // An active alert of this series that no run carried to the newest point: the condition
    // stopped holding after its newest point (or before the window, after a long stop). One
    // that is at the newest point, but that point is old: the series stopped.
    const int64_t newest_ns = series.points.back().time_ns;
    for (Alert* alert : of_series) {
      if (alert->rule.empty() || !Active(*alert)) continue;
      if (alert->last_held_ns >= newest_ns && now_ns - newest_ns <= kStaleAfterNs) continue;
      if (!EndRun(*alert, alert->last_held_ns)) alert->rule.clear();
    }
  }
  // Active alerts whose series the read did not return: stale once they had no point for long.
  for (size_t k = 0; k < alerts.size(); ++k) {
    Alert& alert = alerts[k];
    if (seen[k] || !Active(alert) || now_ns - alert.last_held_ns <= kStaleAfterNs) continue;
    if (!EndRun(alert, alert.last_held_ns)) alert.rule.clear();
  }
  for (Alert& alert : added) alerts.push_back(std::move(alert));
  std::erase_if(alerts, [](const Alert& alert) { return alert.rule.empty(); });
  return report;
}

Alert RuleEvaluator::NewAlert(const AlertRule& rule, const query::Series& series,
                              int64_t from_ns) const {
  Alert alert;
  alert.rule = rule.name;
  alert.series = series.path();
  alert.active_since_ns = from_ns;
  alert.last_held_ns = from_ns;
  std::map<std::string, std::string>& labels = alert.labels;
  // The host's labels first: the rule's own and the series' identity win over them.
  if (!series.host.empty() && labels_) labels = labels_(series.host);
  for (const auto& [key, value] : rule.labels) labels[key] = value;
  labels["alertname"] = rule.name;
  labels["severity"] = rule.severity;
  labels["object"] = series.object;
  labels["counter"] = series.counter;
  if (!series.host.empty()) labels["host"] = series.host;
  if (series.has_instance) labels["instance"] = series.instance;
  if (series.aggregate) {
    labels["aggregate"] = series.aggregate->function;
    const std::string& by = series.aggregate->by;
    if (by == "host" || by == "instance") {
      labels[by] = series.aggregate->group;
    } else if (by == "process") {
      labels["process"] = series.aggregate->group;
    } else if (by != "counter") {
      labels[by] = series.aggregate->group;
    }
  }
  return alert;
}

void RuleEvaluator::Advance(const AlertRule& rule, const query::Series& series,
                            const query::HeldInterval& run, Alert& alert) {
  alert.last_held_ns = std::max(alert.last_held_ns, run.to_ns);
  alert.value = LatestValue(series).value_or(run.extreme);
  if (!run.ongoing) alert.value = run.extreme;
  if (alert.state == Alert::State::kPending &&
      alert.last_held_ns - alert.active_since_ns >= rule.condition.for_ns) {
    alert.state = Alert::State::kFiring;
    alert.firing_since_ns = alert.active_since_ns + rule.condition.for_ns;
  }
  std::map<std::string, std::string>& notes = alert.annotations;
  notes["value"] = NumberText(alert.value);
  notes["threshold"] = NumberText(rule.condition.threshold);
  notes["condition"] = rule.condition.text;
  notes["path"] = series.path();
  notes["summary"] = rule.summary.empty()
                         ? rule.name + ": " + series.path() + " " + rule.condition.text + " (now " +
                               NumberText(alert.value) + ")"
                         : FillPlaceholders(rule.summary, rule, series, alert.value);
  if (!rule.description.empty()) {
    notes["description"] = FillPlaceholders(rule.description, rule, series, alert.value);
  }
}

void RuleEvaluator::MarkDelivered(const std::vector<Alert>& resolved) {
  std::lock_guard lock(mutex_);
  for (const Alert& delivered : resolved) {
    for (Alert& alert : alerts_) {
      if (alert.state == Alert::State::kResolved && alert.rule == delivered.rule &&
          alert.series == delivered.series && alert.active_since_ns == delivered.active_since_ns) {
        alert.delivered = true;
      }
    }
  }
}

std::vector<Alert> RuleEvaluator::alerts() const {
  std::lock_guard lock(mutex_);
  return alerts_;
}

std::vector<RuleReport> RuleEvaluator::reports() const {
  std::lock_guard lock(mutex_);
  return reports_;
}

}  // namespace perfhive
