// `perfhive-agent configure`: turns settings given once (by the MSI from its properties, or by a
// person) into the files the agent reads: agent.toml, merged so that only the settings given
// change, the token in a file only the system and administrators may read, and a copy of the
// server's CA. docs/agent.md has the options and what each becomes.

#ifndef PERFHIVE_AGENT_CONFIGURE_COMMAND_H_
#define PERFHIVE_AGENT_CONFIGURE_COMMAND_H_

#include <string>
#include <vector>

#include "base/status.h"
#include "port/env.h"

namespace perfhive {

// The settings as given, as text. An empty value leaves its setting as it is: the MSI passes
// every property whether the administrator gave it or not.
struct ConfigureOptions {
  std::string file;          // the config file to update (created, with its folder, when missing)
  std::string server;        // HOST:PORT
  std::string token;         // written to the token file, never to agent.toml or a log
  std::string ca_file;       // copied to ca.pem beside the config file, which `ca` then names
  std::string ca_sha256;     // the CA's fingerprint, instead of ca_file
  std::string enroll_token;  // written to enroll.token beside the config file, a secret
  std::string host_name;     // the name snapshots are filed under
  std::string queries;       // "Global@10s;Costly@5m": replaces every [[query]]
  std::string interval;      // "10s"
  std::string targets;       // "\\web01;\\10.0.0.7=DB01": replaces every [[target]]
  std::string labels;        // "role=web;site=ams": replaces the `labels` table
  std::string insecure;      // "1" or "true", "0" or "false"
  std::string source;        // procfs, hkpd, replay
  std::string replay_dir;
};

// What Configure did, for its log line.
struct ConfigureOutcome {
  bool changed = false;              // any file now holds other bytes than before
  std::vector<std::string> changes;  // "server", "token" ...: the settings given
};

// Checks every option and the config file that results (it must be one the agent reads, name a
// server, and send plain text only to a server on this host) before writing anything; then
// writes the token, with token_file naming it (the file token_file already named, else
// agent.token beside the config file), the CA copy, and the config file, each atomically.
// Given no setting, checks the file and leaves it as it is. Fails with INVALID_ARGUMENT, saying
// which setting and why, and writes nothing, when a check fails.
Result<ConfigureOutcome> Configure(Env& env, const ConfigureOptions& options);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_CONFIGURE_COMMAND_H_
