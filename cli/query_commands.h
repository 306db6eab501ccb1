// The commands that ask the server for meaning: `perfhive query` (values over a time range),
// `perfhive watch` (live values as samples arrive), and browsing: `objects`, `counters`,
// `instances`, `explain`. Output goes to `out`; the returned Status decides the exit code.

#ifndef PERFHIVE_CLI_QUERY_COMMANDS_H_
#define PERFHIVE_CLI_QUERY_COMMANDS_H_

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/server_connection.h"
#include "cli/stored_snapshot_commands.h"
#include "query/fleet_parameters.h"

namespace perfhive::cli {

enum class QueryFormat { kTable, kCsv, kJson };

struct QueryOptions {
  std::vector<std::string> paths;
  std::string since;  // a span back from now ("10m"); empty: see from/to
  std::string from;   // RFC 3339
  std::string to;     // RFC 3339
  std::string step;   // a span; empty: every sample
  bool statistics = false;
  bool raw = false;
  query::FleetParameters fleet;  // hosts by label, aggregates, top or bottom N
  int scale = 0;
  uint64_t max_points = 0;  // the answer's size limit; 0: the server's default
  QueryFormat format = QueryFormat::kTable;
  size_t width = 0;  // table width; 0: the terminal's, or unlimited when not a terminal
};
Status RunQuery(const ServerConnection& server, const QueryOptions& options, std::ostream& out);

struct WatchOptions {
  std::vector<std::string> paths;
  std::string select;  // a host selector
  std::string interval = "1s";
  int count = 0;  // stop after this many rounds with new values (0: until interrupted)
  QueryFormat format = QueryFormat::kTable;
};
Status RunWatch(const ServerConnection& server, const WatchOptions& options, std::ostream& out);

struct BrowseOptions {
  // \\HOST, \\HOST\Object or a counter path, as each command needs; a pattern for the host
  // (\\web*) browses every host it matches (objects: empty is \\*).
  std::string target;
  std::string select;  // a host selector: every host it picks of those the target names
  std::string detail;  // novice, advanced, expert, wizard; empty: all
  std::string at;      // RFC 3339; empty: the newest sample
  OutputFormat format = OutputFormat::kTable;
};
Status RunObjects(const ServerConnection& server, const BrowseOptions& options, std::ostream& out);
Status RunCounters(const ServerConnection& server, const BrowseOptions& options, std::ostream& out);
Status RunInstances(const ServerConnection& server, const BrowseOptions& options,
                    std::ostream& out);
Status RunExplain(const ServerConnection& server, const BrowseOptions& options, std::ostream& out);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_QUERY_COMMANDS_H_
