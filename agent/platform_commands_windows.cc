// Windows: the agent under the service control manager (`service install|uninstall|run`), and
// `configure --service NAME`, which the MSI runs: the service restarts after a failure, starts
// delayed, and is restarted when it runs and a settings file changed.

#include <cstdlib>
#include <iostream>

#include "agent/agent_config.h"
#include "agent/logger.h"
#include "agent/platform_commands.h"
#include "agent/rotating_log_file.h"
#include "agent/windows_service.h"
#include "port/env.h"

namespace perfhive {
namespace {

// Points std::cerr at another buffer for as long as it lives: a service has no console, and the
// logs of polled hosts write to std::cerr.
class RedirectedCerr {
 public:
  explicit RedirectedCerr(std::streambuf* to) : previous_(std::cerr.rdbuf(to)) {}
  ~RedirectedCerr() { std::cerr.rdbuf(previous_); }
  RedirectedCerr(const RedirectedCerr&) = delete;
  RedirectedCerr& operator=(const RedirectedCerr&) = delete;

 private:
  std::streambuf* previous_;
};

// The service's log file unless --log-file names another.
std::string ServiceLogFile(const std::string& log_file) {
  return log_file.empty() ? AgentConfigDirectory() + "\\agent.log" : log_file;
}

// Warns about the recovery settings the service manager refused.
void WarnRefused(Logger& log, const std::string& name, const std::vector<std::string>& refused) {
  for (const std::string& setting : refused) {
    log.Warning("service " + name + ": the service manager refused " + setting);
  }
}

class WindowsCommands : public PlatformCommands {
 public:
  WindowsCommands(CLI::App& app, CLI::App& configure) {
    CLI::App* service = app.add_subcommand("service", "The agent as a Windows service");
    service->require_subcommand(1);
    install_ = service->add_subcommand(
        "install", "Register the agent as an automatically started service (elevated prompt)");
    uninstall_ = service->add_subcommand("uninstall", "Stop and remove the service");
    run_ =
        service->add_subcommand("run", "What the service control manager starts (not for people)");
    for (CLI::App* command : {install_, uninstall_, run_}) {
      command->add_option("--name", installation_.name, "The service's name")
          ->capture_default_str();
    }
    installation_.config_file = DefaultConfigFile();
    for (CLI::App* command : {install_, run_}) {
      command->add_option("--config", installation_.config_file, "The agent's TOML settings")
          ->capture_default_str();
      command->add_option("--log-file", installation_.log_file,
                          "Where the service logs, rotated at 10 MiB, four older files kept "
                          "(default: agent.log in %ProgramData%\\perfhive)");
    }
    configure.add_option("--service", configured_service_,
                         "The service these settings are for: it is set to restart after a "
                         "failure and to start delayed, and restarted when it runs and a file "
                         "changed");
  }

  std::optional<int> RunParsed(
      const std::function<int(const std::string&, Logger&)>& run_agent) override {
    if (run_->parsed()) return RunService(run_agent);
    if (!install_->parsed() && !uninstall_->parsed()) return std::nullopt;
    Status status =
        install_->parsed() ? InstallService(installation_) : UninstallService(installation_.name);
    if (!status.ok()) {
      std::cerr << "perfhive-agent: " << status.message() << "\n";
      return 1;
    }
    std::cout << (install_->parsed() ? "installed service " : "removed service ")
              << installation_.name << "\n";
    if (install_->parsed()) {
      Result<std::vector<std::string>> refused = SetServiceRecovery(installation_.name);
      if (!refused.ok()) {
        std::cerr << "perfhive-agent: " << refused.error() << "\n";
        return 1;
      }
      Logger log(std::cerr, Env::Default());
      WarnRefused(log, installation_.name, *refused);
    }
    return 0;
  }

  int AfterConfigure(bool changed, Logger& log) override {
    if (configured_service_.empty()) return 0;
    Result<std::vector<std::string>> refused = SetServiceRecovery(configured_service_);
    if (!refused.ok()) {
      log.Error("configure: " + refused.error());
      return 1;
    }
    WarnRefused(log, configured_service_, *refused);
    if (!changed) return 0;
    Result<bool> restarted = RestartServiceIfRunning(configured_service_);
    if (!restarted.ok()) {
      log.Error("configure: " + restarted.error());
      return 1;
    }
    if (*restarted) log.Info("restarted service " + configured_service_ + " to read its settings");
    return 0;
  }

 private:
  int RunService(const std::function<int(const std::string&, Logger&)>& run_agent) {
    Env& env = Env::Default();
    std::string log_path = ServiceLogFile(installation_.log_file);
    if (installation_.log_file.empty()) (void)env.CreateDirectories(AgentConfigDirectory());
    RotatingLogFile log_file({.path = log_path});
    RedirectedCerr to_log(log_file.is_open() ? &log_file : std::cerr.rdbuf());
    Logger log(std::cerr, env);
    Result<int> exit_code =
        RunAsService(installation_.name, [&] { return run_agent(installation_.config_file, log); });
    if (!exit_code.ok()) log.Error(exit_code.error());
    // The manager has been told the service stopped, and an installer removes the program's
    // files right after: a process still tearing down (static destructors, gRPC's shutdown)
    // holds its executable, which then stays until a reboot (under Wine, for good: the MSI test's
    // uninstall found it there one run in six). Every log line is on disk already (the log file
    // writes each at once), so the process ends here.
    std::_Exit(exit_code.ok() ? *exit_code : 2);
  }

  ServiceInstallation installation_;
  CLI::App* install_ = nullptr;
  CLI::App* uninstall_ = nullptr;
  CLI::App* run_ = nullptr;
  std::string configured_service_;  // configure --service
};

}  // namespace

std::unique_ptr<PlatformCommands> AddPlatformCommands(CLI::App& app, CLI::App& configure) {
  return std::make_unique<WindowsCommands>(app, configure);
}

}  // namespace perfhive
