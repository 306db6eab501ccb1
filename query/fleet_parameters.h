// FleetParameters: the parts of a read that are about the fleet (which hosts, how series are
// grouped and combined, how they are ranked), as text the way every front carries them: CLI
// flags, the HTTP API's parameters and the gRPC request's fields. One parser for all three, so
// they accept and refuse the same things with the same words.

#ifndef PERFHIVE_QUERY_FLEET_PARAMETERS_H_
#define PERFHIVE_QUERY_FLEET_PARAMETERS_H_

#include <cstddef>
#include <string>

#include "base/status.h"
#include "query/read_engine.h"

namespace perfhive::query {

struct FleetParameters {
  std::string select;      // a host selector: "role=web,site=ams*"
  std::string aggregates;  // "avg,p95": combine the series of each group per step
  std::string group_by;    // "counter" (the default), "host", "instance", "process", a label key
  size_t top = 0;          // keep the N series (or groups) with the highest rank_by
  size_t bottom = 0;       // or with the lowest
  std::string rank_by;     // "mean" (the default), "min", "max", "last", "p50", ..., "p99"
  std::string compare;     // a span ("1w"): each series beside itself that much earlier
  std::string held;        // a condition ("> 90 for 5m"): only the series that held it, and where
};

// Sets the request's host selector, aggregation, ranking, comparison and condition from
// `parameters`. Errors
// (kInvalidArgument) name the value that is wrong and what to give instead.
Status ApplyFleetParameters(const FleetParameters& parameters, ReadRequest& request);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_FLEET_PARAMETERS_H_
