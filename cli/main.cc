// perfhive: the command-line client.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <iostream>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "cli/alerts_command.h"
#include "cli/decode_command.h"
#include "cli/error_text.h"
#include "cli/health_command.h"
#include "cli/login_command.h"
#include "cli/query_commands.h"
#include "cli/server_connection.h"
#include "cli/stored_snapshot_commands.h"
#include "perfhive/version.h"

namespace {

// The flags every command that talks to the server takes.
void AddConnectionOptions(CLI::App* command, perfhive::cli::ConnectionOptions& options) {
  command->add_option("--server", options.server,
                      "perfhive-server's HOST:PORT (default: $PERFHIVE_SERVER, else "
                      "127.0.0.1:7470)");
  command->add_flag("--insecure", options.insecure, "Plain text, no TLS (loopback servers)");
  command->add_option("--ca", options.ca,
                      "CA certificate (PEM) of the server's certificate (default: $PERFHIVE_CA, "
                      "else the system's)");
  command->add_option("--ca-sha256", options.ca_sha256,
                      "Trust the server's CA by its fingerprint, as perfhive-server init printed "
                      "it, instead of --ca (default: $PERFHIVE_CA_SHA256)");
  command->add_option("--cert", options.cert, "Client certificate (PEM) for mutual TLS");
  command->add_option("--key", options.key, "Client key (PEM) for mutual TLS");
  command->add_option("--token-file", options.token_file,
                      "File holding the token (default: $PERFHIVE_TOKEN_FILE)");
}

const std::map<std::string, perfhive::cli::QueryFormat> kQueryFormats = {
    {"table", perfhive::cli::QueryFormat::kTable},
    {"csv", perfhive::cli::QueryFormat::kCsv},
    {"json", perfhive::cli::QueryFormat::kJson}};

const std::map<std::string, perfhive::cli::OutputFormat> kListFormats = {
    {"table", perfhive::cli::OutputFormat::kTable}, {"json", perfhive::cli::OutputFormat::kJson}};

// Ends the process once its output is out, without tearing gRPC down: waiting for its threads to
// end took 1.5 of the 6 ms of a query answered at once, for memory and sockets the system takes
// back anyway. Leak checking still runs under the sanitizers, with everything still reachable.
// An answer that could not be written (a full disk) is a failure, not a success with nothing.
[[noreturn]] void ExitWithoutTeardown(int code) {
  std::cout.flush();
  const int write_error = errno;
  if (!std::cout && code == perfhive::cli::kExitOk) {
    std::cerr << "perfhive: " << perfhive::cli::OutputNotWritten(write_error).message() << "\n";
    code = perfhive::cli::kExitError;
  }
  std::cerr.flush();
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();
#endif
  std::_Exit(code);
}

// Runs a command against the server, printing its error, and leaves with its exit code.
template <typename Options>
[[noreturn]] void RunAgainstServer(const perfhive::cli::ConnectionOptions& connection,
                                   const Options& options,
                                   perfhive::Status (*run)(const perfhive::cli::ServerConnection&,
                                                           const Options&, std::ostream&)) {
  perfhive::Result<perfhive::cli::ServerConnection> server =
      perfhive::cli::ServerConnection::Open(connection);
  perfhive::Status status = server.ok() ? run(*server, options, std::cout) : server.status();
  if (!status.ok()) {
    std::cerr << "perfhive: " << perfhive::cli::ErrorForDisplay(status.message()) << "\n";
  }
  ExitWithoutTeardown(perfhive::cli::ExitCodeFor(status));
}

// The `decode` subcommand, its arguments and options read into `decode`.
CLI::App* AddDecodeCommand(CLI::App& app, perfhive::cli::DecodeOptions& decode) {
  CLI::App* decode_cmd = app.add_subcommand(
      "decode", "Print a raw snapshot file (PERF_DATA_BLOCK) with names resolved");
  decode_cmd->add_option("SNAPSHOT", decode.snapshot_path, "Raw snapshot file")->required();
  decode_cmd->add_option("NEXT", decode.next_path,
                         "A later snapshot of the same host: print it with each counter's value "
                         "and status computed from SNAPSHOT to NEXT");
  decode_cmd->add_option("--path", decode.paths,
                         "Print only the counters this counter path selects (wildcards allowed; "
                         "repeatable), e.g. '\\Processor(*)\\% Processor Time'");
  decode_cmd->add_option("--titles", decode.titles_path,
                         "Title database: a `lodctr /S` dump or the bytes of \"Counter 009\"");
  decode_cmd
      ->add_option("--scale", decode.scale_factor,
                   "Multiply values by 10^N, as PdhSetCounterScaleFactor (-7..7; default 0). A "
                   "counter's DefaultScale is only a chart scale and is never applied")
      ->check(CLI::Range(-7, 7));
  std::map<std::string, perfhive::cli::DecodeOptions::Format> formats = {
      {"table", perfhive::cli::DecodeOptions::Format::kTable},
      {"json", perfhive::cli::DecodeOptions::Format::kJson}};
  decode_cmd->add_option("--format", decode.format, "Output format: table or json")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case));
  return decode_cmd;
}

// The `hosts` subcommand, its arguments and options read into `hosts`.
CLI::App* AddHostsCommand(CLI::App& app, perfhive::cli::HostsOptions& hosts,
                          perfhive::cli::ConnectionOptions& connection) {
  CLI::App* hosts_cmd = app.add_subcommand(
      "hosts", "The hosts the server has heard from: last seen, OS, source, health, labels");
  hosts_cmd->add_option("PATTERN", hosts.pattern, "Host name pattern, e.g. 'web*'");
  hosts_cmd->add_option("--select", hosts.select,
                        "Only the hosts a selector selects by their labels, e.g. "
                        "'role=web,site=ams*' (docs/query_semantics.md)");
  hosts_cmd->add_option("--format", hosts.format, "table or json")
      ->transform(CLI::CheckedTransformer(kListFormats, CLI::ignore_case));
  AddConnectionOptions(hosts_cmd, connection);
  return hosts_cmd;
}

// The `alerts` subcommand, its arguments and options read into `alerts`.
CLI::App* AddAlertsCommand(CLI::App& app, perfhive::cli::AlertsOptions& alerts,
                           perfhive::cli::ConnectionOptions& connection) {
  CLI::App* alerts_cmd = app.add_subcommand(
      "alerts",
      "The server's alerting rules and their alerts: firing, pending, resolved in the last hour");
  alerts_cmd->add_option("--format", alerts.format, "table or json (as /api/v1/alerts)")
      ->transform(CLI::CheckedTransformer(kListFormats, CLI::ignore_case));
  AddConnectionOptions(alerts_cmd, connection);
  return alerts_cmd;
}

// The `health` subcommand, its arguments and options read into `health`.
CLI::App* AddHealthCommand(CLI::App& app, perfhive::cli::HealthOptions& health,
                           perfhive::cli::ConnectionOptions& connection) {
  CLI::App* health_cmd = app.add_subcommand(
      "health",
      "The fleet's counter health: hosts lacking what their peers have, since when and why; "
      "objects lost or coming and going; unnamed indexes; collection errors. Exits 6 on a "
      "finding newer than --since");
  health_cmd->add_option("PATTERN", health.pattern, "Host name pattern, e.g. 'web*'");
  health_cmd->add_option("--select", health.select,
                         "Only the hosts a selector selects by their labels, e.g. "
                         "'role=web,site=ams*'");
  health_cmd
      ->add_option("--since", health.since,
                   "Findings from this long ago on are new (exit 6): 10m, 2h, 1d; "
                   "default 24h")
      ->capture_default_str();
  health_cmd->add_option("--at", health.at, "As of this time (RFC 3339); default: now");
  health_cmd->add_option("--peers-by", health.peers_by,
                         "Label keys peers share beside their OS family: role,env (default "
                         "role; '' for the OS family alone)");
  health_cmd->add_option("--format", health.format, "table or json (as /api/v1/health)")
      ->transform(CLI::CheckedTransformer(kListFormats, CLI::ignore_case));
  AddConnectionOptions(health_cmd, connection);
  return health_cmd;
}

// The `login` subcommand, its arguments and options read into `login`.
CLI::App* AddLoginCommand(CLI::App& app, perfhive::cli::LoginOptions& login,
                          perfhive::cli::ConnectionOptions& connection) {
  CLI::App* login_cmd = app.add_subcommand(
      "login",
      "Get a reader's certificate with an enrollment token (perfhive-server enroll create "
      "--read) and remember the server: later commands need no flag");
  login_cmd->add_option("--enroll", login.enroll_token, "The enrollment token")->required();
  login_cmd->add_option("--name", login.name,
                        "The name to read as, shown by the server (default reader-<this host>)");
  AddConnectionOptions(login_cmd, connection);
  return login_cmd;
}

// The `snapshots` subcommand, its arguments and options read into `snapshots`.
CLI::App* AddSnapshotsCommand(CLI::App& app, perfhive::cli::SnapshotsOptions& snapshots,
                              perfhive::cli::ConnectionOptions& connection) {
  CLI::App* snapshots_cmd =
      app.add_subcommand("snapshots", "The raw snapshots the server stores for a host");
  snapshots_cmd->add_option("HOST", snapshots.host, "\\\\HOST or HOST")->required();
  snapshots_cmd->add_option("--from", snapshots.from, "From this time (RFC 3339)");
  snapshots_cmd->add_option("--to", snapshots.to, "Up to this time (RFC 3339)");
  snapshots_cmd->add_option("--query", snapshots.query, "Only snapshots of this query");
  snapshots_cmd->add_option("--format", snapshots.format, "table or json")
      ->transform(CLI::CheckedTransformer(kListFormats, CLI::ignore_case));
  AddConnectionOptions(snapshots_cmd, connection);
  return snapshots_cmd;
}

// The `raw` subcommand, its arguments and options read into `raw`.
CLI::App* AddRawCommand(CLI::App& app, perfhive::cli::RawOptions& raw,
                        perfhive::cli::ConnectionOptions& connection) {
  CLI::App* raw_cmd = app.add_subcommand(
      "raw",
      "Write one stored snapshot exactly as its source produced it (perfhive decode reads "
      "it)");
  raw_cmd->add_option("HOST", raw.host, "\\\\HOST or HOST")->required();
  raw_cmd->add_option("--at", raw.at, "The snapshot's time (RFC 3339), as `snapshots` prints it")
      ->required();
  raw_cmd->add_option("--query", raw.query, "When several snapshots share that time");
  raw_cmd->add_option("--output", raw.output, "File for the raw snapshot")->required();
  raw_cmd->add_option("--titles-output", raw.titles_output,
                      "File for the title database in force then (\"Counter 009\")");
  AddConnectionOptions(raw_cmd, connection);
  return raw_cmd;
}

// The `query` subcommand, its arguments and options read into `query`.
CLI::App* AddQueryCommand(CLI::App& app, perfhive::cli::QueryOptions& query,
                          perfhive::cli::ConnectionOptions& connection) {
  CLI::App* query_cmd = app.add_subcommand(
      "query", "Values of counters over time, computed from the stored raw samples");
  query_cmd
      ->add_option("PATH", query.paths,
                   "PDH counter paths, wildcards allowed: '\\\\web*\\Process(sql*)\\% "
                   "Processor Time'; without \\\\HOST, every host")
      ->required();
  query_cmd->add_option("--since", query.since, "From this long ago: 10m, 2h, 1d");
  query_cmd->add_option("--from", query.from, "From this time (RFC 3339)");
  query_cmd->add_option("--to", query.to, "Up to this time (RFC 3339)");
  query_cmd->add_option("--step", query.step,
                        "One value per step (1m), exact from the raw samples at its ends");
  query_cmd->add_flag("--stats", query.statistics,
                      "Statistics per series: count, min, max, mean, p50, p90, p95, p99");
  query_cmd->add_flag("--raw", query.raw, "Also the raw values");
  query_cmd->add_option("--select", query.fleet.select,
                        "Only hosts with these labels: role=web,site=ams* (host=NAME too)");
  query_cmd->add_option("--aggregate", query.fleet.aggregates,
                        "Combine series per step: avg, sum, min, max, count, p50, p90, p95, p99 "
                        "(avg,p95); needs --step");
  query_cmd->add_option("--group-by", query.fleet.group_by,
                        "Groups to aggregate: counter (default), host, instance, process, or a "
                        "label (role)");
  query_cmd->add_option("--top", query.fleet.top,
                        "Only the N series (or groups) with the highest --rank-by");
  query_cmd->add_option("--bottom", query.fleet.bottom,
                        "Only the N series (or groups) with the lowest --rank-by");
  query_cmd->add_option("--rank-by", query.fleet.rank_by,
                        "mean (default), min, max, last, p50, p90, p95 or p99 over the range");
  query_cmd->add_option("--compare", query.fleet.compare,
                        "Beside the same window this much earlier (1d, 1w): means, difference, "
                        "ratio");
  query_cmd->add_option("--held", query.fleet.held,
                        "Only the series that held a condition, and where: \"> 90 for 5m\"; "
                        "exit 6 when one holds at its last value");
  query_cmd->add_option("--max-points", query.max_points,
                        "Refuse answers larger than N points (default: the server's, 2,000,000)");
  query_cmd
      ->add_option("--scale", query.scale,
                   "Multiply values by 10^N, as PdhSetCounterScaleFactor (-7..7)")
      ->check(CLI::Range(-7, 7));
  query_cmd->add_option("--format", query.format, "table, csv (typeperf's layout) or json")
      ->transform(CLI::CheckedTransformer(kQueryFormats, CLI::ignore_case));
  AddConnectionOptions(query_cmd, connection);
  return query_cmd;
}

// The `watch` subcommand, its arguments and options read into `watch`.
CLI::App* AddWatchCommand(CLI::App& app, perfhive::cli::WatchOptions& watch,
                          perfhive::cli::ConnectionOptions& connection) {
  CLI::App* watch_cmd = app.add_subcommand("watch", "Live values as samples arrive, like typeperf");
  watch_cmd->add_option("PATH", watch.paths, "PDH counter paths, wildcards allowed")->required();
  watch_cmd->add_option("--select", watch.select,
                        "Only hosts with these labels: role=web,site=ams* (host=NAME too)");
  watch_cmd->add_option("--interval", watch.interval, "How often to ask (1s)")
      ->capture_default_str();
  watch_cmd->add_option("--count", watch.count, "Stop after N new samples (typeperf -sc)");
  watch_cmd->add_option("--format", watch.format, "table, csv or json")
      ->transform(CLI::CheckedTransformer(kQueryFormats, CLI::ignore_case));
  AddConnectionOptions(watch_cmd, connection);
  return watch_cmd;
}

// A browsing subcommand (objects, counters, instances, explain), its options read into `browse`.
// `several`: a pattern for the host and --select browse every host they pick.
CLI::App* AddBrowseCommand(CLI::App& app, perfhive::cli::BrowseOptions& browse,
                           perfhive::cli::ConnectionOptions& connection, const char* name,
                           const char* help, const char* target_help, bool with_detail,
                           bool several) {
  CLI::App* command = app.add_subcommand(name, help);
  command->add_option("TARGET", browse.target, target_help)->required();
  if (several) {
    command->add_option("--select", browse.select,
                        "Every host with these labels (of those TARGET names): "
                        "role=web,site=ams* (host=NAME too); with how many have each name");
  }
  if (with_detail) {
    command->add_option("--detail", browse.detail,
                        "Up to this detail level: novice, advanced, expert, wizard");
  }
  command->add_option("--at", browse.at, "As of this time (RFC 3339); default: the newest");
  command->add_option("--format", browse.format, "table or json")
      ->transform(CLI::CheckedTransformer(kListFormats, CLI::ignore_case));
  AddConnectionOptions(command, connection);
  return command;
}

}  // namespace

int main(int argc, char** argv) {
  // gRPC's own log lines would repeat, less clearly, the errors this program explains.
  setenv("GRPC_VERBOSITY", "NONE", /*overwrite=*/0);
  CLI::App app{"perfhive: Windows performance counters for a whole fleet"};
  app.set_version_flag("--version", std::string("perfhive ") + perfhive::kPerfhiveVersion);
  app.require_subcommand(1);

  perfhive::cli::DecodeOptions decode;
  CLI::App* decode_cmd = AddDecodeCommand(app, decode);

  perfhive::cli::ConnectionOptions connection;

  perfhive::cli::HostsOptions hosts;
  CLI::App* hosts_cmd = AddHostsCommand(app, hosts, connection);

  perfhive::cli::AlertsOptions alerts;
  CLI::App* alerts_cmd = AddAlertsCommand(app, alerts, connection);

  perfhive::cli::HealthOptions health;
  CLI::App* health_cmd = AddHealthCommand(app, health, connection);

  perfhive::cli::LoginOptions login;
  CLI::App* login_cmd = AddLoginCommand(app, login, connection);

  perfhive::cli::SnapshotsOptions snapshots;
  CLI::App* snapshots_cmd = AddSnapshotsCommand(app, snapshots, connection);

  perfhive::cli::RawOptions raw;
  CLI::App* raw_cmd = AddRawCommand(app, raw, connection);

  perfhive::cli::QueryOptions query;
  CLI::App* query_cmd = AddQueryCommand(app, query, connection);

  perfhive::cli::WatchOptions watch;
  CLI::App* watch_cmd = AddWatchCommand(app, watch, connection);

  perfhive::cli::BrowseOptions browse;
  CLI::App* objects_cmd =
      AddBrowseCommand(app, browse, connection, "objects",
                       "The performance objects of a host, or of several with how many have each",
                       "\\\\HOST, or a pattern (\\\\web*; default \\\\*) for several", true, true);
  CLI::App* counters_cmd =
      AddBrowseCommand(app, browse, connection, "counters", "The counters of an object",
                       "\\\\HOST\\OBJECT (\\\\web*\\OBJECT: several)", true, true);
  CLI::App* instances_cmd =
      AddBrowseCommand(app, browse, connection, "instances", "The instances of an object",
                       "\\\\HOST\\OBJECT (\\\\web*\\OBJECT: several)", false, true);
  CLI::App* explain_cmd = AddBrowseCommand(app, browse, connection, "explain",
                                           "What a counter means: its explain text and type",
                                           "\\\\HOST\\OBJECT\\COUNTER", false, false);
  // Without TARGET, the objects of every host (of those --select picks).
  objects_cmd->get_option("TARGET")->required(false);

  CLI11_PARSE(app, argc, argv);
  if (query_cmd->parsed()) RunAgainstServer(connection, query, perfhive::cli::RunQuery);
  if (watch_cmd->parsed()) RunAgainstServer(connection, watch, perfhive::cli::RunWatch);
  if (objects_cmd->parsed()) RunAgainstServer(connection, browse, perfhive::cli::RunObjects);
  if (counters_cmd->parsed()) {
    RunAgainstServer(connection, browse, perfhive::cli::RunCounters);
  }
  if (instances_cmd->parsed()) {
    RunAgainstServer(connection, browse, perfhive::cli::RunInstances);
  }
  if (explain_cmd->parsed()) RunAgainstServer(connection, browse, perfhive::cli::RunExplain);
  if (decode_cmd->parsed()) return perfhive::cli::RunDecode(decode, std::cout, std::cerr);
  if (hosts_cmd->parsed()) RunAgainstServer(connection, hosts, perfhive::cli::RunHosts);
  if (alerts_cmd->parsed()) RunAgainstServer(connection, alerts, perfhive::cli::RunAlerts);
  if (health_cmd->parsed()) RunAgainstServer(connection, health, perfhive::cli::RunHealth);
  if (login_cmd->parsed()) RunAgainstServer(connection, login, perfhive::cli::RunLogin);
  if (snapshots_cmd->parsed()) {
    RunAgainstServer(connection, snapshots, perfhive::cli::RunSnapshots);
  }
  if (raw_cmd->parsed()) RunAgainstServer(connection, raw, perfhive::cli::RunRaw);
  return perfhive::cli::kExitUsage;
}
