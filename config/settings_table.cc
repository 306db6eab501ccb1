#include "config/settings_table.h"

namespace perfhive {
namespace {

// A cell's text: '|' would end it.
std::string Cell(std::string_view text) {
  std::string cell;
  for (char c : text) {
    if (c == '|') cell += '\\';
    cell += c;
  }
  return cell;
}

}  // namespace

std::string SettingFlagHelp(std::string_view help, std::string_view default_text) {
  std::string words(help);
  if (!default_text.empty()) words += " Default: " + std::string(default_text) + ".";
  return words;
}

std::string SettingsMarkdownTable(const std::vector<SettingsTableRow>& rows) {
  std::string table =
      "| flag | config key | default | meaning |\n"
      "|---|---|---|---|\n"
      "| `--config FILE` | | | TOML file with any of the keys below; flags given win over it |\n";
  for (const SettingsTableRow& row : rows) {
    table += "| `" + Cell(row.flag) + "`" + (row.repeatable ? " (repeatable)" : "") + " | `" +
             Cell(row.key) + "` | " + Cell(row.default_text) + " | " + Cell(row.meaning) + " |\n";
  }
  return table;
}

}  // namespace perfhive
