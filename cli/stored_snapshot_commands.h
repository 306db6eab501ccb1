// The commands that read what the server stores, as stored: `perfhive hosts`, `perfhive
// snapshots` and `perfhive raw`. Each writes its answer to `out` and returns the Status that
// decides the exit code.

#ifndef PERFHIVE_CLI_STORED_SNAPSHOT_COMMANDS_H_
#define PERFHIVE_CLI_STORED_SNAPSHOT_COMMANDS_H_

#include <ostream>
#include <string>

#include "base/status.h"
#include "cli/server_connection.h"
#include "perfhive/v1/query.pb.h"

namespace perfhive::cli {

enum class OutputFormat { kTable, kJson };

struct HostsOptions {
  std::string pattern;      // host name pattern; empty: all
  std::string select = "";  // a host selector (role=web,site=ams*); empty: all
  OutputFormat format = OutputFormat::kTable;
};
Status RunHosts(const ServerConnection& server, const HostsOptions& options, std::ostream& out);
// Writes the hosts the server listed as RunHosts shows them.
void PrintHosts(const perfhive::v1::ListHostsResponse& response, const HostsOptions& options,
                std::ostream& out);

struct SnapshotsOptions {
  std::string host;  // "\\HOST" or "HOST"
  std::string from;  // RFC 3339; empty: from the first
  std::string to;    // RFC 3339; empty: to the last
  std::string query;
  OutputFormat format = OutputFormat::kTable;
};
Status RunSnapshots(const ServerConnection& server, const SnapshotsOptions& options,
                    std::ostream& out);

struct RawOptions {
  std::string host;
  std::string at;  // RFC 3339, as `snapshots` prints it
  std::string query;
  std::string output;
  std::string titles_output;  // the bytes of "Counter 009" in force then
};
Status RunRaw(const ServerConnection& server, const RawOptions& options, std::ostream& out);

// "\\web01" or "web01" as "web01"; an error for anything else ("\\web01\Process").
Result<std::string> HostArgument(const std::string& text);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_STORED_SNAPSHOT_COMMANDS_H_
