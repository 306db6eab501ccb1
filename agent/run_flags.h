// The flags of `perfhive-agent run` and `drain`, one per setting of agent_settings.h, and the
// settings they come to: the config file's, with the flags given on top.

#ifndef PERFHIVE_AGENT_RUN_FLAGS_H_
#define PERFHIVE_AGENT_RUN_FLAGS_H_

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/agent_config.h"
#include "agent/agent_settings.h"
#include "base/status.h"
#include "port/env.h"

namespace perfhive {

// What the flags hold once parsed, kept apart from the config file's settings so that flags given
// win over the file and flags not given leave it alone.
struct RunFlags {
  std::string config_file;
  AgentConfig values;                                          // the plain values given
  std::map<std::string_view, std::string> durations;           // by key, as written
  std::map<std::string_view, std::vector<std::string>> lists;  // repeatable flags, by key
  std::vector<std::pair<CLI::Option*, const AgentSetting*>> options;
};

// Adds --config and a flag for every setting to `command`, writing into `flags`.
void AddRunFlags(CLI::App& command, RunFlags& flags);

// The config file's settings (when --config was given) with the flags given on top, checked.
Result<AgentConfig> ResolveRunConfig(Env& env, const RunFlags& flags);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_RUN_FLAGS_H_
