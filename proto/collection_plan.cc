#include "proto/collection_plan.h"

#include "config/duration.h"
#include "port/sha256.h"

namespace perfhive {
namespace {

// Names a person typed are bounded as the server bounds other identifiers it shows.
constexpr size_t kMaxObjectNameBytes = 128;
constexpr size_t kMaxPolicyNameBytes = 128;
constexpr size_t kMaxRevisionBytes = 64;

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
  return Status();
}

std::string PlanRevision(const CollectionPlan& plan) {
  // A canonical text of the content: one line per setting, queries in order.
  std::string content = "perfhive plan 1\n";
  for (const QuerySchedule& query : plan.queries) content += "query " + FormatQuery(query) + "\n";
  if (plan.interval) content += "interval " + std::to_string(plan.interval->count()) + "\n";
  if (plan.spool_max_bytes) content += "spool " + std::to_string(*plan.spool_max_bytes) + "\n";
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
  if (Status valid = CheckPlan(plan); !valid.ok()) {
    return valid.Prefixed("plan " + plan.revision + ": ");
  }
  return plan;
}

std::string DescribePlan(const CollectionPlan& plan) {
  std::string text = FormatQueries(plan.queries);
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  if (plan.interval) add("interval " + FormatDuration(*plan.interval));
  if (plan.spool_max_bytes) add("spool limit " + std::to_string(*plan.spool_max_bytes) + " bytes");
  return text.empty() ? "the agent's own settings" : text;
}

}  // namespace perfhive
