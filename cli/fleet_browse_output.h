// How `perfhive objects`, `counters` and `instances` show an answer about several hosts (a
// pattern for the host, or --select): each name with how many of the hosts browsed have it
// ("5 of 6") and the first few that lack it, under a line that says which hosts were browsed
// and when they were sampled. JSON gives the same, with every lacking host the server named.

#ifndef PERFHIVE_CLI_FLEET_BROWSE_OUTPUT_H_
#define PERFHIVE_CLI_FLEET_BROWSE_OUTPUT_H_

#include <ostream>

#include "cli/stored_snapshot_commands.h"
#include "perfhive/v1/query.pb.h"

namespace perfhive::cli {

// The hosts shown by name in a LACKING cell; the rest are counted ("+12 more").
inline constexpr size_t kLackingShown = 3;

// `where` is what was asked (the host pattern and the selector), for the heading.
void PrintFleetObjects(const perfhive::v1::BrowseAt& where,
                       const perfhive::v1::ListObjectsResponse& response, OutputFormat format,
                       std::ostream& out);
void PrintFleetCounters(const perfhive::v1::BrowseAt& where,
                        const perfhive::v1::ListCountersResponse& response, OutputFormat format,
                        std::ostream& out);
void PrintFleetInstances(const perfhive::v1::BrowseAt& where,
                         const perfhive::v1::ListInstancesResponse& response, OutputFormat format,
                         std::ostream& out);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_FLEET_BROWSE_OUTPUT_H_
