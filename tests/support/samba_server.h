// SambaServer: a private Samba (smbd + samba-dcerpcd with rpcd_winreg) on 127.0.0.1 and a free
// port, serving HKEY_PERFORMANCE_DATA over MS-RRP from performance data the test writes. All
// its files (configuration, passdb, state, logs, a passwd/group pair that nss_wrapper gives
// the Samba processes in place of the system's) live in one temporary folder; nothing global
// is touched. The processes are stopped by PID. Samba must run as root (it switches to the
// logged-on user), so tests skip when not root or when Samba is not installed.
// ../shared/reference/samba-hkpd.md has the facts this relies on.

#ifndef PERFHIVE_TESTS_SUPPORT_SAMBA_SERVER_H_
#define PERFHIVE_TESTS_SUPPORT_SAMBA_SERVER_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace perfhive::testing {

struct SambaCounter {
  std::string name;
  uint32_t type;                       // a PERF_COUNTER_* type
  uint64_t value = 0;                  // for an object without instances
  std::vector<uint64_t> per_instance;  // one value per instance otherwise
};

struct SambaObject {
  std::string name;
  std::vector<std::string> instances;  // empty: an object without instances
  std::vector<SambaCounter> counters;
};

// What smbd serves, in Samba's perfcount TDB layout. Objects and counters get title indexes
// 2, 4, 6, ... in order (an object before its counters, as Samba needs).
struct SambaPerfData {
  uint64_t perf_time = 0;
  uint64_t perf_time_100ns = 0;
  uint64_t perf_freq = 10000000;
  std::vector<SambaObject> objects;
};

struct SambaServerOptions {
  std::string user = "perfhive";
  std::string password = "Pw-for-a-test-only-7";
  bool require_signing = false;
};

class SambaServer {
 public:
  // Why this machine cannot run one ("" when it can).
  static std::string Unavailable();

  explicit SambaServer(SambaServerOptions options = {});
  SambaServer(const SambaServer&) = delete;
  SambaServer& operator=(const SambaServer&) = delete;
  ~SambaServer();

  // Whether both processes came up and listen; the log says why not.
  bool ready() const { return ready_; }
  std::string log() const;

  uint16_t port() const { return port_; }
  std::string target() const { return "\\\\127.0.0.1:" + std::to_string(port_); }
  const SambaServerOptions& options() const { return options_; }
  const std::string& directory() const { return directory_; }

  // Writes names.tdb and data.tdb record by record (no transaction: rpcd_winreg may read
  // while they change). Samba re-reads them on every request.
  void Write(const SambaPerfData& data);

  // Sets a value in the server's registry (its own registry.tdb, read by rpcd_winreg), making
  // the key when needed, with Samba's `net registry`: `type` is "dword" or "sz". True when it
  // worked; the log says why not.
  bool SetRegistryValue(const std::string& key, const std::string& name, const std::string& type,
                        const std::string& value);

  // SIGSTOP / SIGCONT to every Samba process (the listeners and the children serving
  // connections), so that the server accepts nothing and answers nothing.
  void Pause();
  void Resume();
  // Stops both by PID and waits for them.
  void Stop();
  // Stops samba-dcerpcd and its winreg helper only: smbd still accepts sessions, but the
  // winreg pipe is gone, as on a Windows host whose Remote Registry service is stopped.
  void StopRegistryService();

 private:
  std::vector<pid_t> AllPids() const;
  // Stops one process with its descendants, by PID.
  static void StopTree(std::optional<ChildProcess>& process);

  SambaServerOptions options_;
  std::string directory_;
  uint16_t port_ = 0;
  std::optional<ChildProcess> dcerpcd_;
  std::optional<ChildProcess> smbd_;
  bool ready_ = false;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_SAMBA_SERVER_H_
