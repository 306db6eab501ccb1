#include "server/app/server_config.h"

#include <toml++/toml.h>

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <type_traits>
#include <variant>

#include "config/settings_table.h"
#include "config/toml_settings.h"
#include "server/app/server_settings.h"
#include "server/enrollment/server_pki.h"

namespace perfhive {
namespace {

// Sizes, as the flags and the file write them: "64MiB", "50GB" (KB, MB, GB are powers of 1024
// too) or a number of bytes.
CLI::Validator SizeSyntax() { return CLI::AsSizeValue(false); }

// A non-negative integer, or a string in `syntax` (a size, an age) that comes to one.
Result<int64_t> QuantityValue(std::string_view origin, const toml::node& node, std::string_view key,
                              const CLI::Validator& syntax, std::string_view example) {
  std::string error =
      std::string(key) + " must be a number or a string such as \"" + std::string(example) + "\"";
  if (const auto* number = node.as_integer()) {
    if (number->get() < 0) return Status::InvalidArgument(TomlWhere(origin, node) + error);
    return number->get();
  }
  const auto* text = node.as_string();
  if (text == nullptr) return Status::InvalidArgument(TomlWhere(origin, node) + error);
  std::string converted = text->get();
  // CLI11's transform rewrites the text as the number it stands for, or refuses it (with a
  // message or an exception).
  bool refused = false;
  try {
    refused = !syntax(converted).empty();
  } catch (const CLI::Error&) {
    refused = true;
  }
  int64_t value = 0;
  if (refused) {
    return Status::InvalidArgument(TomlWhere(origin, node) + error + ", not \"" + text->get() +
                                   "\"");
  }
  auto [end, status] =
      std::from_chars(converted.data(), converted.data() + converted.size(), value);
  if (status != std::errc() || end != converted.data() + converted.size() || value < 0) {
    return Status::InvalidArgument(TomlWhere(origin, node) + error + ", not \"" + text->get() +
                                   "\"");
  }
  return value;
}

// A size's or an age's validator, as the flags and the file take it.
CLI::Validator QuantityValidator(QuantitySyntax syntax) {
  return syntax == QuantitySyntax::kAge ? AgeSyntax() : SizeSyntax();
}

// What a quantity out of its setting's range is told: "must be above 0", "must be from 10s to
// 315360000s".
std::string RangeError(const ServerSetting& setting) {
  const std::string key(setting.key);
  const std::string unit = setting.syntax == QuantitySyntax::kAge ? "s" : "";
  if (setting.max == INT64_MAX) {
    if (setting.min == 1) return key + " must be above 0";
    return key + " must be at least " + std::to_string(setting.min) + unit;
  }
  return key + " must be from " + std::to_string(setting.min) + unit + " to " +
         std::to_string(setting.max) + unit;
}

// One setting's value from the file, into `config`, by the type of its field.
Status LoadSetting(std::string_view origin, const ServerSetting& setting, const toml::node& value,
                   ServerConfig& config) {
  const std::string_view key = setting.key;
  auto load = [&](auto field) -> Status {
    using Field = std::remove_reference_t<decltype(config.*field)>;
    if constexpr (kPlainTomlField<Field>) {
      return TomlFieldInto(origin, value, key, config.*field);
    } else if constexpr (std::is_same_v<Field, double>) {
      std::optional<double> number = value.is_boolean() ? std::nullopt : value.value<double>();
      if (!number || !(*number > 0)) {
        return Status::InvalidArgument(TomlWhere(origin, value) + std::string(key) +
                                       " must be a number above 0");
      }
      config.*field = *number;
    } else {
      static_assert(std::is_same_v<Field, uint64_t> || std::is_same_v<Field, int64_t>);
      Result<int64_t> quantity =
          QuantityValue(origin, value, key, QuantityValidator(setting.syntax),
                        setting.syntax == QuantitySyntax::kAge ? "30d" : "64MiB");
      if (!quantity.ok()) return quantity.status();
      if (*quantity < setting.min || *quantity > setting.max) {
        return Status::InvalidArgument(TomlWhere(origin, value) + RangeError(setting));
      }
      config.*field = static_cast<Field>(*quantity);
    }
    return Status();
  };
  return std::visit(load, setting.field);
}

// The settings of a parsed file (server_settings.h lists them).
Status LoadTable(const toml::table& root, std::string_view origin, ServerConfig& config) {
  return LoadTomlSettings(root, origin, FindServerSetting,
                          [&](const ServerSetting& setting, const toml::node& value) {
                            return LoadSetting(origin, setting, value, config);
                          });
}

}  // namespace

CLI::Validator AgeSyntax() {
  return CLI::AsNumberWithUnit(
      std::map<std::string, int64_t>{{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}},
      CLI::AsNumberWithUnit::CASE_SENSITIVE);
}

Status LoadServerConfigText(std::string_view text, std::string_view origin, ServerConfig& config) {
  Result<toml::table> root = ParseTomlSettings(text, origin);
  if (!root.ok()) return root.status();
  return LoadTable(*root, origin, config);
}

Status LoadServerConfigFile(Env& env, const std::string& path, ServerConfig& config) {
  Result<toml::table> root = ReadTomlSettings(env, path);
  if (!root.ok()) return root.status();
  return LoadTable(*root, path, config);
}

ServerFlags::ServerFlags(CLI::App& app) {
  app.add_option("--config", config_file_,
                 "TOML file with any of the settings below, each named as its flag without the "
                 "dashes and with '_' for '-' (tls_cert = \"...\"); flags given win over it");
  const ServerConfig defaults;
  for (const ServerSetting& setting : ServerSettings()) {
    const std::string flag = ServerSettingFlag(setting);
    const std::string help = SettingFlagHelp(setting.help, setting.default_text);
    auto add = [&](auto field) -> CLI::Option* {
      using Field = std::remove_reference_t<decltype(values_.*field)>;
      if constexpr (std::is_same_v<Field, bool>) {
        // One that is on by default is turned off by --no-KEY.
        std::string names = defaults.*field ? flag + ",!--no-" + flag.substr(2) : flag;
        return app.add_flag(names, values_.*field, help);
      } else if constexpr (std::is_same_v<Field, double>) {
        return app.add_option(flag, values_.*field, help)->check(CLI::PositiveNumber);
      } else if constexpr (std::is_same_v<Field, uint64_t> || std::is_same_v<Field, int64_t>) {
        CLI::Option* option = app.add_option(flag, values_.*field, help)
                                  ->transform(QuantityValidator(setting.syntax));
        if (setting.min > 0 || setting.max < INT64_MAX) {
          option->check(CLI::Range(setting.min, setting.max).description(""));
        }
        return option;
      } else {
        return app.add_option(flag, values_.*field, help);
      }
    };
    CLI::Option* option = std::visit(add, setting.field);
    if (!setting.value_name.empty()) option->type_name(std::string(setting.value_name));
    given_.emplace_back(option, &setting);
  }
}

Result<ServerConfig> ServerFlags::Resolve(Env& env) const {
  ServerConfig config;
  if (!config_file_.empty()) {
    if (Status status = LoadServerConfigFile(env, config_file_, config); !status.ok()) {
      return status;
    }
  }
  for (const auto& [option, setting] : given_) {
    if (option->count() == 0) continue;
    std::visit([&](auto field) { config.*field = values_.*field; }, setting->field);
  }
  if (config.data.empty()) {
    return Status::InvalidArgument("give --data DIR, or data = \"DIR\" in the --config file");
  }
  // What `perfhive-server init` made, unless told otherwise.
  if (!config.insecure && config.tls_cert.empty() && config.tls_key.empty()) {
    ServerPkiPaths pki = PkiPaths(config.data);
    if (env.FileSize(pki.certificate).ok() && env.FileSize(pki.key).ok()) {
      config.tls_cert = pki.certificate;
      config.tls_key = pki.key;
    }
  }
  return config;
}

}  // namespace perfhive
