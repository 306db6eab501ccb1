// What every reader of a TOML settings file shares (agent.toml, server.toml, tokens.toml, the
// CLI's config): parsing, and errors that name the file and the line of what is wrong, so that
// an administrator goes straight to it.

#ifndef PERFHIVE_CONFIG_TOML_SETTINGS_H_
#define PERFHIVE_CONFIG_TOML_SETTINGS_H_

#include <toml++/toml.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/status.h"
#include "port/env.h"

namespace perfhive {

// `text` as a TOML table; a syntax error is INVALID_ARGUMENT "ORIGIN:LINE:COLUMN: what is wrong".
Result<toml::table> ParseTomlSettings(std::string_view text, std::string_view origin);

// The file at `path`, parsed; a file that cannot be read is an error prefixed "config file: ".
Result<toml::table> ReadTomlSettings(Env& env, const std::string& path);

// "ORIGIN:LINE: ", the prefix of an error about `node`.
std::string TomlWhere(std::string_view origin, const toml::node& node);
// "ORIGIN:LINE:COLUMN: ", for a value among several on one line (an inline table's).
std::string TomlWhereExactly(std::string_view origin, const toml::node& node);

// `node` as a string, or INVALID_ARGUMENT "ORIGIN:LINE: KEY must be a string".
Result<std::string> TomlString(std::string_view origin, const toml::node& node,
                               std::string_view key);

// `node` as true or false, or INVALID_ARGUMENT "ORIGIN:LINE: KEY must be true or false".
Result<bool> TomlBool(std::string_view origin, const toml::node& node, std::string_view key);

// `node` as a list of strings, or INVALID_ARGUMENT "ORIGIN:LINE: KEY must be a list of strings".
Result<std::vector<std::string>> TomlStringList(std::string_view origin, const toml::node& node,
                                                std::string_view key);

// `node` as a table of strings (`labels = { role = "web" }`), each entry checked by `check`, or
// INVALID_ARGUMENT naming the file, line and column of the entry that is wrong.
Result<std::map<std::string, std::string>> TomlStringTable(
    std::string_view origin, const toml::node& node, std::string_view key,
    const std::function<Status(std::string_view key, std::string_view value)>& check);

// The field types every settings table reads alike: a string, a list of strings, a boolean.
template <typename Field>
inline constexpr bool kPlainTomlField =
    std::is_same_v<Field, std::string> || std::is_same_v<Field, std::vector<std::string>> ||
    std::is_same_v<Field, bool>;

// `node` into `out`, by `out`'s type (TomlString, TomlStringList or TomlBool); `out` is left as it
// is on an error.
template <typename Field>
requires kPlainTomlField<Field> Status TomlFieldInto(std::string_view origin,
                                                     const toml::node& node, std::string_view key,
                                                     Field& out) {
  Result<Field> read = Status::Error("not read");
  if constexpr (std::is_same_v<Field, std::string>) {
    read = TomlString(origin, node, key);
  } else if constexpr (std::is_same_v<Field, bool>) {
    read = TomlBool(origin, node, key);
  } else {
    read = TomlStringList(origin, node, key);
  }
  if (!read.ok()) return read.status();
  out = std::move(read).value();
  return Status();
}

// Hands each key of `root` with the setting `find` names for it to `load(setting, value)`, in
// the file's order; the first error ends the reading. A key `find` does not know is
// INVALID_ARGUMENT "ORIGIN:LINE: unknown setting \"KEY\"", so that a typo never silently leaves a
// default in force.
template <typename Setting, typename Load>
Status LoadTomlSettings(const toml::table& root, std::string_view origin,
                        const Setting* (*find)(std::string_view), Load&& load) {
  for (const auto& [key, value] : root) {
    const Setting* setting = find(key.str());
    if (setting == nullptr) {
      return Status::InvalidArgument(TomlWhere(origin, value) + "unknown setting \"" +
                                     std::string(key.str()) + "\"");
    }
    if (Status status = load(*setting, value); !status.ok()) return status;
  }
  return Status();
}

}  // namespace perfhive

#endif  // PERFHIVE_CONFIG_TOML_SETTINGS_H_
