// `perfhive alerts`: the server's alerting rules (perfhive-server --rules) and their alerts,
// firing first, as a table or as the JSON /api/v1/alerts answers.

#ifndef PERFHIVE_CLI_ALERTS_COMMAND_H_
#define PERFHIVE_CLI_ALERTS_COMMAND_H_

#include <ostream>

#include "base/status.h"
#include "cli/server_connection.h"
#include "cli/stored_snapshot_commands.h"
#include "perfhive/v1/query.pb.h"

namespace perfhive::cli {

struct AlertsOptions {
  OutputFormat format = OutputFormat::kTable;
};
Status RunAlerts(const ServerConnection& server, const AlertsOptions& options, std::ostream& out);
// Writes what the server listed as RunAlerts shows it, as of `now_ns`.
void PrintAlerts(const perfhive::v1::ListAlertsResponse& response, const AlertsOptions& options,
                 int64_t now_ns, std::ostream& out);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_ALERTS_COMMAND_H_
