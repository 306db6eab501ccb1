// RuleBook: the alerting rules of a server (`perfhive-server --rules FILE`, docs/alerts.md), in
// the file's order. Each rule names a PDH counter path, optionally the hosts it is about (a host
// selector) and an aggregate over groups of series, and a condition that must hold for a
// duration; the server evaluates every rule each interval and keeps its alerts
// (server/alerts/rule_evaluator.h).
//
// The file is TOML:
//   interval = "15s"                      # how often every rule is evaluated
//   [[rule]]
//   name = "ProcessorBusy"                # unique: Alertmanager's alertname
//   path = '\Processor(_Total)\% Processor Time'
//   hosts = "role=web"                    # a host selector; every host when left out
//   aggregate = "p95"                     # one function: the rule is about each group's value
//   by = "site"                           # the grouping (counter when left out)
//   step = "1m"                           # the aggregate's step (the interval when left out)
//   condition = "> 90"                    # or "> 90 for 5m", without a `for` key
//   for = "5m"
//   severity = "critical"                 # "warning" when left out
//   labels = { team = "windows" }
//   summary = "CPU above {threshold}% on {host}"
//   description = "..."
// Every error names the file, the line and the column of what is wrong.
//
// RuleFile is the file a running server follows, as PolicyFile is for policies: read at start
// (an error then stops the server), read again on Reload; a file that no longer parses leaves the
// rules in force and says why.

#ifndef PERFHIVE_SERVER_ALERTS_RULE_BOOK_H_
#define PERFHIVE_SERVER_ALERTS_RULE_BOOK_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "port/env.h"
#include "query/read_engine.h"

namespace perfhive {

struct AlertRule {
  std::string name;
  std::string path;                // as written
  std::string hosts;               // the host selector as written; "" for every host
  std::string aggregate;           // the function as written; "" for the series themselves
  std::string by;                  // the grouping as written
  int64_t step_ns = 0;             // the aggregate's step; 0: the book's interval
  query::HeldCondition condition;  // with `for` applied
  std::string severity = "warning";
  std::map<std::string, std::string> labels;
  std::string summary;
  std::string description;
  // The read the rule is evaluated with, less its range and step: paths, selector, aggregation,
  // condition.
  query::ReadRequest read;
};

class RuleBook {
 public:
  static constexpr int64_t kDefaultIntervalNs = 15'000'000'000;

  // Errors name the file, the line and the column of what is wrong.
  static Result<RuleBook> Parse(std::string_view text, std::string_view origin);

  int64_t interval_ns() const { return interval_ns_; }
  const std::vector<AlertRule>& rules() const { return rules_; }

 private:
  int64_t interval_ns_ = kDefaultIntervalNs;
  std::vector<AlertRule> rules_;
};

class RuleFile {
 public:
  static Result<std::unique_ptr<RuleFile>> Open(Env& env, std::string path);

  std::shared_ptr<const RuleBook> book() const;
  const std::string& path() const { return path_; }
  // Reads the file again; true when its content changed and parsed (the new book is in force),
  // false when it is unchanged; an error (the file is gone or does not parse) keeps the book and
  // is remembered until a read succeeds (reload_error()).
  Result<bool> Reload();
  // Why the rules in force are not the file's content; "" when they are.
  std::string reload_error() const;

 private:
  RuleFile(Env& env, std::string path) : env_(env), path_(std::move(path)) {}

  Env& env_;
  const std::string path_;
  mutable std::mutex mutex_;
  std::string text_;  // what the book was made from
  std::shared_ptr<const RuleBook> book_;
  std::string reload_error_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ALERTS_RULE_BOOK_H_
