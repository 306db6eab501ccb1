// PolicyBook: the collection policies of a server (`perfhive-server --policies FILE`,
// docs/policies.md), in the file's order. Each policy has a name, host-name patterns ('*'
// wildcards, case ignored) and a plan; a host takes the plan of the first policy whose patterns
// match its name, and keeps its own settings when none does.
//
// The file is TOML:
//   [[policy]]
//   name = "web"
//   hosts = ["web*", "shop01"]
//   queries = ["Global", "Costly@5m", "Processor,Memory@30s"]  # the agent's --query syntax
//   interval = "10s"          # for queries without their own
//   spool_max_bytes = 536870912
//   targets = ["\\\\db01", "\\\\10.0.0.7:445=db02"]  # a poller's hosts, as its --target flags
//   labels = { role = "web", site = "ams" }  # over the agent's own labels, key by key
// A setting left out stays the agent's own.
//
// PolicyFile is the file a running server follows: read at start (an error then stops the
// server), read again on Reload; a file that no longer parses leaves the policies in force and
// says why.

#ifndef PERFHIVE_SERVER_POLICIES_POLICY_BOOK_H_
#define PERFHIVE_SERVER_POLICIES_POLICY_BOOK_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "port/env.h"
#include "proto/collection_plan.h"

namespace perfhive {

class PolicyBook {
 public:
  struct Policy {
    std::vector<std::string> hosts;  // patterns
    CollectionPlan plan;             // its `policy` is the policy's name, `revision` set
  };

  // Errors name the file, the line and what is wrong.
  static Result<PolicyBook> Parse(std::string_view text, std::string_view origin);

  // The plan of the first policy that names `host`; an empty plan (no revision) when none does.
  CollectionPlan PlanFor(std::string_view host) const;
  // Whether the plan of `poller` names `host` among its targets (by the name snapshots are filed
  // under, case ignored): then whoever may speak for the poller may write as `host`.
  bool PollerMayPoll(std::string_view poller, std::string_view host) const;
  const std::vector<Policy>& policies() const { return policies_; }

 private:
  std::vector<Policy> policies_;
};

class PolicyFile {
 public:
  static Result<std::unique_ptr<PolicyFile>> Open(Env& env, std::string path);

  std::shared_ptr<const PolicyBook> book() const;
  const std::string& path() const { return path_; }
  // Reads the file again; true when its content changed and parsed (the new book is in force),
  // false when it is unchanged; an error (the file is gone or does not parse) keeps the book.
  Result<bool> Reload();

 private:
  PolicyFile(Env& env, std::string path) : env_(env), path_(std::move(path)) {}

  Env& env_;
  const std::string path_;
  std::string text_;  // what the book was made from
  mutable std::mutex mutex_;
  std::shared_ptr<const PolicyBook> book_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_POLICIES_POLICY_BOOK_H_
