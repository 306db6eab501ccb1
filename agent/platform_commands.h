// The agent's subcommands and flags that only one platform has, behind one seam, so that main.cc
// reads the same everywhere: on Windows the `service` commands, and what `configure --service`
// does to the service once the settings are written (platform_commands_windows.cc); elsewhere
// none (platform_commands_posix.cc). The local source is agent/local_source.h.

#ifndef PERFHIVE_AGENT_PLATFORM_COMMANDS_H_
#define PERFHIVE_AGENT_PLATFORM_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace perfhive {

class Logger;

// The platform's own subcommands and flags, once added to the command line.
class PlatformCommands {
 public:
  virtual ~PlatformCommands() = default;
  // Runs the platform's subcommand if one was parsed: its exit code; nullopt when none was.
  // `run_agent` runs the agent with a settings file and a log, as `run --config FILE` does.
  virtual std::optional<int> RunParsed(
      const std::function<int(const std::string& config_file, Logger& log)>& run_agent) = 0;
  // After `configure` wrote the settings (`changed`: a file changed): 0, or the exit code of a
  // failure, which is logged.
  virtual int AfterConfigure(bool changed, Logger& log) = 0;
};

// Adds the platform's subcommands to `app` and its flags to `configure`.
std::unique_ptr<PlatformCommands> AddPlatformCommands(CLI::App& app, CLI::App& configure);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_PLATFORM_COMMANDS_H_
