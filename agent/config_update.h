// ConfigUpdate: settings to change in an agent's config file (agent.toml) while every other
// setting in it stays: what `perfhive-agent configure`, and through it the MSI, applies. The
// file is the agent's one place for settings, so an installer that runs again changes the keys
// it is given and nothing else.

#ifndef PERFHIVE_AGENT_CONFIG_UPDATE_H_
#define PERFHIVE_AGENT_CONFIG_UPDATE_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_config.h"
#include "base/status.h"

namespace perfhive {

// Each set member replaces its key; unset members leave theirs as they are.
struct ConfigUpdate {
  std::optional<std::string> server;
  std::optional<std::string> ca_file;       // key `ca`; empty: the key removed
  std::optional<std::string> ca_sha256;     // key `ca_sha256`; empty: the key removed
  std::optional<std::string> enroll_token;  // key `enroll`; empty: the key removed
  std::optional<std::string> enroll_file;   // key `enroll_file`; empty: the key removed
  std::optional<std::string> token_file;    // key `token_file`
  std::optional<std::string> host_name;
  std::optional<std::string> source;
  std::optional<std::string> replay_dir;  // key `replay`
  std::optional<bool> insecure;
  std::optional<std::chrono::milliseconds> interval;
  std::optional<std::vector<QuerySchedule>> queries;     // replaces every [[query]]
  std::optional<std::vector<RemoteHostConfig>> targets;  // replaces every [[target]]
  std::optional<query::HostLabels> labels;               // replaces the `labels` table
};

// `text`, a config file's content (empty for a file yet to be made), with `update` applied, as
// the text of the new file. Keys the update does not name, known to this agent or not, keep their
// values; the file is written again from its settings, in key order, so comments are not kept
// (a comment at its top says so). Fails, naming `origin` and the line, when `text` is not TOML.
Result<std::string> ApplyConfigUpdate(std::string_view text, std::string_view origin,
                                      const ConfigUpdate& update);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_CONFIG_UPDATE_H_
