// Alerting: the server's alerting rules as one piece (`perfhive-server --rules FILE`): the rules
// file it follows, the evaluator and its alerts, the file that keeps them across restarts, and
// the notifier they go to (Prometheus Alertmanager, or none). AlertingLoop
// (server/upkeep/alerting_loop.h) calls Evaluate once per the rules' interval; the Query
// service lists what Listing() holds (`perfhive alerts`, /api/v1/alerts, the console).

#ifndef PERFHIVE_SERVER_ALERTS_ALERTING_H_
#define PERFHIVE_SERVER_ALERTS_ALERTING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "server/alerts/alert.h"
#include "server/alerts/alert_store.h"
#include "server/alerts/rule_book.h"
#include "server/alerts/rule_evaluator.h"
#include "server/log/server_log.h"

namespace perfhive {

// What `perfhive alerts` shows: the rules in force with what each last saw, and the alerts.
struct AlertsListing {
  std::string rules_file;    // "" when the server has no rules
  int64_t interval_ns = 0;   // how often the rules are evaluated
  std::string reload_error;  // why the rules in force are not the file's content; "" if they are
  std::vector<AlertRule> rules;
  std::vector<RuleReport> reports;     // by rule, for the rules evaluated since the start
  std::vector<Alert> alerts;           // firing, pending, resolved
  double last_evaluation_seconds = 0;  // how long the last evaluation of every rule took
};

class Alerting {
 public:
  // Reads the rules (an error stops the server: it names the line and column) and the alerts
  // kept from before. `notifier` may be null (alerts are listed only). The evaluator reads with
  // `read`; `labels` gives hosts' labels to their alerts.
  static Result<std::unique_ptr<Alerting>> Open(Env& env, const std::string& rules_file,
                                                const std::string& data_dir,
                                                RuleEvaluator::ReadFunction read,
                                                query::HostLabelsLookup labels,
                                                AlertNotifier* notifier, ServerLog& log);

  // Series to follow the rules' paths in as samples arrive (the evaluator's reads take them
  // from there, query/live_series.h); followed from now on and after every change of the rules.
  void set_live_series(query::LiveSeries* live);

  // Reads the rules file again when it changed, or `forced` (SIGHUP: says so in the log); a file
  // that no longer parses keeps the rules in force and logs why once per burst.
  void ReloadRules(bool forced);
  // Evaluates every rule at `now_ns`, saves the alerts and hands them to the notifier.
  void Evaluate(int64_t now_ns);
  int64_t interval_ns() const;
  AlertsListing Listing() const;

 private:
  Alerting(std::unique_ptr<RuleFile> rules, std::unique_ptr<AlertStore> saved,
           RuleEvaluator::ReadFunction read, query::HostLabelsLookup labels,
           AlertNotifier* notifier, ServerLog& log);

  const std::unique_ptr<RuleFile> rules_;
  const std::unique_ptr<AlertStore> saved_;
  RuleEvaluator evaluator_;
  AlertNotifier* const notifier_;
  ServerLog& log_;
  std::vector<Alert> last_saved_;  // Evaluate's thread only
  query::LiveSeries* live_ = nullptr;
  std::shared_ptr<const RuleBook> followed_;  // the book live_ follows; Evaluate's thread only
  std::atomic<double> last_evaluation_seconds_{0};
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ALERTS_ALERTING_H_
