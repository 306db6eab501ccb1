// The settings of perfhive-server, each described once: its key in the config file (the flag is
// the key with "--" in front and '-' for '_'), what its value looks like, its default, its
// limits and what it does. The flags (ServerFlags), the loading of server.toml
// (LoadServerConfigFile) and the settings table of docs/server.md, which `perfhive-server
// settings` prints, are all made from this one table.

#ifndef PERFHIVE_SERVER_APP_SERVER_SETTINGS_H_
#define PERFHIVE_SERVER_APP_SERVER_SETTINGS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "server/app/server_config.h"

namespace perfhive {

// Where a setting's value goes in ServerConfig; its type and `syntax` say how it is written:
// text, a switch (true or false; a flag, with --no-KEY for one that is on by default), a list of
// texts (a repeatable flag), a number, or a quantity written as a size or an age.
using ServerSettingField =
    std::variant<std::string ServerConfig::*, bool ServerConfig::*,
                 std::vector<std::string> ServerConfig::*, uint64_t ServerConfig::*,
                 int64_t ServerConfig::*, double ServerConfig::*>;

enum class QuantitySyntax {
  kNumber,  // a number
  kSize,    // "64MiB", "50GB" (KB, MB, GB are powers of 1024 too) or a number of bytes
  kAge,     // "30d", "12h", "90m", "3600s" or a number of seconds
};

struct ServerSetting {
  std::string_view key = {};           // in server.toml
  std::string_view value_name = {};    // what the value looks like, "HOST:PORT"; empty: a switch
  std::string_view default_text = {};  // the default in words; empty: none
  std::string_view help = {};          // what it does
  ServerSettingField field = {};
  QuantitySyntax syntax = QuantitySyntax::kNumber;
  // A quantity's smallest and largest values (in bytes or seconds).
  int64_t min = 0;
  int64_t max = INT64_MAX;
};

// Every setting, in the order --help and the docs list them.
std::span<const ServerSetting> ServerSettings();

// The setting with that key in server.toml, or nullptr.
const ServerSetting* FindServerSetting(std::string_view key);

// Its flag: "--tls-cert" for tls_cert.
std::string ServerSettingFlag(const ServerSetting& setting);

// The settings as the Markdown table of docs/server.md: flag, key, default, meaning.
std::string ServerSettingsMarkdown();

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_SERVER_SETTINGS_H_
