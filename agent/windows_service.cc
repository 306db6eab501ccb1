// The service control manager's conversation: a dispatcher thread that the manager drives, a
// ServiceMain that reports RUNNING, runs the agent and reports STOPPED, and a control handler
// that turns STOP and SHUTDOWN into the agent's own clean stop.

#include "agent/windows_service.h"

#include <windows.h>

#include <csignal>
#include <filesystem>
#include <iterator>
#include <system_error>
#include <utility>

#include "port/wide_text.h"

namespace perfhive {
namespace {

Status LastError(const std::string& what) {
  DWORD error = GetLastError();
  std::string message =
      what + ": " + std::to_string(error) + " (" + std::system_category().message(error) + ")";
  if (error == ERROR_ACCESS_DENIED) {
    return Status::PermissionDenied(message + "; run it from an elevated (administrator) prompt");
  }
  if (error == ERROR_SERVICE_DOES_NOT_EXIST) return Status::NotFound(std::move(message));
  return Status::Error(std::move(message));
}

// Closes a service manager handle on scope exit.
class ScHandle {
 public:
  explicit ScHandle(SC_HANDLE handle) : handle_(handle) {}
  ~ScHandle() {
    if (handle_ != nullptr) CloseServiceHandle(handle_);
  }
  ScHandle(const ScHandle&) = delete;
  ScHandle& operator=(const ScHandle&) = delete;
  SC_HANDLE get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  SC_HANDLE handle_;
};

std::wstring Quoted(const std::wstring& text) { return L"\"" + text + L"\""; }

// What the running service shares with the manager's callbacks, which take no context of ours
// but ServiceMain's name: there is one service per process.
struct RunningService {
  std::wstring name;
  std::function<int()> run_agent;
  SERVICE_STATUS_HANDLE status_handle = nullptr;
  int exit_code = 0;
  bool started = false;
};
RunningService* running = nullptr;

void Report(DWORD state, DWORD exit_code = NO_ERROR, DWORD wait_hint_ms = 0) {
  SERVICE_STATUS status = {};
  status.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
  status.dwCurrentState = state;
  status.dwControlsAccepted =
      state == SERVICE_RUNNING ? SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN : 0;
  if (exit_code != NO_ERROR) {
    status.dwWin32ExitCode = ERROR_SERVICE_SPECIFIC_ERROR;
    status.dwServiceSpecificExitCode = exit_code;
  }
  status.dwWaitHint = wait_hint_ms;
  SetServiceStatus(running->status_handle, &status);
}

DWORD WINAPI HandleControl(DWORD control, DWORD, void*, void*) {
  switch (control) {
    case SERVICE_CONTROL_STOP:
    case SERVICE_CONTROL_SHUTDOWN:
      // The agent spools what is unanswered before it returns; that may take a few seconds.
      Report(SERVICE_STOP_PENDING, NO_ERROR, 30'000);
      std::raise(SIGTERM);
      return NO_ERROR;
    case SERVICE_CONTROL_INTERROGATE:
      return NO_ERROR;
    default:
      return ERROR_CALL_NOT_IMPLEMENTED;
  }
}

void WINAPI ServiceMain(DWORD, LPWSTR*) {
  running->status_handle =
      RegisterServiceCtrlHandlerExW(running->name.c_str(), HandleControl, nullptr);
  if (running->status_handle == nullptr) return;
  running->started = true;
  Report(SERVICE_RUNNING);
  running->exit_code = running->run_agent();
  Report(SERVICE_STOPPED, static_cast<DWORD>(running->exit_code));
}

// Asks a running service to stop and waits (at most 30 s: the agent spools what is unanswered
// first) until it has. False when it could not be asked; a service already stopped is fine.
bool StopAndWait(SC_HANDLE service) {
  SERVICE_STATUS status = {};
  if (!ControlService(service, SERVICE_CONTROL_STOP, &status)) {
    return GetLastError() == ERROR_SERVICE_NOT_ACTIVE;
  }
  for (int waited_ms = 0; status.dwCurrentState != SERVICE_STOPPED && waited_ms < 30'000;
       waited_ms += 250) {
    Sleep(250);
    if (!QueryServiceStatus(service, &status)) break;
  }
  return true;
}

}  // namespace

Status InstallService(const ServiceInstallation& installation) {
  if (installation.config_file.empty()) {
    return Status::InvalidArgument("service install needs --config: a service takes no flags");
  }
  wchar_t executable[MAX_PATH + 1];
  DWORD length = GetModuleFileNameW(nullptr, executable, MAX_PATH + 1);
  if (length == 0 || length > MAX_PATH) return LastError("cannot find this executable's path");
  std::wstring command = Quoted(executable) + L" service run --name " +
                         Quoted(Wide(installation.name)) + L" --config " +
                         Quoted(std::filesystem::absolute(Wide(installation.config_file)));
  if (!installation.log_file.empty()) {
    command += L" --log-file " + Quoted(std::filesystem::absolute(Wide(installation.log_file)));
  }

  ScHandle manager(OpenSCManagerW(nullptr, nullptr, SC_MANAGER_CREATE_SERVICE));
  if (!manager) return LastError("cannot open the service control manager");
  std::wstring name = Wide(installation.name);
  ScHandle service(CreateServiceW(manager.get(), name.c_str(), L"perfhive agent",
                                  SERVICE_ALL_ACCESS, SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START,
                                  SERVICE_ERROR_NORMAL, command.c_str(), nullptr, nullptr, nullptr,
                                  nullptr, nullptr));
  if (!service) return LastError("cannot create service " + installation.name);
  std::wstring text =
      L"Reads this host's performance counters and streams them to perfhive-server.";
  SERVICE_DESCRIPTIONW description = {text.data()};
  ChangeServiceConfig2W(service.get(), SERVICE_CONFIG_DESCRIPTION, &description);
  return Status();
}

Result<std::vector<std::string>> SetServiceRecovery(const std::string& name) {
  ScHandle manager(OpenSCManagerW(nullptr, nullptr, SC_MANAGER_CONNECT));
  if (!manager) return LastError("cannot open the service control manager");
  // Restart actions need SERVICE_START besides SERVICE_CHANGE_CONFIG.
  ScHandle service(
      OpenServiceW(manager.get(), Wide(name).c_str(), SERVICE_CHANGE_CONFIG | SERVICE_START));
  if (!service) return LastError("cannot open service " + name);
  std::vector<std::string> refused;
  auto change = [&](DWORD level, void* info, const std::string& what) {
    if (!ChangeServiceConfig2W(service.get(), level, info)) {
      DWORD error = GetLastError();
      refused.push_back(what + ": " + std::to_string(error) + " (" +
                        std::system_category().message(error) + ")");
    }
  };
  SC_ACTION actions[] = {
      {SC_ACTION_RESTART, 10'000}, {SC_ACTION_RESTART, 30'000}, {SC_ACTION_RESTART, 60'000}};
  SERVICE_FAILURE_ACTIONSW failure = {};
  failure.dwResetPeriod = 24 * 60 * 60;
  failure.cActions = std::size(actions);
  failure.lpsaActions = actions;
  change(SERVICE_CONFIG_FAILURE_ACTIONS, &failure, "restart after a failure");
  SERVICE_FAILURE_ACTIONS_FLAG on_error_exit = {TRUE};
  change(SERVICE_CONFIG_FAILURE_ACTIONS_FLAG, &on_error_exit,
         "restart after a stop with an error code");
  SERVICE_DELAYED_AUTO_START_INFO delayed = {TRUE};
  change(SERVICE_CONFIG_DELAYED_AUTO_START_INFO, &delayed, "delayed automatic start");
  return refused;
}

Status UninstallService(const std::string& name) {
  ScHandle manager(OpenSCManagerW(nullptr, nullptr, SC_MANAGER_CONNECT));
  if (!manager) return LastError("cannot open the service control manager");
  ScHandle service(OpenServiceW(manager.get(), Wide(name).c_str(),
                                SERVICE_STOP | SERVICE_QUERY_STATUS | DELETE));
  if (!service) return LastError("cannot open service " + name);
  StopAndWait(service.get());
  if (!DeleteService(service.get())) return LastError("cannot delete service " + name);
  return Status();
}

Result<bool> RestartServiceIfRunning(const std::string& name) {
  ScHandle manager(OpenSCManagerW(nullptr, nullptr, SC_MANAGER_CONNECT));
  if (!manager) return LastError("cannot open the service control manager");
  ScHandle service(OpenServiceW(manager.get(), Wide(name).c_str(),
                                SERVICE_STOP | SERVICE_START | SERVICE_QUERY_STATUS));
  if (!service) return LastError("cannot open service " + name);
  SERVICE_STATUS status = {};
  if (!QueryServiceStatus(service.get(), &status)) {
    return LastError("cannot query service " + name);
  }
  if (status.dwCurrentState != SERVICE_RUNNING) return false;
  if (!StopAndWait(service.get())) return LastError("cannot stop service " + name);
  if (!StartServiceW(service.get(), 0, nullptr)) return LastError("cannot start service " + name);
  return true;
}

Result<int> RunAsService(const std::string& name, std::function<int()> run_agent) {
  RunningService service{.name = Wide(name), .run_agent = std::move(run_agent)};
  running = &service;
  SERVICE_TABLE_ENTRYW table[] = {{service.name.data(), ServiceMain}, {nullptr, nullptr}};
  bool dispatched = StartServiceCtrlDispatcherW(table);
  running = nullptr;
  if (!dispatched) {
    if (GetLastError() == ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) {
      return Status::InvalidArgument(
          "`service run` is started by the service control manager; to run the agent from a "
          "prompt use `perfhive-agent run`");
    }
    return LastError("cannot start the service dispatcher");
  }
  if (!service.started) return Status::Error("the service control manager did not start " + name);
  return service.exit_code;
}

}  // namespace perfhive
