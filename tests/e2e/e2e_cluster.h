// The pieces of an end-to-end test: a perfhive-server process on a loopback port with its data
// directory, agents as processes (procfs, or replay of builder-made Windows-like snapshots), and
// the perfhive CLI run as a user runs it. Everything is started here and stopped by PID.

#ifndef PERFHIVE_TESTS_E2E_E2E_CLUSTER_H_
#define PERFHIVE_TESTS_E2E_E2E_CLUSTER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/loopback_port.h"

namespace perfhive::testing {

// A directory removed with everything in it at the end.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name);
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A perfhive-server process. Restartable on the same port and data directory.
class ServerProcess {
 public:
  ServerProcess(const ScratchDir& scratch, std::vector<std::string> extra_flags = {"--insecure"});
  // Starts it and waits until it listens; false (with its log in the test output) if it does not.
  bool Start();
  void Kill(int signal);
  std::optional<int> Stop();  // SIGTERM, then wait
  const std::string& address() const { return address_; }
  const std::string& log_path() const { return log_; }
  ChildProcess* process() { return process_.get(); }

 private:
  std::string data_;
  std::string log_;
  std::string address_;
  std::vector<std::string> flags_;
  std::unique_ptr<ChildProcess> process_;
};

// A directory of builder-made snapshots of a Windows-like host for `perfhive-agent run --source
// replay`: `count` Global snapshots one second apart (2026-11-22T10:00:00Z + first_second + i)
// with Processor, Process and Memory, and a title database whose object names carry
// `title_suffix` so hosts can be told apart. Known values: Processor 0 is 25% busy, 1 is 50%;
// processes app (PID 1000, 10%), app#1 (PID 1001, 20%), svc (PID 1002, 30%); from snapshot
// `first_app_exits_at` on, PID 1000 is gone and PID 1001 becomes plain "app".
struct ReplayDir {
  std::string path;
  std::vector<std::vector<uint8_t>> snapshots;  // in file order
  std::vector<uint8_t> titles;
};
ReplayDir WriteReplayDir(const ScratchDir& scratch, const std::string& name, int count,
                         int first_second = 0, const std::string& title_suffix = "",
                         int first_app_exits_at = -1);

// A real recording of this host for `perfhive-agent run --source replay`: `count` Global
// snapshots of its /proc and /sys taken by the procfs source, `spacing` apart, and the title
// database they were taken with. File names continue from `first_file`.
ReplayDir RecordThisHost(const ScratchDir& scratch, const std::string& name, int count,
                         std::chrono::milliseconds spacing = std::chrono::milliseconds(20));

// A replay directory holding `snapshots` (as files 00000.perf, ...) and `titles`.
ReplayDir WriteReplayFiles(const ScratchDir& scratch, const std::string& name,
                           const std::vector<std::vector<uint8_t>>& snapshots,
                           const std::vector<uint8_t>& titles);

// `titles` (the bytes of "Counter 009") with one more name after the last: what a provider
// installed while the host ran adds.
std::vector<uint8_t> WithANewTitle(const std::vector<uint8_t>& titles, const std::string& name);

// The base URL (http://127.0.0.1:PORT) the server's log last said `what` ("console", "metrics")
// listens on; empty, with the failure recorded, when it said none.
std::string ListeningUrl(const ServerProcess& server, const std::string& what);

// `raw` with one counter value changed (the first instance's first counter of its first object
// that has instances): the same sample to the server (SystemTime, PerfTime), other bytes.
std::vector<uint8_t> WithOneValueChanged(std::vector<uint8_t> raw);

// A snapshot's SystemTime, in milliseconds since the Unix epoch.
int64_t WallClockMilliseconds(const std::vector<uint8_t>& raw);

// `raw` as its host would have written it had its wall clock stood `shift` off: SystemTime and
// PerfTime100nSec moved, PerfTime (the host's monotonic clock) as it was. What an NTP step or a
// resumed VM makes of a real sample.
std::vector<uint8_t> WithWallClockShifted(std::vector<uint8_t> raw,
                                          std::chrono::milliseconds shift);

// Runs `perfhive-server init --data DATA` with `names` (--name NAME, --address IP ...) and
// returns the CA fingerprint it printed ("sha256:" and 64 hex digits), or "" with the failure
// recorded.
std::string InitServerCa(const ScratchDir& scratch, const std::string& data,
                         const std::vector<std::string>& names);

// Runs a program to its end and returns its exit code and standard output.
struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
CommandResult RunCommand(const ScratchDir& scratch, std::vector<std::string> argv,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));

void WriteText(const std::string& path, const std::string& text);

// Writes a server's token file, scratch/tokens.toml, with two tokens: agents may write the hosts
// matching `agent_hosts` with `agent_secret`, and "cli" may read with `reader_secret`; and the
// clients' files scratch/agent.token and scratch/reader.token, each holding its secret alone.
void WriteAgentAndReaderTokens(const ScratchDir& scratch, const std::string& agent_secret,
                               const std::string& agent_hosts, const std::string& reader_secret);

// The stored snapshots of `host`, as `perfhive snapshots --format json` lists them, oldest
// first; `extra` replaces --insecure (e.g. TLS and token flags).
nlohmann::json StoredSnapshots(const ScratchDir& scratch, const ServerProcess& server,
                               const std::string& host, std::vector<std::string> extra = {});
// The names of the hosts the server knows, as `perfhive hosts --format json` lists them.
std::vector<std::string> HostNames(const ScratchDir& scratch, const ServerProcess& server);
// `perfhive hosts --format json`'s entry for `host`, null while the server does not list it;
// `cli_flags` reach the server (TLS and a token).
nlohmann::json HostEntry(const ScratchDir& scratch, const ServerProcess& server,
                         const std::string& host, const std::vector<std::string>& cli_flags);
// Asks `done` every 200 ms until it holds or `limit` has passed; its last answer.
bool WaitUntil(const std::function<bool()>& done,
               std::chrono::milliseconds limit = std::chrono::seconds(30));
// Every file of `dir` is stored for `host` exactly once, in order, with its exact bytes, and
// nothing else is.
void ExpectStoredExactlyOnce(const ScratchDir& scratch, const ServerProcess& server,
                             const std::string& host, const ReplayDir& dir);

// A CA (ca.pem), a server certificate for 127.0.0.1 (server.pem, server.key) and a client
// certificate (client.pem, client.key) in `scratch`, made with openssl; false (and a test
// failure) if openssl fails.
bool MakeCertificates(const ScratchDir& scratch);

// The paths of the programs under test: this build's (compile definitions from CMake), or
// another build's where PERFHIVE_E2E_SERVER, PERFHIVE_E2E_AGENT or PERFHIVE_E2E_CLI name one,
// so the suite can be run against an older release to show what a regression test pins.
std::string ServerBinary();
std::string AgentBinary();
std::string CliBinary();

// Lower-case hex SHA-256 of bytes.
std::string Sha256Hex(const std::vector<uint8_t>& bytes);

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_E2E_E2E_CLUSTER_H_
