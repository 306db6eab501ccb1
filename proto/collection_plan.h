// CollectionPlan: what a host collects when a central policy names it (docs/policies.md): its
// queries and their schedules, the interval of those without one, the spool's limit, for a
// poller the hosts it polls, and the labels the center gives the host. The
// server makes plans from policies.toml (server/policies/policy_book.h) and sends them on the
// ingest stream as perfhive.v1.CollectionPlan; the agent reads them back here, checked, and applies
// them in place of its local settings. Both ends share the bounds and the revision.

#ifndef PERFHIVE_PROTO_COLLECTION_PLAN_H_
#define PERFHIVE_PROTO_COLLECTION_PLAN_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/query_schedule.h"
#include "config/remote_target.h"
#include "perfhive/v1/ingest.pb.h"
#include "query/host_selector.h"

namespace perfhive {

struct CollectionPlan {
  // PlanRevision of the rest; empty: no plan, the agent's local settings are in force.
  std::string revision;
  std::string policy;                                 // the policy's name, for logs
  std::vector<QuerySchedule> queries;                 // empty: the agent's own
  std::optional<std::chrono::milliseconds> interval;  // unset: the agent's own
  std::optional<uint64_t> spool_max_bytes;            // unset: the agent's own
  // A poller's targets as --target writes them ("\\HOST[:PORT][=NAME]"); empty: its own.
  std::vector<std::string> targets;
  // The host's labels at the center: over the agent's own, key by key (query/label_text.h).
  query::HostLabels labels;

  bool operator==(const CollectionPlan&) const = default;
};

// The bounds of a plan; each error names the setting and the bound.
inline constexpr size_t kMaxPlannedQueries = 32;
inline constexpr size_t kMaxPlannedObjects = 64;  // per query
inline constexpr std::chrono::milliseconds kMinPlannedInterval{100};
inline constexpr std::chrono::milliseconds kMaxPlannedInterval{24 * 3600 * 1000};
inline constexpr uint64_t kMinPlannedSpoolBytes = 1 << 20;
inline constexpr size_t kMaxPlannedTargets = 1024;
Status CheckPlan(const CollectionPlan& plan);

// Twelve hex digits of the SHA-256 of the plan's content (not its name or revision): the same
// content has the same revision on any server, and any change makes another.
std::string PlanRevision(const CollectionPlan& plan);

void PlanToProto(const CollectionPlan& plan, perfhive::v1::CollectionPlan* out);
// What a server sent, checked as CheckPlan checks, and its revision (at most 64 printable
// characters): INVALID_ARGUMENT naming what is wrong.
Result<CollectionPlan> PlanFromProto(const perfhive::v1::CollectionPlan& message);

// The targets of a plan, parsed (CheckPlan has refused any that does not parse).
std::vector<RemoteHostConfig> PlannedTargets(const CollectionPlan& plan);

// How the plan reads in a log line: "Global@10s; Processor,Memory@30s; interval 10s".
std::string DescribePlan(const CollectionPlan& plan);

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_COLLECTION_PLAN_H_
