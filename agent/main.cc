// perfhive-agent: reads this host's performance data. `run` samples it on schedule and streams
// it to a perfhive-server (docs/agent.md); `snapshot` writes one raw PERF_DATA_BLOCK (and the
// title database) to files, for offline use and for checking a source by hand; `configure`
// writes the settings file (what the MSI runs); `service` is the agent as a Windows service.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "agent/local_source.h"
#include "agent/remote_source.h"
#include "base/status.h"
#include "perfdata/display_text.h"
#include "perfhive/version.h"
#include "sources/object_names_query.h"
#include "sources/snapshot_source.h"

#ifdef PERFHIVE_AGENT_RUN
#include "agent/agent_config.h"
#include "agent/agent_settings.h"
#include "agent/configure_command.h"
#include "agent/drain_command.h"
#include "agent/logger.h"
#include "agent/platform_commands.h"
#include "agent/rotating_log_file.h"
#include "agent/run_command.h"
#include "agent/run_flags.h"
#endif

namespace perfhive {
namespace {

struct SnapshotOptions {
  std::string source = DefaultLocalSource();
  std::string query = "Global";
  std::vector<std::string> objects;  // names or indexes; replace `query` when given
  std::string output;
  std::string titles_output;
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::string target;       // a host without an agent, "\\HOST[:PORT]"; replaces --source
  std::string credentials;  // for --target: an smbclient authentication file
};

Result<std::unique_ptr<SnapshotSource>> OpenSource(const SnapshotOptions& options) {
  if (!options.target.empty()) return OpenRemoteSource(options.target, options.credentials);
  return OpenLocalSource(options.source, options.proc_root, options.sys_root);
}

Status WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return Status::Error("cannot create " + path + ": " + std::strerror(errno));
  bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int error = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written) return Status::Error("cannot write " + path + ": " + std::strerror(error));
  return Status();
}

Status RunSnapshot(const SnapshotOptions& options) {
  Result<std::unique_ptr<SnapshotSource>> source = OpenSource(options);
  if (!source.ok()) return source.status();
  std::string query = options.query;
  if (!options.objects.empty()) {
    // Names become indexes through this host's own English title database.
    Result<std::vector<TitleBytes>> titles = (*source)->ReadTitles();
    if (!titles.ok()) return titles.status();
    Result<std::string> indexes = QueryForObjectNames(titles->front(), options.objects);
    if (!indexes.ok()) return indexes.status();
    query = std::move(indexes).value();
  }
  Result<std::vector<uint8_t>> snapshot = (*source)->TakeSnapshot(query);
  for (const std::string& warning : (*source)->TakeWarnings()) {
    std::cerr << "perfhive-agent: warning: " << warning << "\n";
  }
  if (!snapshot.ok()) return snapshot.status();
  if (Status status = WriteFile(options.output, *snapshot); !status.ok()) return status;
  if (options.titles_output.empty()) return Status();
  Result<std::vector<TitleBytes>> titles = (*source)->ReadTitles();
  if (!titles.ok()) return titles.status();
  return WriteFile(options.titles_output, titles->front().counters);
}

#ifdef PERFHIVE_AGENT_RUN
// `configure`: the settings to write, and where the outcome is logged.
struct ConfigureFlags {
  ConfigureOptions options;
  std::string log_file;
};

void AddConfigureFlags(CLI::App& configure, ConfigureFlags& flags) {
  ConfigureOptions& o = flags.options;
  o.file = DefaultConfigFile();
  configure.add_option("--file", o.file, "The settings file to update")->capture_default_str();
  configure.add_option("--server", o.server, "The perfhive-server, HOST:PORT");
  configure.add_option("--token", o.token,
                       "This agent's token, written to the file token_file names (default: "
                       "agent.token beside the settings), which only the system and "
                       "administrators may read; - reads it from standard input");
  configure.add_option("--ca", o.ca_file,
                       "PEM file of the server's CA, copied to ca.pem beside the settings");
  configure.add_option("--ca-sha256", o.ca_sha256,
                       "The server's CA by fingerprint (sha256:..., from perfhive-server init), "
                       "instead of --ca");
  configure.add_option("--enroll", o.enroll_token,
                       "An enrollment token (perfhive-server enroll create), written to "
                       "enroll.token beside the settings, readable as the token is; the agent "
                       "deletes it once enrolled");
  configure.add_option("--host-name", o.host_name, "The name to file snapshots under");
  configure.add_option("--queries", o.queries,
                       "Queries and their schedules separated by ';', e.g. Global@10s;Costly@5m; "
                       "replaces every [[query]]");
  configure.add_option("--interval", o.interval, "Default time between snapshots, e.g. 10s");
  configure.add_option("--targets", o.targets,
                       "Hosts without an agent separated by ';', e.g. "
                       "\\\\web01;\\\\10.0.0.7=DB01; replaces every [[target]]");
  configure.add_option("--labels", o.labels,
                       "This host's labels separated by ';', e.g. role=web;site=ams; replaces "
                       "the labels table");
  configure.add_option("--insecure", o.insecure,
                       "1: plain text, for a server on this host only; 0: TLS");
  configure.add_option("--source", o.source,
                       "procfs, hkpd or replay (tests, and replaying recordings)");
  configure.add_option("--replay", o.replay_dir, "replay: the directory of snapshot files");
  configure.add_option("--log-file", flags.log_file,
                       "Log the outcome there, not on the console (what an installer, which has "
                       "none, reads); rotated as the service's log is");
}

// Every option is an empty string unless given, and an empty string changes nothing: the MSI
// passes each of its properties, given or not. `platform` then does what its flags ask (on
// Windows, to the service the settings are for).
int RunConfigure(ConfigureFlags flags, PlatformCommands& platform) {
  Env& env = Env::Default();
  std::unique_ptr<RotatingLogFile> log_file;
  if (!flags.log_file.empty()) {
    size_t slash = flags.log_file.find_last_of("/\\");
    if (slash != std::string::npos) (void)env.CreateDirectories(flags.log_file.substr(0, slash));
    log_file = std::make_unique<RotatingLogFile>(RotatingLogFile::Options{.path = flags.log_file});
  }
  std::ostream log_stream(log_file != nullptr && log_file->is_open() ? log_file.get()
                                                                     : std::cerr.rdbuf());
  Logger log(log_stream, env);
  ConfigureOptions& options = flags.options;
  if (options.token == "-") std::getline(std::cin, options.token);
  Result<ConfigureOutcome> outcome = Configure(env, options);
  if (!outcome.ok()) {
    log.Error("configure " + options.file + ": " + outcome.error());
    return outcome.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
  }
  std::string given;
  for (const std::string& change : outcome->changes) given += (given.empty() ? "" : ", ") + change;
  log.Info("configure " + options.file + ": " +
           (given.empty() ? std::string("no settings given") : given + " given") +
           (outcome->changed ? "; written" : "; the files held them already"));
  return platform.AfterConfigure(outcome->changed, log);
}

// `run --config FILE`, as a service runs the agent.
int RunWithConfigFile(const std::string& config_file, Logger& log) {
  Env& env = Env::Default();
  RunFlags flags;
  flags.config_file = config_file;
  Result<AgentConfig> config = ResolveRunConfig(env, flags);
  if (!config.ok()) {
    log.Error(config.error());
    return 2;
  }
  return RunAgent(*config, env, log);
}
#endif

}  // namespace
}  // namespace perfhive

int main(int argc, char** argv) {
  CLI::App app{"perfhive-agent: reads this host's performance data"};
  app.set_version_flag("--version", std::string("perfhive-agent ") + perfhive::kPerfhiveVersion);
  app.require_subcommand(1);

  perfhive::SnapshotOptions options;
  CLI::App* snapshot = app.add_subcommand(
      "snapshot", "Write one raw snapshot (PERF_DATA_BLOCK) and optionally the title database");
  snapshot
      ->add_option("--source", options.source, "Where to read: procfs (Linux) or hkpd (Windows)")
      ->check(CLI::IsMember({"procfs", "hkpd"}))
      ->capture_default_str();
  snapshot
      ->add_option("--query", options.query,
                   "Objects to read: Global, Costly, or object indexes such as \"230 238\"")
      ->capture_default_str();
  snapshot->add_option("--object", options.objects,
                       "An object to read, by name in the host's language database or by index "
                       "(repeatable; replaces --query), e.g. --object Processor --object 230");
  snapshot->add_option("--output", options.output, "File for the raw snapshot")->required();
  snapshot->add_option("--titles-output", options.titles_output,
                       "File for the title database: the bytes \"Counter 009\" returns");
  snapshot->add_option("--target", options.target,
                       "A host without an agent, \\\\HOST or \\\\HOST:PORT, read over the remote "
                       "registry (replaces --source)");
  snapshot->add_option("--credentials", options.credentials,
                       "For --target on Linux: a file with `username = NAME`, `password = SECRET` "
                       "and optionally `domain = DOMAIN` (default: PERFHIVE_SMB_USER, "
                       "PERFHIVE_SMB_PASSWORD, PERFHIVE_SMB_DOMAIN)");
  snapshot->add_option("--proc-root", options.proc_root, "procfs: where /proc is")
      ->capture_default_str();
  snapshot->add_option("--sys-root", options.sys_root, "procfs: where /sys is")
      ->capture_default_str();

#ifdef PERFHIVE_AGENT_RUN
  perfhive::RunFlags run_flags;
  CLI::App* run = app.add_subcommand(
      "run",
      "Sample this host (or remote hosts, or a replay directory) on schedule and stream to a "
      "server");
  perfhive::AddRunFlags(*run, run_flags);
  perfhive::RunFlags drain_flags;
  CLI::App* drain = app.add_subcommand(
      "drain",
      "Ship what spool folders hold, each snapshot under the host it was taken as, and exit: "
      "the snapshots an agent keeps aside (a host since renamed, a --spool-dir used by another "
      "agent before). Takes run's server and spool settings; --host-name names the host of "
      "snapshots spooled by agents that did not record it");
  perfhive::AddRunFlags(*drain, drain_flags);
  perfhive::ConfigureFlags configure_flags;
  CLI::App* configure = app.add_subcommand(
      "configure",
      "Change settings in the settings file (created when missing; the MSI runs this with its "
      "properties): the settings given change, every other one stays");
  perfhive::AddConfigureFlags(*configure, configure_flags);
  CLI::App* settings = app.add_subcommand(
      "settings",
      "List every setting of run and drain: its flag, its key in the config file, its default "
      "and what it does (a Markdown table, as docs/agent.md has it)");
  std::unique_ptr<perfhive::PlatformCommands> platform =
      perfhive::AddPlatformCommands(app, *configure);
#endif

  CLI11_PARSE(app, argc, argv);
#ifdef PERFHIVE_AGENT_RUN
  if (run->parsed()) {
    perfhive::Env& env = perfhive::Env::Default();
    perfhive::Logger log(std::cerr, env);
    perfhive::Result<perfhive::AgentConfig> config = perfhive::ResolveRunConfig(env, run_flags);
    if (!config.ok()) {
      log.Error(config.error());
      return 2;
    }
    return perfhive::RunAgent(*config, env, log);
  }
  if (drain->parsed()) {
    perfhive::Env& env = perfhive::Env::Default();
    perfhive::Logger log(std::cerr, env);
    perfhive::Result<perfhive::AgentConfig> config = perfhive::ResolveRunConfig(env, drain_flags);
    if (!config.ok()) {
      log.Error(config.error());
      return 2;
    }
    return perfhive::DrainSpools(*config, env, log);
  }
  if (configure->parsed()) return perfhive::RunConfigure(std::move(configure_flags), *platform);
  if (settings->parsed()) {
    std::cout << perfhive::AgentSettingsMarkdown();
    return 0;
  }
  if (std::optional<int> exit_code = platform->RunParsed(perfhive::RunWithConfigFile)) {
    return *exit_code;
  }
#endif
  perfhive::Status status = perfhive::RunSnapshot(options);
  if (!status.ok()) {
    // Remote hosts' errors are quoted in it.
    std::cerr << "perfhive-agent: " << perfhive::EscapeForDisplay(status.message()) << "\n";
    return 1;
  }
  return 0;
}
