// AgentConfig: everything `perfhive-agent run` is told, from its config file (TOML) and its
// flags; flags win. agent_settings.h describes every setting.

#ifndef PERFHIVE_AGENT_AGENT_CONFIG_H_
#define PERFHIVE_AGENT_AGENT_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/query_schedule.h"
#include "config/remote_target.h"
#include "port/env.h"
#include "query/host_selector.h"

namespace perfhive {

struct AgentConfig {
  std::string server;  // HOST:PORT
  std::string ca_file;
  std::string ca_sha256;     // the server's CA by fingerprint (pki/fingerprint.h), not by file
  std::string enroll_token;  // key `enroll`: exchanged once for a client certificate
  std::string enroll_file;   // key `enroll_file`: a file holding it (what `configure` writes)
  std::string config_file;   // where the settings came from (not a key): enrolling edits it
  std::string cert_file;
  std::string key_file;
  bool insecure = false;
  std::string token_file;
  std::string host_name;  // empty: the source's own
  // A poller's own name (--target, --poller): the host its enrolled certificate names, which
  // may write as every target. Empty: this machine's name.
  std::string poller_name;
  // Key `poller`, --poller: poll the hosts the central plan of `poller_name` names (its
  // `targets`, docs/policies.md), following its changes without a restart; the agent keeps a
  // stream of its own as the poller to hear them. Its own [[target]] tables hold while no plan
  // names targets, and lend their settings to planned targets of the same name.
  bool poller = false;
  // Key `credentials`, --credentials: for targets without their own (those of a plan).
  std::string credentials_file;
  std::string source;  // procfs, hkpd, replay; empty: this platform's own
  std::string replay_dir;
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::chrono::milliseconds interval{10000};
  std::vector<QuerySchedule> queries;  // empty: Global every `interval`
  std::string spool_dir;               // empty: DefaultSpoolDirectory()
  uint64_t spool_max_bytes = 1ull << 30;
  // Given by a flag or the config file rather than left at the default: a central plan that
  // sets them otherwise is reported as overriding them (docs/policies.md).
  bool interval_given = false;
  bool spool_max_bytes_given = false;
  std::optional<std::chrono::milliseconds> timeout;
  // Hosts polled remotely instead of this host's own source; each has its own stream.
  std::vector<RemoteHostConfig> targets;
  // Remote snapshots taken at the same time, at most (the size of the worker pool).
  int max_concurrent_polls = 8;
  // Key `labels`, --label: this host's labels (role=web), checked (query/label_text.h); sent in
  // its Hello, where a policy's labels win key by key. Polled hosts take only their policy's.
  query::HostLabels labels;
};

// Overlays the settings of a TOML file onto `config`: the keys agent_settings.h lists, each as its
// type is written. Unknown keys are errors, so a typo does not silently leave a default in force.
Status LoadConfigFile(Env& env, const std::string& path, AgentConfig& config);
// The same, from the text of a file (`origin` names it in errors).
Status LoadConfigText(std::string_view text, std::string_view origin, AgentConfig& config);

// Labels as --label flags (or the MSI's LABELS, split at ';') write them, "role=web" each, checked
// one by one and together; a key given twice is an error naming it.
Result<query::HostLabels> ParseLabelFlags(const std::vector<std::string>& texts);

// Where the agent's settings live unless told: %ProgramData%\perfhive on Windows (agent.toml, the
// token, the CA, the service's log), /etc/perfhive on Linux; DefaultConfigFile is agent.toml in
// it, which the MSI writes and the service reads.
std::string AgentConfigDirectory();
std::string DefaultConfigFile();

// Where the agent keeps its state unless told: %ProgramData%\perfhive\agent on Windows;
// systemd's $STATE_DIRECTORY, else /var/lib/perfhive-agent, on Linux. Spools live in its "spool"
// folder, one folder per host (SpoolFolderName).
std::string AgentStateDirectory();
std::string DefaultSpoolDirectory();
// The folder of a host's spool under a spool root: its name folded as the server folds host
// names, so that WEB01 and web01 (one host to the server) share one folder and its lock.
// `host_name` must pass CheckHostName (perfdata/host_name.h), which keeps it a safe folder name.
std::string SpoolFolderName(std::string_view host_name);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_AGENT_CONFIG_H_
