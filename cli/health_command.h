// `perfhive health`: the fleet's counter health (docs/health.md), findings touching the most
// hosts first, each host with since when, the likely cause and what to do; as text or as the JSON
// /api/v1/health answers. A finding newer than --since makes it exit 6, so that it works as a
// monitoring check.

#ifndef PERFHIVE_CLI_HEALTH_COMMAND_H_
#define PERFHIVE_CLI_HEALTH_COMMAND_H_

#include <optional>
#include <ostream>
#include <string>

#include "base/status.h"
#include "cli/server_connection.h"
#include "cli/stored_snapshot_commands.h"
#include "perfhive/v1/query.pb.h"

namespace perfhive::cli {

struct HealthOptions {
  std::string pattern;                  // host name pattern; empty: every host
  std::string select;                   // a host selector (role=web,site=ams*)
  std::string since = "24h";            // findings from this long ago on are new
  std::string at;                       // RFC 3339; empty: now
  std::optional<std::string> peers_by;  // label keys peers share; unset: the server's (role)
  OutputFormat format = OutputFormat::kTable;
};
Status RunHealth(const ServerConnection& server, const HealthOptions& options, std::ostream& out);
// Writes the report as RunHealth shows it, as of `now_ns`.
void PrintHealth(const perfhive::v1::HealthResponse& response, const HealthOptions& options,
                 int64_t now_ns, std::ostream& out);
// kAborted (exit 6) naming how many findings are newer than the report's start, else OK.
Status NewFindings(const perfhive::v1::HealthResponse& response);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_HEALTH_COMMAND_H_
