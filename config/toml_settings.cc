#include "config/toml_settings.h"

#include <cstdint>
#include <vector>

namespace perfhive {

Result<toml::table> ParseTomlSettings(std::string_view text, std::string_view origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return Status::InvalidArgument(std::string(origin) + ":" +
                                   std::to_string(error.source().begin.line) + ": " +
                                   std::string(error.description()));
  }
}

Result<toml::table> ReadTomlSettings(Env& env, const std::string& path) {
  Result<std::vector<uint8_t>> bytes = env.ReadFile(path);
  if (!bytes.ok()) return bytes.status().Prefixed("config file: ");
  std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return ParseTomlSettings(text, path);
}

std::string TomlWhere(std::string_view origin, const toml::node& node) {
  return std::string(origin) + ":" + std::to_string(node.source().begin.line) + ": ";
}

Result<std::string> TomlString(std::string_view origin, const toml::node& node,
                               std::string_view key) {
  if (const auto* value = node.as_string()) return value->get();
  return Status::InvalidArgument(TomlWhere(origin, node) + std::string(key) + " must be a string");
}

Result<std::vector<std::string>> TomlStringList(std::string_view origin, const toml::node& node,
                                                std::string_view key) {
  const toml::array* items = node.as_array();
  if (items == nullptr) {
    return Status::InvalidArgument(TomlWhere(origin, node) + std::string(key) +
                                   " must be a list of strings");
  }
  std::vector<std::string> list;
  for (const toml::node& item : *items) {
    Result<std::string> text = TomlString(origin, item, key);
    if (!text.ok()) return text.status();
    list.push_back(std::move(text).value());
  }
  return list;
}

}  // namespace perfhive
