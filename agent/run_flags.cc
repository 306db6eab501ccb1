#include "agent/run_flags.h"

#include <chrono>
#include <optional>
#include <type_traits>
#include <variant>

#include "config/duration.h"
#include "config/settings_table.h"

namespace perfhive {
namespace {

// --help's words for a setting: what it does, its default, where the docs say more.
std::string FlagHelp(const AgentSetting& setting) {
  std::string help = SettingFlagHelp(setting.help, setting.default_text);
  if (!setting.doc.empty()) {
    help += " (docs/" + std::string(setting.doc.substr(0, setting.doc.find('#'))) + ")";
  }
  return help;
}

CLI::Option* AddFlag(CLI::App& command, const AgentSetting& setting, RunFlags& flags) {
  const std::string name(setting.flag);
  const std::string help = FlagHelp(setting);
  auto add = [&](auto field) -> CLI::Option* {
    using Field = std::remove_reference_t<decltype(flags.values.*field)>;
    if constexpr (std::is_same_v<Field, bool>) {
      return command.add_flag(name, flags.values.*field, help);
    } else if constexpr (std::is_same_v<Field, std::chrono::milliseconds> ||
                         std::is_same_v<Field, std::optional<std::chrono::milliseconds>>) {
      return command.add_option(name, flags.durations[setting.key], help);
    } else if constexpr (std::is_same_v<Field, uint64_t> || std::is_same_v<Field, int>) {
      return command.add_option(name, flags.values.*field, help)
          ->check(CLI::Range(int64_t{1}, setting.max));
    } else if constexpr (std::is_same_v<Field, std::string>) {
      CLI::Option* option = command.add_option(name, flags.values.*field, help);
      if (!setting.choices.empty()) {
        option->check(CLI::IsMember(
            std::vector<std::string>(setting.choices.begin(), setting.choices.end())));
      }
      return option;
    } else {
      return command.add_option(name, flags.lists[setting.key], help);
    }
  };
  CLI::Option* option = std::visit(add, setting.field);
  if (!setting.value_name.empty()) option->type_name(std::string(setting.value_name));
  return option;
}

// The value of one flag given, into `config`.
Status ApplyFlag(const AgentSetting& setting, const RunFlags& flags, AgentConfig& config) {
  const std::string flag(setting.flag);
  auto apply = [&](auto field) -> Status {
    using Field = std::remove_reference_t<decltype(config.*field)>;
    if constexpr (std::is_same_v<Field, std::chrono::milliseconds> ||
                  std::is_same_v<Field, std::optional<std::chrono::milliseconds>>) {
      Result<std::chrono::milliseconds> duration = ParseDuration(flags.durations.at(setting.key));
      if (!duration.ok()) return duration.status().Prefixed(flag + ": ");
      config.*field = *duration;
    } else if constexpr (std::is_same_v<Field, std::vector<QuerySchedule>>) {
      (config.*field).clear();
      for (const std::string& text : flags.lists.at(setting.key)) {
        Result<QuerySchedule> query = ParseQueryFlag(text);
        if (!query.ok()) return query.status().Prefixed(flag + ": ");
        (config.*field).push_back(std::move(query).value());
      }
    } else if constexpr (std::is_same_v<Field, std::vector<RemoteHostConfig>>) {
      (config.*field).clear();
      for (const std::string& text : flags.lists.at(setting.key)) {
        Result<RemoteHostConfig> target = ParseTargetFlag(text);
        if (!target.ok()) return target.status();
        // The account of --credentials, if given, is every --target host's.
        target->credentials_file = flags.values.credentials_file;
        (config.*field).push_back(std::move(target).value());
      }
    } else if constexpr (std::is_same_v<Field, query::HostLabels>) {
      Result<query::HostLabels> labels = ParseLabelFlags(flags.lists.at(setting.key));
      if (!labels.ok()) return labels.status().Prefixed(flag + ": ");
      config.*field = std::move(labels).value();
    } else {
      config.*field = flags.values.*field;
    }
    return Status();
  };
  if (Status status = std::visit(apply, setting.field); !status.ok()) return status;
  if (setting.given != nullptr) config.*setting.given = true;
  return Status();
}

bool Given(const RunFlags& flags, std::string_view key) {
  for (const auto& [option, setting] : flags.options) {
    if (setting->key == key) return option->count() > 0;
  }
  return false;
}

}  // namespace

void AddRunFlags(CLI::App& command, RunFlags& flags) {
  command.add_option("--config", flags.config_file, "TOML file with the settings (flags win)");
  for (const AgentSetting& setting : AgentSettings()) {
    flags.options.emplace_back(AddFlag(command, setting, flags), &setting);
  }
}

Result<AgentConfig> ResolveRunConfig(Env& env, const RunFlags& flags) {
  AgentConfig config;
  if (!flags.config_file.empty()) {
    if (Status status = LoadConfigFile(env, flags.config_file, config); !status.ok()) {
      return status;
    }
    config.config_file = flags.config_file;
  }
  for (const auto& [option, setting] : flags.options) {
    if (option->count() == 0) continue;
    if (Status status = ApplyFlag(*setting, flags, config); !status.ok()) return status;
  }
  if (Given(flags, "credentials") && !Given(flags, "target") && !config.poller) {
    return Status::InvalidArgument("--credentials is for --target or --poller");
  }
  // With one remote host, --host-name names it, as it names this host without --target.
  if (!config.targets.empty() && !config.host_name.empty()) {
    if (config.targets.size() > 1 || !config.targets.front().host_name.empty()) {
      return Status::InvalidArgument(
          "--host-name names one host; name each target with --target '\\\\HOST=NAME' or "
          "host_name in [[target]]");
    }
    config.targets.front().host_name = config.host_name;
  }
  return config;
}

}  // namespace perfhive
