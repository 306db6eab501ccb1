#include "proto/collection_plan.h"

#include <set>

#include "config/duration.h"
#include "perfdata/case_folding.h"
#include "perfdata/host_name.h"
#include "port/sha256.h"
#include "query/label_text.h"

namespace perfhive {
namespace {

// Names a person typed are bounded as the server bounds other identifiers it shows.
constexpr size_t kMaxObjectNameBytes = 128;
constexpr size_t kMaxPolicyNameBytes = 128;
constexpr size_t kMaxRevisionBytes = 64;
constexpr size_t kMaxTargetBytes = 300;

Status CheckInterval(const std::string& what, std::chrono::milliseconds every) {
  if (every < kMinPlannedInterval || every > kMaxPlannedInterval) {
    return Status::InvalidArgument(what + " " + FormatDuration(every) + " is not between " +
                                   FormatDuration(kMinPlannedInterval) + " and " +
                                   FormatDuration(kMaxPlannedInterval));
  }
  return Status();
}

// No control characters: the text goes into log lines and tables.
bool Printable(const std::string& text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return false;
  }
  return true;
}

// Each target parses, is named as a host may be named, and names another host than the rest:
// each becomes a stream and a spool folder of its own.
Status CheckTargets(const std::vector<std::string>& targets) {
  if (targets.size() > kMaxPlannedTargets) {
    return Status::InvalidArgument("a plan has at most " + std::to_string(kMaxPlannedTargets) +
                                   " targets, not " + std::to_string(targets.size()));
  }
  std::set<std::string> names;
  for (const std::string& text : targets) {
    if (text.size() > kMaxTargetBytes || !Printable(text)) {
      return Status::InvalidArgument("a planned target is printable text of at most " +
                                     std::to_string(kMaxTargetBytes) + " bytes");
    }
    Result<RemoteHostConfig> target = ParseTargetFlag(text);
    if (!target.ok()) return target.status().Prefixed("targets: ");
    if (Status valid = CheckHostName(target->Name()); !valid.ok()) {
      return valid.Prefixed("targets: " + text + ": ");
    }
    if (!names.insert(FoldCase(target->Name())).second) {
      return Status::InvalidArgument("targets: two are named " + target->Name() +
                                     "; give each its own name with '\\\\HOST=NAME'");
    }
  }
  return Status();
}

}  // namespace

Status CheckPlan(const CollectionPlan& plan) {
  if (plan.policy.size() > kMaxPolicyNameBytes || !Printable(plan.policy)) {
    return Status::InvalidArgument("a policy name is printable text of at most " +
                                   std::to_string(kMaxPolicyNameBytes) + " bytes");
  }
  if (plan.queries.size() > kMaxPlannedQueries) {
    return Status::InvalidArgument("a plan has at most " + std::to_string(kMaxPlannedQueries) +
                                   " queries, not " + std::to_string(plan.queries.size()));
  }
  for (const QuerySchedule& query : plan.queries) {
    bool named = query.name == "Global" || query.name == "Costly";
    if (named == !query.objects.empty() || (!named && !query.name.empty())) {
      return Status::InvalidArgument(
          "a planned query is Global, Costly or objects by name or index, not \"" +
          QueryLabel(query) + "\"");
    }
    if (query.objects.size() > kMaxPlannedObjects) {
      return Status::InvalidArgument("a planned query names at most " +
                                     std::to_string(kMaxPlannedObjects) + " objects");
    }
    for (const std::string& object : query.objects) {
      if (object.empty() || object.size() > kMaxObjectNameBytes || !Printable(object) ||
          object.find(',') != std::string::npos) {
        return Status::InvalidArgument("a planned object name is printable text of 1 to " +
                                       std::to_string(kMaxObjectNameBytes) +
                                       " bytes without commas");
      }
    }
    if (query.every) {
      if (Status s = CheckInterval("query " + QueryLabel(query) + ": every", *query.every);
          !s.ok()) {
        return s;
      }
    }
  }
  if (plan.interval) {
    if (Status s = CheckInterval("interval", *plan.interval); !s.ok()) return s;
  }
  if (plan.spool_max_bytes && *plan.spool_max_bytes < kMinPlannedSpoolBytes) {
    return Status::InvalidArgument("spool_max_bytes " + std::to_string(*plan.spool_max_bytes) +
                                   " is under the least, " + std::to_string(kMinPlannedSpoolBytes) +
                                   " (1 MiB)");
  }
  if (Status s = CheckTargets(plan.targets); !s.ok()) return s;
  if (Status s = query::CheckHostLabels(plan.labels); !s.ok()) return s.Prefixed("labels: ");
  return Status();
}

std::string PlanRevision(const CollectionPlan& plan) {
  // A canonical text of the content: one line per setting, queries in order.
  std::string content = "perfhive plan 1\n";
  for (const QuerySchedule& query : plan.queries) content += "query " + FormatQuery(query) + "\n";
  if (plan.interval) content += "interval " + std::to_string(plan.interval->count()) + "\n";
  if (plan.spool_max_bytes) content += "spool " + std::to_string(*plan.spool_max_bytes) + "\n";
  for (const std::string& target : plan.targets) content += "target " + target + "\n";
  // Only when there are labels, so that the revisions of plans without any stay what they were.
  for (const auto& [key, value] : plan.labels) content += "label " + key + "=" + value + "\n";
  Sha256Digest digest = Sha256(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(content.data()), content.size()));
  return ToHex(std::span<const uint8_t>(digest).first(6));
}

void PlanToProto(const CollectionPlan& plan, perfhive::v1::CollectionPlan* out) {
  out->Clear();
  out->set_revision(plan.revision);
  out->set_policy(plan.policy);
  for (const QuerySchedule& query : plan.queries) {
    perfhive::v1::PlannedQuery* planned = out->add_queries();
    planned->set_name(query.name);
    for (const std::string& object : query.objects) planned->add_objects(object);
    if (query.every) planned->set_every_millis(static_cast<uint64_t>(query.every->count()));
  }
  if (plan.interval) out->set_interval_millis(static_cast<uint64_t>(plan.interval->count()));
  if (plan.spool_max_bytes) out->set_spool_max_bytes(*plan.spool_max_bytes);
  for (const std::string& target : plan.targets) out->add_targets(target);
  out->mutable_labels()->insert(plan.labels.begin(), plan.labels.end());
}

Result<CollectionPlan> PlanFromProto(const perfhive::v1::CollectionPlan& message) {
  CollectionPlan plan;
  if (message.revision().empty()) return plan;  // no plan: nothing else counts
  if (message.revision().size() > kMaxRevisionBytes || !Printable(message.revision()) ||
      message.revision().find(' ') != std::string::npos) {
    return Status::InvalidArgument("a plan's revision is 1 to " +
                                   std::to_string(kMaxRevisionBytes) +
                                   " printable characters without spaces");
  }
  plan.revision = message.revision();
  plan.policy = message.policy();
  if (static_cast<size_t>(message.queries_size()) > kMaxPlannedQueries) {
    return Status::InvalidArgument("a plan has at most " + std::to_string(kMaxPlannedQueries) +
                                   " queries, not " + std::to_string(message.queries_size()));
  }
  // Milliseconds beyond a day are refused by CheckPlan; clamp first so that nothing overflows.
  auto millis = [](uint64_t value) {
    return std::chrono::milliseconds(static_cast<int64_t>(std::min<uint64_t>(value, 1ull << 40)));
  };
  for (const perfhive::v1::PlannedQuery& planned : message.queries()) {
    QuerySchedule query;
    query.name = planned.name();
    if (static_cast<size_t>(planned.objects_size()) > kMaxPlannedObjects) {
      return Status::InvalidArgument("a planned query names at most " +
                                     std::to_string(kMaxPlannedObjects) + " objects");
    }
    query.objects.assign(planned.objects().begin(), planned.objects().end());
    if (planned.every_millis() != 0) query.every = millis(planned.every_millis());
    plan.queries.push_back(std::move(query));
  }
  if (message.interval_millis() != 0) plan.interval = millis(message.interval_millis());
  if (message.spool_max_bytes() != 0) plan.spool_max_bytes = message.spool_max_bytes();
  if (static_cast<size_t>(message.targets_size()) > kMaxPlannedTargets) {
    return Status::InvalidArgument("a plan has at most " + std::to_string(kMaxPlannedTargets) +
                                   " targets, not " + std::to_string(message.targets_size()));
  }
  plan.targets.assign(message.targets().begin(), message.targets().end());
  if (static_cast<size_t>(message.labels_size()) > query::kMaxHostLabels) {
    return Status::InvalidArgument("a plan has at most " + std::to_string(query::kMaxHostLabels) +
                                   " labels, not " + std::to_string(message.labels_size()));
  }
  plan.labels.insert(message.labels().begin(), message.labels().end());
  if (Status valid = CheckPlan(plan); !valid.ok()) {
    return valid.Prefixed("plan " + plan.revision + ": ");
  }
  return plan;
}

std::vector<RemoteHostConfig> PlannedTargets(const CollectionPlan& plan) {
  std::vector<RemoteHostConfig> targets;
  for (const std::string& text : plan.targets) {
    if (Result<RemoteHostConfig> target = ParseTargetFlag(text); target.ok()) {
      targets.push_back(std::move(target).value());
    }
  }
  return targets;
}

std::string DescribePlan(const CollectionPlan& plan) {
  std::string text = FormatQueries(plan.queries);
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  if (plan.interval) add("interval " + FormatDuration(*plan.interval));
  if (plan.spool_max_bytes) add("spool limit " + std::to_string(*plan.spool_max_bytes) + " bytes");
  if (!plan.targets.empty()) {
    std::string polls = "polls";
    for (const std::string& target : plan.targets) polls += " " + target;
    add(polls);
  }
  if (!plan.labels.empty()) add("labels " + query::FormatHostLabels(plan.labels));
  return text.empty() ? "the agent's own settings" : text;
}

}  // namespace perfhive
