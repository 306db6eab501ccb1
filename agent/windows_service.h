// The agent as a Windows service: registration with the service control manager (`service
// install|uninstall`, and what the MSI's `configure` sets on the service it installed) and the
// service's side of the conversation (`service run`, which the manager starts). Windows only.

#ifndef PERFHIVE_AGENT_WINDOWS_SERVICE_H_
#define PERFHIVE_AGENT_WINDOWS_SERVICE_H_

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

namespace perfhive {

inline constexpr const char* kDefaultServiceName = "perfhive-agent";

struct ServiceInstallation {
  std::string name = kDefaultServiceName;
  // The agent's settings; the service runs `perfhive-agent service run --config FILE`.
  std::string config_file;
  // Where the service writes its log (a service has no console).
  std::string log_file;
};

// Registers this executable as an automatically started service running as LocalSystem, which
// can read HKEY_PERFORMANCE_DATA. The paths are made absolute: a service starts in System32.
Status InstallService(const ServiceInstallation& installation);

// Sets what CreateServiceW cannot: the manager restarts the service 10 s after a failure (30 s
// after a second, 60 s after any later one; the count starts over after a day without one), a
// stop with an error code counting as a failure as a crash does; and the service starts delayed
// after boot (about two minutes), once the system's own services are up. Returns the settings the
// manager refused (Wine's refuses some): the service works without them, they are warnings.
// Fails when the service cannot be opened to change.
Result<std::vector<std::string>> SetServiceRecovery(const std::string& name);

// Stops the service if it runs, then removes its registration.
Status UninstallService(const std::string& name);

// Stops the service and starts it again, so that it reads its settings anew, when it runs; a
// service that does not run is left as it is. True when it was restarted.
Result<bool> RestartServiceIfRunning(const std::string& name);

// Hands this process to the service control manager and calls `run_agent` on the service's
// thread; returns its exit code once it returns. A stop or shutdown request from the manager
// stops the agent exactly as SIGTERM does, so the spool keeps what is unanswered. Fails when
// the process was not started by the manager.
Result<int> RunAsService(const std::string& name, std::function<int()> run_agent);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_WINDOWS_SERVICE_H_
