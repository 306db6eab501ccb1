#include "agent/agent_config.h"

#include <toml++/toml.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <type_traits>
#include <variant>

#ifdef _WIN32
// clang-format off
#include <windows.h>
#include <shlobj.h>
// clang-format on

#include <filesystem>
#endif

#include "agent/agent_settings.h"
#include "config/duration.h"
#include "config/toml_settings.h"
#include "perfdata/case_folding.h"
#include "query/label_text.h"

namespace perfhive {

using namespace std::chrono_literals;

namespace {

Result<std::chrono::milliseconds> DurationValue(std::string_view origin, const toml::node& node,
                                                std::string_view key) {
  Result<std::string> text = TomlString(origin, node, key);
  if (!text.ok()) return text.status();
  Result<std::chrono::milliseconds> duration = ParseDuration(*text);
  if (!duration.ok()) {
    return duration.status().Prefixed(TomlWhere(origin, node) + std::string(key) + ": ");
  }
  return duration;
}

Result<QuerySchedule> QueryValue(std::string_view origin, const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Status::InvalidArgument(TomlWhere(origin, node) + "each [[query]] must be a table");
  }
  QuerySchedule query;
  for (const auto& [key, value] : *table) {
    if (key == "name") {
      Result<std::string> name = TomlString(origin, value, "name");
      if (!name.ok()) return name.status();
      query.name = *name;
    } else if (key == "objects") {
      const toml::array* objects = value.as_array();
      if (objects == nullptr) {
        return Status::InvalidArgument(TomlWhere(origin, value) +
                                       "objects must be a list of names");
      }
      for (const toml::node& object : *objects) {
        Result<std::string> name = TomlString(origin, object, "objects");
        if (!name.ok()) return name.status();
        query.objects.push_back(*name);
      }
    } else if (key == "every") {
      Result<std::chrono::milliseconds> every = DurationValue(origin, value, "every");
      if (!every.ok()) return every.status();
      query.every = *every;
    } else {
      return Status::InvalidArgument(TomlWhere(origin, value) + "unknown key \"" +
                                     std::string(key.str()) +
                                     "\" in [[query]] (name, objects, every)");
    }
  }
  bool named = query.name == "Global" || query.name == "Costly";
  if (named == !query.objects.empty() || (!named && !query.name.empty())) {
    return Status::InvalidArgument(TomlWhere(origin, node) +
                                   "a [[query]] has either name = \"Global\" or \"Costly\", or "
                                   "objects = [\"Processor\", ...]");
  }
  return query;
}

Result<RemoteHostConfig> TargetValue(std::string_view origin, const toml::node& node) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Status::InvalidArgument(TomlWhere(origin, node) + "each [[target]] must be a table");
  }
  RemoteHostConfig target;
  const std::map<std::string_view, std::string*> strings = {
      {"address", &target.address},
      {"host_name", &target.host_name},
      {"credentials", &target.credentials_file},
  };
  for (const auto& [key, value] : *table) {
    if (auto field = strings.find(key.str()); field != strings.end()) {
      Result<std::string> text = TomlString(origin, value, key.str());
      if (!text.ok()) return text.status();
      *field->second = *text;
    } else if (key == "interval" || key == "call_timeout") {
      Result<std::chrono::milliseconds> duration = DurationValue(origin, value, key.str());
      if (!duration.ok()) return duration.status();
      (key == "interval" ? target.interval : target.call_timeout) = *duration;
    } else {
      return Status::InvalidArgument(
          TomlWhere(origin, value) + "unknown key \"" + std::string(key.str()) +
          "\" in [[target]] (address, host_name, credentials, interval, call_timeout)");
    }
  }
  if (target.address.empty()) {
    return Status::InvalidArgument(TomlWhere(origin, node) +
                                   "a [[target]] needs address = '\\\\HOST' or '\\\\HOST:PORT'");
  }
  if (Status status = CheckTargetName(target, TomlWhere(origin, node) + "[[target]]");
      !status.ok()) {
    return status;
  }
  return target;
}

Result<int64_t> PositiveInteger(std::string_view origin, const toml::node& node,
                                std::string_view key, int64_t max) {
  const auto* number = node.as_integer();
  if (number == nullptr || number->get() <= 0 || number->get() > max) {
    return Status::InvalidArgument(
        TomlWhere(origin, node) + std::string(key) + " must be a positive integer" +
        (max == INT64_MAX ? std::string() : " up to " + std::to_string(max)));
  }
  return number->get();
}

// An array of tables, [[key]], each read by `parse`; it replaces what `out` held.
template <typename T>
Status TableList(std::string_view origin, const toml::node& value, std::string_view key,
                 Result<T> (*parse)(std::string_view, const toml::node&), std::vector<T>& out) {
  const toml::array* tables = value.as_array();
  if (tables == nullptr) {
    return Status::InvalidArgument(TomlWhere(origin, value) + std::string(key) + " must be [[" +
                                   std::string(key) + "]] tables");
  }
  out.clear();
  for (const toml::node& node : *tables) {
    Result<T> parsed = parse(origin, node);
    if (!parsed.ok()) return parsed.status();
    out.push_back(std::move(parsed).value());
  }
  return Status();
}

// One setting's value from the file, into `config`, by the type of its field.
Status LoadSetting(std::string_view origin, const AgentSetting& setting, const toml::node& value,
                   AgentConfig& config) {
  const std::string_view key = setting.key;
  auto load = [&](auto field) -> Status {
    using Field = std::remove_reference_t<decltype(config.*field)>;
    if constexpr (kPlainTomlField<Field>) {
      return TomlFieldInto(origin, value, key, config.*field);
    } else if constexpr (std::is_same_v<Field, std::chrono::milliseconds> ||
                         std::is_same_v<Field, std::optional<std::chrono::milliseconds>>) {
      Result<std::chrono::milliseconds> duration = DurationValue(origin, value, key);
      if (!duration.ok()) return duration.status();
      config.*field = *duration;
    } else if constexpr (std::is_same_v<Field, uint64_t> || std::is_same_v<Field, int>) {
      Result<int64_t> number = PositiveInteger(origin, value, key, setting.max);
      if (!number.ok()) return number.status();
      config.*field = static_cast<Field>(*number);
    } else if constexpr (std::is_same_v<Field, std::vector<QuerySchedule>>) {
      return TableList(origin, value, key, QueryValue, config.*field);
    } else if constexpr (std::is_same_v<Field, std::vector<RemoteHostConfig>>) {
      return TableList(origin, value, key, TargetValue, config.*field);
    } else {
      static_assert(std::is_same_v<Field, query::HostLabels>);
      Result<query::HostLabels> labels = TomlStringTable(origin, value, key, query::CheckHostLabel);
      if (!labels.ok()) return labels.status();
      if (Status valid = query::CheckHostLabels(*labels); !valid.ok()) {
        return valid.Prefixed(TomlWhere(origin, value) + std::string(key) + ": ");
      }
      config.*field = std::move(labels).value();
    }
    return Status();
  };
  if (Status status = std::visit(load, setting.field); !status.ok()) return status;
  if (setting.given != nullptr) config.*setting.given = true;
  return Status();
}

// The settings of a parsed file (agent_settings.h lists them).
Status LoadTable(const toml::table& root, std::string_view origin, AgentConfig& config) {
  return LoadTomlSettings(root, origin, FindAgentSetting,
                          [&](const AgentSetting& setting, const toml::node& value) {
                            return LoadSetting(origin, setting, value, config);
                          });
}

}  // namespace

Status LoadConfigText(std::string_view text, std::string_view origin, AgentConfig& config) {
  Result<toml::table> root = ParseTomlSettings(text, origin);
  if (!root.ok()) return root.status();
  return LoadTable(*root, origin, config);
}

Status LoadConfigFile(Env& env, const std::string& path, AgentConfig& config) {
  Result<toml::table> root = ReadTomlSettings(env, path);
  if (!root.ok()) return root.status();
  return LoadTable(*root, path, config);
}

Result<query::HostLabels> ParseLabelFlags(const std::vector<std::string>& texts) {
  query::HostLabels labels;
  for (const std::string& text : texts) {
    Result<std::pair<std::string, std::string>> label = query::ParseHostLabel(text);
    if (!label.ok()) return label.status();
    if (!labels.insert(*label).second) {
      return Status::InvalidArgument("label " + label->first +
                                     " is given twice; give each key once");
    }
  }
  if (Status valid = query::CheckHostLabels(labels); !valid.ok()) return valid;
  return labels;
}

std::string AgentConfigDirectory() {
#ifdef _WIN32
  // The folder the MSI's CommonAppDataFolder names, asked for as the MSI asks: %ProgramData%
  // is another's to set (Wine's services see C:\users\Public there).
  std::string base = "C:\\ProgramData";
  wchar_t* folder = nullptr;
  if (SHGetKnownFolderPath(FOLDERID_ProgramData, 0, nullptr, &folder) == S_OK) {
    std::u8string utf8 = std::filesystem::path(folder).u8string();
    base.assign(utf8.begin(), utf8.end());
  }
  CoTaskMemFree(folder);
  return base + "\\perfhive";
#else
  return "/etc/perfhive";
#endif
}

std::string DefaultConfigFile() {
#ifdef _WIN32
  return AgentConfigDirectory() + "\\agent.toml";
#else
  return AgentConfigDirectory() + "/agent.toml";
#endif
}

std::string AgentStateDirectory() {
#ifdef _WIN32
  return AgentConfigDirectory() + "\\agent";
#else
  // systemd's StateDirectory= sets $STATE_DIRECTORY (several paths are separated by ':').
  if (const char* state = std::getenv("STATE_DIRECTORY"); state != nullptr && *state != '\0') {
    std::string dir = state;
    return dir.substr(0, dir.find(':'));
  }
  return "/var/lib/perfhive-agent";
#endif
}

std::string SpoolFolderName(std::string_view host_name) { return FoldCase(host_name); }

std::string DefaultSpoolDirectory() {
#ifdef _WIN32
  return AgentStateDirectory() + "\\spool";
#else
  return AgentStateDirectory() + "/spool";
#endif
}

}  // namespace perfhive
