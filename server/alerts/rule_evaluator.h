// RuleEvaluator: evaluates a RuleBook's rules against the stored samples and keeps each rule's
// alerts as they go pending, firing and resolved. Each evaluation reads every rule's path over a
// window reaching a few intervals back (and back to the newest point of each alert still
// active), finds where each series or group held the rule's condition with the same function
// the CLI's --held uses (query::HeldIntervals), and carries the runs it finds on from the alerts
// it already had. What an evaluation sees and when an alert moves is in docs/alerts.md.

#ifndef PERFHIVE_SERVER_ALERTS_RULE_EVALUATOR_H_
#define PERFHIVE_SERVER_ALERTS_RULE_EVALUATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "query/live_series.h"
#include "query/read_engine.h"
#include "server/alerts/alert.h"
#include "server/alerts/rule_book.h"

namespace perfhive {

// What the last evaluation of one rule saw.
struct RuleReport {
  std::string rule;
  int64_t evaluated_ns = 0;
  size_t series_checked = 0;
  // Why the rule's path selected nothing on a host (the host lacks the object, counter or
  // instance), one line per host and path, as reads explain it.
  std::vector<std::string> missing;
  std::string error;  // why the read failed; "" when it did not
};

class RuleEvaluator {
 public:
  using ReadFunction = std::function<Result<query::QueryAnswer>(const query::ReadRequest&)>;

  // How many intervals back each evaluation reads, so that a sample that arrives a little late
  // is still seen and a two-sample counter's first value has its older end.
  static constexpr int64_t kIntervalsRead = 3;
  // An active alert whose series had no sample for this long is resolved (its host stopped
  // sending, or the instance went away), at the last time it held.
  static constexpr int64_t kStaleAfterNs = 5 * 60'000'000'000LL;
  // How far back an evaluation reads at most to carry an alert on (after the server was down).
  static constexpr int64_t kLongestCatchUpNs = 60 * 60'000'000'000LL;
  // Resolved alerts are listed this long after they resolved, and longer until delivered.
  static constexpr int64_t kResolvedKeptNs = 60 * 60'000'000'000LL;

  // What a steady evaluation of `book` reads, for LiveSeries to follow: each rule's path and
  // format, kept a little longer than the window an evaluation reads (kIntervalsRead intervals
  // or steps, the step's alignment and the sample before).
  static std::vector<query::LiveSeries::Followed> LiveWindows(const RuleBook& book);

  // `labels`: each host's labels, added to its alerts (may be empty).
  RuleEvaluator(ReadFunction read, query::HostLabelsLookup labels);

  // The alerts kept from before a restart (server/alerts/alert_store.h).
  void Restore(std::vector<Alert> alerts);

  // Evaluates every rule of `book` at `now_ns`. Alerts of rules the book no longer has are
  // resolved (pending ones dropped).
  void Evaluate(const RuleBook& book, int64_t now_ns);

  // Resolved alerts the receiver took: forgotten once kResolvedKeptNs has passed.
  void MarkDelivered(const std::vector<Alert>& resolved);

  // Firing, then pending, then resolved; by rule and series within each.
  std::vector<Alert> alerts() const;
  // The last evaluation's report of each rule of the book it evaluated, in the book's order.
  std::vector<RuleReport> reports() const;

 private:
  // Evaluates one rule into `alerts` (this rule's, moved out of alerts_ and back);
  // `previous_ns`: the rule's last evaluation, 0 for its first since the server started.
  RuleReport EvaluateRule(const AlertRule& rule, int64_t interval_ns, int64_t now_ns,
                          int64_t previous_ns, std::vector<Alert>& alerts);
  // A new alert of `rule` for `series`, its run beginning at `from_ns`.
  Alert NewAlert(const AlertRule& rule, const query::Series& series, int64_t from_ns) const;
  // Sets `alert`'s value, annotations and state from `series`' run [from, to] that it is.
  static void Advance(const AlertRule& rule, const query::Series& series,
                      const query::HeldInterval& run, Alert& alert);

  const ReadFunction read_;
  const query::HostLabelsLookup labels_;
  mutable std::mutex mutex_;
  std::vector<Alert> alerts_;
  std::vector<RuleReport> reports_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ALERTS_RULE_EVALUATOR_H_
