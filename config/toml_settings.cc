#include "config/toml_settings.h"

#include <cstdint>
#include <vector>

namespace perfhive {

Result<toml::table> ParseTomlSettings(std::string_view text, std::string_view origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    return Status::InvalidArgument(
        std::string(origin) + ":" + std::to_string(error.source().begin.line) + ":" +
        std::to_string(error.source().begin.column) + ": " + std::string(error.description()));
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

std::string TomlWhereExactly(std::string_view origin, const toml::node& node) {
  return std::string(origin) + ":" + std::to_string(node.source().begin.line) + ":" +
         std::to_string(node.source().begin.column) + ": ";
}

Result<std::string> TomlString(std::string_view origin, const toml::node& node,
                               std::string_view key) {
  if (const auto* value = node.as_string()) return value->get();
  return Status::InvalidArgument(TomlWhere(origin, node) + std::string(key) + " must be a string");
}

Result<bool> TomlBool(std::string_view origin, const toml::node& node, std::string_view key) {
  if (const auto* value = node.as_boolean()) return value->get();
  return Status::InvalidArgument(TomlWhere(origin, node) + std::string(key) +
                                 " must be true or false");
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

Result<std::map<std::string, std::string>> TomlStringTable(
    std::string_view origin, const toml::node& node, std::string_view key,
    const std::function<Status(std::string_view key, std::string_view value)>& check) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Status::InvalidArgument(TomlWhere(origin, node) + std::string(key) +
                                   " must be a table of strings, e.g. { role = \"web\" }");
  }
  std::map<std::string, std::string> entries;
  for (const auto& [name, value] : *table) {
    const auto* text = value.as_string();
    if (text == nullptr) {
      return Status::InvalidArgument(TomlWhereExactly(origin, value) + std::string(key) + "." +
                                     std::string(name.str()) +
                                     " must be a string (quote a key that holds a '.')");
    }
    if (Status valid = check(name.str(), text->get()); !valid.ok()) {
      return valid.Prefixed(TomlWhereExactly(origin, value) + std::string(key) + ": ");
    }
    entries.emplace(name.str(), text->get());
  }
  return entries;
}

}  // namespace perfhive
