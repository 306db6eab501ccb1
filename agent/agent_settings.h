// The settings of `perfhive-agent run`, each described once: its key in agent.toml, its flag,
// what its value looks like, its default and what it does. The flags of `run` and `drain`
// (run_flags.h), the loading of agent.toml (agent_config.h) and the settings table of
// docs/agent.md, which `perfhive-agent settings` prints, are all made from this one table, so
// that they cannot disagree about a setting's name, type or default.

#ifndef PERFHIVE_AGENT_AGENT_SETTINGS_H_
#define PERFHIVE_AGENT_AGENT_SETTINGS_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "agent/agent_config.h"

namespace perfhive {

// Where a setting's value goes in AgentConfig; its type says how the value is written:
// - text: a string (the flag's value, a TOML string);
// - bool: a switch (a flag without a value, true or false in TOML);
// - milliseconds, optional milliseconds: a duration, "10s", "1m30s" (config/duration.h);
// - uint64_t, int: a positive integer (up to AgentSetting::max);
// - queries, targets: a repeatable flag, [[query]] or [[target]] tables in TOML;
// - labels: a repeatable KEY=VALUE flag, a table of strings in TOML.
using AgentSettingField =
    std::variant<std::string AgentConfig::*, bool AgentConfig::*,
                 std::chrono::milliseconds AgentConfig::*,
                 std::optional<std::chrono::milliseconds> AgentConfig::*, uint64_t AgentConfig::*,
                 int AgentConfig::*, std::vector<QuerySchedule> AgentConfig::*,
                 std::vector<RemoteHostConfig> AgentConfig::*, query::HostLabels AgentConfig::*>;

struct AgentSetting {
  std::string_view key = {};           // in agent.toml
  std::string_view flag = {};          // of `run` and `drain`: "--server"
  std::string_view value_name = {};    // what the value looks like, "HOST:PORT"; empty: a switch
  std::string_view default_text = {};  // the default in words; empty: none
  std::string_view help = {};          // what it does, one sentence or two
  std::string_view doc = {};           // the page of docs/ that says more, or empty
  AgentSettingField field = {};
  // Set when the setting is given rather than left at its default: a central plan that sets it
  // otherwise is then reported as overriding it (docs/policies.md).
  bool AgentConfig::*given = nullptr;
  std::span<const std::string_view> choices = {};  // a text's only values, or empty: any
  int64_t max = INT64_MAX;                         // an integer's largest value
};

// Every setting, in the order --help and the docs list them.
std::span<const AgentSetting> AgentSettings();

// The setting with that key in agent.toml, or nullptr.
const AgentSetting* FindAgentSetting(std::string_view key);

// The settings as the Markdown table of docs/agent.md: flag, key, default, meaning.
std::string AgentSettingsMarkdown();

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_AGENT_SETTINGS_H_
