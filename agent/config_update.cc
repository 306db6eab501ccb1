#include "agent/config_update.h"

#include <toml++/toml.h>

#include <sstream>

#include "config/duration.h"
#include "config/toml_settings.h"

namespace perfhive {
namespace {

constexpr char kHeader[] =
    "# perfhive-agent settings (docs/agent.md). `perfhive-agent configure`, which the MSI runs,\n"
    "# writes this file again: the keys it is given change and every other key stays, but\n"
    "# comments do not.\n\n";

toml::table QueryTable(const QuerySchedule& query) {
  toml::table table;
  if (!query.name.empty()) {
    table.insert("name", query.name);
  } else {
    toml::array objects;
    for (const std::string& object : query.objects) objects.push_back(object);
    table.insert("objects", std::move(objects));
  }
  if (query.every) table.insert("every", FormatDuration(*query.every));
  return table;
}

toml::table TargetTable(const RemoteHostConfig& target) {
  toml::table table;
  table.insert("address", target.address);
  if (!target.host_name.empty()) table.insert("host_name", target.host_name);
  if (!target.credentials_file.empty()) table.insert("credentials", target.credentials_file);
  if (target.interval) table.insert("interval", FormatDuration(*target.interval));
  if (target.call_timeout) table.insert("call_timeout", FormatDuration(*target.call_timeout));
  return table;
}

// [[key]] tables, one per item.
template <typename T>
toml::array Tables(const std::vector<T>& items, toml::table (*table)(const T&)) {
  toml::array tables;
  for (const T& item : items) tables.push_back(table(item));
  return tables;
}

void Set(toml::table& root, std::string_view key, const std::optional<std::string>& value) {
  if (value) root.insert_or_assign(key, *value);
}

// For keys an update may remove: the server's CA, given one way (a file or a fingerprint, each
// removing the other), and an enrollment token once spent.
void SetOrRemove(toml::table& root, std::string_view key, const std::optional<std::string>& value) {
  if (!value) return;
  if (value->empty()) {
    root.erase(key);
  } else {
    root.insert_or_assign(key, *value);
  }
}

}  // namespace

Result<std::string> ApplyConfigUpdate(std::string_view text, std::string_view origin,
                                      const ConfigUpdate& update) {
  Result<toml::table> parsed = ParseTomlSettings(text, origin);
  if (!parsed.ok()) return parsed.status();
  toml::table& root = *parsed;
  Set(root, "server", update.server);
  SetOrRemove(root, "ca", update.ca_file);
  SetOrRemove(root, "ca_sha256", update.ca_sha256);
  SetOrRemove(root, "enroll", update.enroll_token);
  SetOrRemove(root, "enroll_file", update.enroll_file);
  Set(root, "token_file", update.token_file);
  Set(root, "host_name", update.host_name);
  Set(root, "source", update.source);
  Set(root, "replay", update.replay_dir);
  if (update.insecure) root.insert_or_assign("insecure", *update.insecure);
  if (update.interval) root.insert_or_assign("interval", FormatDuration(*update.interval));
  if (update.queries) root.insert_or_assign("query", Tables(*update.queries, QueryTable));
  if (update.targets) root.insert_or_assign("target", Tables(*update.targets, TargetTable));
  if (update.labels) {
    toml::table labels;
    for (const auto& [key, value] : *update.labels) labels.insert(key, value);
    labels.is_inline(true);  // labels = { role = "web" }: one line, as people write it
    root.insert_or_assign("labels", std::move(labels));
  }
  // Tables flush left: [[query]] tables read as lists of settings, not as nested code.
  std::ostringstream out;
  out << kHeader
      << toml::toml_formatter(
             root, toml::toml_formatter::default_flags & ~toml::format_flags::indentation)
      << "\n";
  return out.str();
}

}  // namespace perfhive
