// The Markdown table a program's settings are documented in (docs/agent.md, docs/server.md),
// one row per setting, made by the program from its own description of its settings
// (agent/agent_settings.h, server/app/server_settings.h) so that the page cannot drift from it.

#ifndef PERFHIVE_CONFIG_SETTINGS_TABLE_H_
#define PERFHIVE_CONFIG_SETTINGS_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

namespace perfhive {

struct SettingsTableRow {
  std::string flag;         // with what its value looks like: "--server HOST:PORT"
  bool repeatable = false;  // given once per value
  std::string key;          // as the config file writes it: "server", "[[query]]"
  std::string_view default_text;
  std::string meaning;
};

// A setting's words in --help: what it does, then "Default: X." when it has one.
std::string SettingFlagHelp(std::string_view help, std::string_view default_text);

// The table, headed by the --config row every program has; '|' in a cell is escaped.
std::string SettingsMarkdownTable(const std::vector<SettingsTableRow>& rows);

}  // namespace perfhive

#endif  // PERFHIVE_CONFIG_SETTINGS_TABLE_H_
