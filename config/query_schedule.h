// QuerySchedule: one query taken on its own schedule, as an agent's --query flag, its config
// file's [[query]] tables and a central policy (docs/policies.md) write it.

#ifndef PERFHIVE_CONFIG_QUERY_SCHEDULE_H_
#define PERFHIVE_CONFIG_QUERY_SCHEDULE_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace perfhive {

// One query the sampler takes on its own schedule: "Global", "Costly", or objects named (or
// numbered) by a person, which become indexes through the host's title database.
struct QuerySchedule {
  std::string name;                  // "Global", "Costly"; empty when `objects` is given
  std::vector<std::string> objects;  // "Processor", "Network Interface", "230"
  std::optional<std::chrono::milliseconds> every;  // unset: the default interval (Costly: 5m)

  bool operator==(const QuerySchedule&) const = default;
};

// Global at the default interval: what an agent reads when it is given no query.
QuerySchedule GlobalQuery();

// How often a query runs: its own `every`, Costly every 5 minutes, the rest every `interval`.
std::chrono::milliseconds ScheduleInterval(const QuerySchedule& query,
                                           std::chrono::milliseconds interval);

// A --query flag: "Global", "Costly@5m", "Processor,Network Interface@30s".
Result<QuerySchedule> ParseQueryFlag(std::string_view text);

// How a query reads in logs: "Global", "Processor,Memory".
std::string QueryLabel(const QuerySchedule& query);

// The text ParseQueryFlag reads back: "Global", "Processor,Memory@30s".
std::string FormatQuery(const QuerySchedule& query);
// Each query's FormatQuery, joined by "; ".
std::string FormatQueries(const std::vector<QuerySchedule>& queries);

}  // namespace perfhive

#endif  // PERFHIVE_CONFIG_QUERY_SCHEDULE_H_
