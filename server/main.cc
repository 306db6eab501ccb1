// perfhive-server: receives raw snapshots from agents (Ingest), keeps them in its embedded store
// and answers queries (Query); optionally pushes computed values to Prometheus-compatible
// receivers (remote write) and serves /metrics. docs/wire_protocol.md, docs/store_format.md and
// docs/prometheus.md describe them; README shows how to start it. The services themselves are
// built and stopped by ServerProcess (server/app/server_process.h).

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "perfhive/version.h"
#include "port/env.h"
#include "port/private_files.h"
#include "server/app/enroll_command.h"
#include "server/app/server_config.h"
#include "server/app/server_process.h"
#include "server/app/server_settings.h"
#include "server/app/stop_signals.h"
#include "server/enrollment/server_pki.h"

namespace perfhive {
namespace {

// `perfhive-server init`, its flags filling `options`.
CLI::App* AddInitCommand(CLI::App& app, InitOptions& options) {
  CLI::App* init = app.add_subcommand(
      "init",
      "Make this server's certificate authority and TLS certificate in DIR/pki, and print the "
      "fingerprint agents pin (--ca-sha256); run again to change names or renew the "
      "certificate, keeping the CA");
  init->add_option("--data", options.data_dir, "The server's data directory")->required();
  init->add_option("--name", options.names,
                   "A DNS name agents dial (repeatable); localhost is always added");
  init->add_option("--address", options.addresses,
                   "An IP address agents dial (repeatable); 127.0.0.1 and ::1 are always added");
  return init;
}

// The exit code of a subcommand that ended with `status`, whose error is written after `prefix`:
// 2 for bad usage (INVALID_ARGUMENT), 1 for any other failure.
int SubcommandExit(const char* prefix, const Status& status) {
  if (status.ok()) return 0;
  std::cerr << prefix << status.message() << "\n";
  return status.code() == StatusCode::kInvalidArgument ? 2 : 1;
}

// Serves as `flags` say until a signal stops the server.
int Serve(const ServerFlags& flags) {
  Result<ServerConfig> config = flags.Resolve(Env::Default());
  if (!config.ok()) {
    std::cerr << "perfhive-server: " << config.error() << "\n";
    return 2;
  }
  Result<std::unique_ptr<ServerProcess>> server = ServerProcess::Start(*config);
  if (!server.ok()) {
    std::cerr << "perfhive-server: " << server.status().message() << "\n";
    return 1;
  }
  (*server)->ServeUntilSignalled();
  return 0;
}

}  // namespace
}  // namespace perfhive

int main(int argc, char** argv) {
  // Signals are taken by sigwait in ServerProcess; every thread started after this inherits the
  // mask.
  perfhive::BlockServerSignals();
  // The store, the enrollment registry and the keys are 0600 in folders of 0700 (systemd's unit
  // sets UMask=0077 too; run by hand, the shell's 022 would make them world-readable).
  perfhive::KeepNewFilesPrivate();

  CLI::App app{"perfhive-server: receives raw snapshots from agents, stores them, answers queries"};
  app.set_version_flag("--version", std::string("perfhive-server ") + perfhive::kPerfhiveVersion);
  perfhive::ServerFlags flags(app);
  perfhive::InitOptions init_options;
  CLI::App* init = perfhive::AddInitCommand(app, init_options);
  perfhive::EnrollCommands enroll_commands(app);
  CLI::App* settings = app.add_subcommand(
      "settings",
      "List every setting: its flag, its key in the config file, its default and what it does "
      "(a Markdown table, as docs/server.md has it)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version end here with 0; a bad flag is bad usage, 2, as a bad config file is
    // (the unit does not restart on 2).
    return app.exit(error) == 0 ? 0 : 2;
  }

  if (enroll_commands.parsed()) {
    return perfhive::SubcommandExit("perfhive-server: ", enroll_commands.Run(std::cout));
  }
  if (settings->parsed()) {
    std::cout << perfhive::ServerSettingsMarkdown();
    return 0;
  }
  if (init->parsed()) {
    return perfhive::SubcommandExit(
        "perfhive-server init: ",
        perfhive::InitServerPki(perfhive::Env::Default(), init_options, std::cout));
  }
  return perfhive::Serve(flags);
}
