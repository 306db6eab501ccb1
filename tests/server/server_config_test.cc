#include "server/app/server_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "server/app/server_settings.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::TempDir;

TEST(ServerConfigTest, ReadsEverySettingFromToml) {
  ServerConfig config;
  Status status = LoadServerConfigText(R"(
listen = "0.0.0.0:7443"
data = "/srv/perfhive"
tls_cert = "/etc/perfhive/server.pem"
tls_key = "/etc/perfhive/server.key"
client_ca = "/etc/perfhive/clients.pem"
tokens = "/etc/perfhive/tokens.toml"
insecure = false
max_snapshot_bytes = "16MiB"
max_snapshots_per_second = 12.5
max_ingest_bytes_in_flight = "32MiB"
max_query_bytes = "256MiB"
retention_age = "30d"
retention_size = "50GB"
remote_write = ["https://a.example/api/v1/push", "http://b.example:9090/api/v1/write"]
remote_write_bearer_token_file = "/etc/perfhive/bearer"
remote_write_basic_auth_user = "ph"
remote_write_basic_auth_password_file = "/etc/perfhive/password"
remote_write_ca = "/etc/perfhive/rw-ca.pem"
remote_write_backfill = "30d"
export_include = ['\Processor(*)\*']
export_exclude = ['\Thread(*)\*', '\Process(*)\IO*']
metrics_listen = "127.0.0.1:9470"
http_listen = "0.0.0.0:7480"
compact_groups = false
)",
                                       "server.toml", config);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(config.listen, "0.0.0.0:7443");
  EXPECT_EQ(config.data, "/srv/perfhive");
  EXPECT_EQ(config.tls_cert, "/etc/perfhive/server.pem");
  EXPECT_EQ(config.tls_key, "/etc/perfhive/server.key");
  EXPECT_EQ(config.client_ca, "/etc/perfhive/clients.pem");
  EXPECT_EQ(config.tokens, "/etc/perfhive/tokens.toml");
  EXPECT_FALSE(config.insecure);
  EXPECT_EQ(config.max_snapshot_bytes, 16u * 1024 * 1024);
  EXPECT_EQ(config.max_snapshots_per_second, 12.5);
  EXPECT_EQ(config.max_ingest_bytes_in_flight, 32u * 1024 * 1024);
  EXPECT_EQ(config.max_query_bytes, 256u * 1024 * 1024);
  EXPECT_EQ(config.retention_age_seconds, 30 * 86400);
  EXPECT_EQ(config.retention_bytes, 50LL * 1024 * 1024 * 1024);
  EXPECT_EQ(config.remote_write, (std::vector<std::string>{"https://a.example/api/v1/push",
                                                           "http://b.example:9090/api/v1/write"}));
  EXPECT_EQ(config.remote_write_bearer_token_file, "/etc/perfhive/bearer");
  EXPECT_EQ(config.remote_write_user, "ph");
  EXPECT_EQ(config.remote_write_password_file, "/etc/perfhive/password");
  EXPECT_EQ(config.remote_write_ca, "/etc/perfhive/rw-ca.pem");
  EXPECT_EQ(config.remote_write_backfill_seconds, 30 * 86400);
  EXPECT_EQ(config.export_include, (std::vector<std::string>{"\\Processor(*)\\*"}));
  EXPECT_EQ(config.export_exclude,
            (std::vector<std::string>{"\\Thread(*)\\*", "\\Process(*)\\IO*"}));
  EXPECT_EQ(config.metrics_listen, "127.0.0.1:9470");
  EXPECT_EQ(config.http_listen, "0.0.0.0:7480");
  EXPECT_FALSE(config.compact_groups);
}

TEST(ServerConfigTest, NumbersMayBePlainAndSettingsLeftOutKeepTheirDefaults) {
  ServerConfig config;
  Status status = LoadServerConfigText(
      "data = \"/d\"\nmax_snapshot_bytes = 1000\nmax_snapshots_per_second = 7\n"
      "retention_age = 3600\nretention_size = \"2KB\"\n",
      "server.toml", config);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(config.max_snapshot_bytes, 1000u);
  EXPECT_EQ(config.max_snapshots_per_second, 7);
  EXPECT_EQ(config.retention_age_seconds, 3600);
  EXPECT_EQ(config.retention_bytes, 2048);
  EXPECT_EQ(config.max_query_bytes, uint64_t{1} << 30);
  EXPECT_EQ(config.listen, "127.0.0.1:7470");
  EXPECT_FALSE(config.insecure);
  EXPECT_TRUE(config.compact_groups);
  EXPECT_TRUE(config.remote_write.empty());
}

TEST(ServerConfigTest, ErrorsNameTheFileLineAndSetting) {
  ServerConfig config;
  EXPECT_EQ(
      LoadServerConfigText("data = \"/d\"\nlisen = \"a:1\"\n", "server.toml", config).message(),
      "server.toml:2: unknown setting \"lisen\"");
  EXPECT_EQ(LoadServerConfigText("\n\ninsecure = \"yes\"\n", "server.toml", config).message(),
            "server.toml:3: insecure must be true or false");
  EXPECT_EQ(LoadServerConfigText("tls_cert = 3\n", "server.toml", config).message(),
            "server.toml:1: tls_cert must be a string");
  EXPECT_EQ(LoadServerConfigText("remote_write = \"http://a\"\n", "server.toml", config).message(),
            "server.toml:1: remote_write must be a list of strings");
  EXPECT_EQ(LoadServerConfigText("retention_size = \"lots\"\n", "server.toml", config).message(),
            "server.toml:1: retention_size must be a number or a string such as \"64MiB\", not "
            "\"lots\"");
  EXPECT_EQ(LoadServerConfigText("retention_age = \"2w\"\n", "server.toml", config).message(),
            "server.toml:1: retention_age must be a number or a string such as \"30d\", not "
            "\"2w\"");
  EXPECT_EQ(LoadServerConfigText("max_snapshots_per_second = 0\n", "server.toml", config).message(),
            "server.toml:1: max_snapshots_per_second must be a number above 0");
  EXPECT_EQ(LoadServerConfigText("max_snapshot_bytes = 0\n", "server.toml", config).message(),
            "server.toml:1: max_snapshot_bytes must be above 0");
  EXPECT_EQ(LoadServerConfigText("max_query_bytes = 0\n", "server.toml", config).message(),
            "server.toml:1: max_query_bytes must be above 0");
  Status syntax = LoadServerConfigText("data = \"/d\"\nlisten = \n", "server.toml", config);
  EXPECT_EQ(syntax.message().rfind("server.toml:2:", 0), 0u) << syntax.message();
}

// Writes `text` to a file in `dir` and returns its path.
std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Parses a perfhive-server command line as main() does.
Result<ServerConfig> ResolveCommandLine(std::vector<std::string> args) {
  CLI::App app;
  ServerFlags flags(app);
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError& error) {
    return Status::InvalidArgument(error.what());
  }
  return flags.Resolve(Env::Default());
}

TEST(ServerConfigTest, FlagsGivenWinOverTheFileAndTheRestComesFromIt) {
  TempDir dir;
  std::string file = WriteFile(dir, "server.toml", R"(
listen = "127.0.0.1:7470"
data = "/var/lib/perfhive-server"
insecure = true
tokens = "/etc/perfhive/tokens.toml"
remote_write = ["http://a/api/v1/write", "http://b/api/v1/write"]
retention_age = "7d"
)");
  Result<ServerConfig> config =
      ResolveCommandLine({"--config", file, "--listen", "127.0.0.2:9000", "--remote-write",
                          "http://c/api/v1/write", "--retention-size", "1MB"});
  ASSERT_TRUE(config.ok()) << config.error();
  EXPECT_EQ(config->listen, "127.0.0.2:9000");
  EXPECT_EQ(config->remote_write, (std::vector<std::string>{"http://c/api/v1/write"}));
  EXPECT_EQ(config->retention_bytes, 1024 * 1024);
  EXPECT_EQ(config->data, "/var/lib/perfhive-server");
  EXPECT_TRUE(config->insecure);
  EXPECT_EQ(config->tokens, "/etc/perfhive/tokens.toml");
  EXPECT_EQ(config->retention_age_seconds, 7 * 86400);
  EXPECT_EQ(config->max_snapshots_per_second, 50);
}

TEST(ServerConfigTest, FlagsAloneStillWork) {
  Result<ServerConfig> config = ResolveCommandLine(
      {"--data", "/tmp/store", "--insecure", "--max-snapshot-bytes", "2MiB", "--max-query-bytes",
       "3GiB", "--retention-age", "12h", "--export-exclude", "\\Thread(*)\\*",
       "--no-compact-groups", "--max-ingest-bytes-in-flight", "64MiB"});
  ASSERT_TRUE(config.ok()) << config.error();
  EXPECT_EQ(config->data, "/tmp/store");
  EXPECT_EQ(config->max_ingest_bytes_in_flight, uint64_t{64} << 20);
  EXPECT_TRUE(config->insecure);
  EXPECT_EQ(config->max_snapshot_bytes, 2u * 1024 * 1024);
  EXPECT_EQ(config->max_query_bytes, uint64_t{3} << 30);
  EXPECT_EQ(config->retention_age_seconds, 12 * 3600);
  EXPECT_EQ(config->export_exclude, (std::vector<std::string>{"\\Thread(*)\\*"}));
  EXPECT_FALSE(config->compact_groups);
  EXPECT_EQ(config->listen, "127.0.0.1:7470");
}

TEST(ServerConfigTest, TheStoreDirectoryIsRequiredFromOneOrTheOther) {
  EXPECT_EQ(ResolveCommandLine({"--insecure"}).error(),
            "give --data DIR, or data = \"DIR\" in the --config file");
  TempDir dir;
  std::string file = WriteFile(dir, "bad.toml", "data = \"/d\"\nretention = \"30d\"\n");
  EXPECT_EQ(ResolveCommandLine({"--config", file}).error(),
            file + ":2: unknown setting \"retention\"");
  EXPECT_EQ(ResolveCommandLine({"--config", dir.path() + "/missing.toml", "--data", "/d"})
                .error()
                .rfind("config file: ", 0),
            0u);
}

// The file the perfhive-server package installs as /etc/perfhive/server.toml.
std::string ShippedConfig() {
  std::ifstream in(PERFHIVE_SHIPPED_SERVER_CONFIG);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ServerConfigTest, TheShippedFileServesThisHostInPlainText) {
  ServerConfig config;
  Status status = LoadServerConfigText(ShippedConfig(), "server.toml", config);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(config.listen, "127.0.0.1:7470");
  EXPECT_TRUE(config.insecure);
  EXPECT_EQ(config.data, "/var/lib/perfhive-server");
  EXPECT_TRUE(config.tokens.empty());
  EXPECT_EQ(config.retention_age_seconds, 0);
}

// Every setting the shipped file shows in a comment ("# key = value") is one the server reads,
// as written there. Uncommented, "listen" would be there twice: the suggestion replaces the
// default.
TEST(ServerConfigTest, EverySettingTheShippedFileSuggestsIsValid) {
  std::istringstream lines(ShippedConfig());
  std::string text;
  const std::regex suggestion("# ([a-z_]+ = .*)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, suggestion)) {
      text += match[1].str() + "\n";
    } else if (!line.starts_with("listen = ")) {
      text += line + "\n";
    }
  }
  ServerConfig config;
  Status status = LoadServerConfigText(text, "server.toml", config);
  ASSERT_TRUE(status.ok()) << status.message() << "\n" << text;
  EXPECT_EQ(config.listen, "0.0.0.0:7470");
  EXPECT_EQ(config.tls_cert, "/etc/perfhive/server.pem");
  EXPECT_EQ(config.tls_key, "/etc/perfhive/server.key");
  EXPECT_EQ(config.tokens, "/etc/perfhive/tokens.toml");
  EXPECT_EQ(config.client_ca, "/etc/perfhive/clients-ca.pem");
  EXPECT_EQ(config.retention_age_seconds, 30 * 86400);
  EXPECT_EQ(config.retention_bytes, 50LL << 30);
  EXPECT_EQ(config.max_snapshot_bytes, 64u << 20);
  EXPECT_EQ(config.max_snapshots_per_second, 50);
  EXPECT_EQ(config.max_ingest_bytes_in_flight, 256u << 20);
  EXPECT_EQ(config.remote_write,
            (std::vector<std::string>{"https://mimir.example:9009/api/v1/push"}));
  EXPECT_EQ(config.remote_write_bearer_token_file, "/etc/perfhive/mimir.token");
  EXPECT_EQ(config.remote_write_user, "perfhive");
  EXPECT_EQ(config.remote_write_password_file, "/etc/perfhive/mimir.password");
  EXPECT_EQ(config.remote_write_ca, "/etc/perfhive/mimir-ca.pem");
  EXPECT_EQ(config.export_include, (std::vector<std::string>{"\\*(*)\\*", "\\*\\*"}));
  EXPECT_EQ(config.export_exclude, (std::vector<std::string>{"\\Thread(*)\\*"}));
  EXPECT_EQ(config.metrics_listen, "127.0.0.1:9470");
}

// One value of a setting, other than its default, as the file and as the flags write it.
struct SettingWritten {
  std::string toml;
  std::vector<std::string> flags;
};

SettingWritten WriteSetting(const ServerSetting& setting) {
  const std::string key(setting.key);
  const std::string flag = ServerSettingFlag(setting);
  const ServerConfig defaults;
  auto written = [&](auto field) -> SettingWritten {
    using Field = std::remove_cvref_t<decltype(defaults.*field)>;
    if constexpr (std::is_same_v<Field, bool>) {
      if (defaults.*field) return {key + " = false\n", {"--no-" + flag.substr(2)}};
      return {key + " = true\n", {flag}};
    } else if constexpr (std::is_same_v<Field, double>) {
      return {key + " = 2.5\n", {flag, "2.5"}};
    } else if constexpr (std::is_same_v<Field, std::vector<std::string>>) {
      return {key + " = [\"first\", \"second\"]\n", {flag, "first", flag, "second"}};
    } else if constexpr (std::is_same_v<Field, std::string>) {
      return {key + " = \"value-of-" + key + "\"\n", {flag, "value-of-" + key}};
    } else if (setting.syntax == QuantitySyntax::kAge) {
      return {key + " = \"2h\"\n", {flag, "2h"}};
    } else {
      return {key + " = \"3MiB\"\n", {flag, "3MiB"}};
    }
  };
  return std::visit(written, setting.field);
}

// Each setting, given in the file or by its flag, comes to the same value, other than the
// default.
TEST(ServerSettingsTest, EverySettingReadsTheSameFromTheFileAndFromItsFlag) {
  const ServerConfig defaults;
  for (const ServerSetting& setting : ServerSettings()) {
    SCOPED_TRACE(std::string(setting.key));
    SettingWritten value = WriteSetting(setting);
    ServerConfig from_file;
    Status loaded = LoadServerConfigText(value.toml, "server.toml", from_file);
    ASSERT_TRUE(loaded.ok()) << loaded.message() << "\n" << value.toml;
    std::vector<std::string> args = value.flags;
    if (setting.key != "data") args.insert(args.end(), {"--data", "/d"});
    Result<ServerConfig> from_flags = ResolveCommandLine(args);
    ASSERT_TRUE(from_flags.ok()) << from_flags.error();
    std::visit(
        [&](auto field) {
          EXPECT_NE(from_file.*field, defaults.*field) << "the file's value is the default";
          EXPECT_EQ((*from_flags).*field, from_file.*field) << "the flag's value is the file's";
        },
        setting.field);
  }
}

TEST(ServerSettingsTest, KeysAreEachOneSettingsAndQuantitiesKeepTheirRangeEitherWay) {
  std::set<std::string_view> keys;
  for (const ServerSetting& setting : ServerSettings()) {
    EXPECT_TRUE(keys.insert(setting.key).second) << setting.key;
    EXPECT_EQ(FindServerSetting(setting.key), &setting);
    EXPECT_FALSE(setting.help.empty()) << setting.key;
  }
  ServerConfig config;
  EXPECT_EQ(
      LoadServerConfigText("certificate_lifetime = \"5s\"\n", "server.toml", config).message(),
      "server.toml:1: certificate_lifetime must be from 10s to 315360000s");
  EXPECT_FALSE(ResolveCommandLine({"--data", "/d", "--certificate-lifetime", "5s"}).ok());
  EXPECT_FALSE(ResolveCommandLine({"--data", "/d", "--max-snapshot-bytes", "0"}).ok());
  EXPECT_FALSE(ResolveCommandLine({"--data", "/d", "--max-snapshots-per-second", "0"}).ok());
  EXPECT_TRUE(ResolveCommandLine({"--data", "/d", "--retention-size", "0"}).ok());
}

TEST(ServerSettingsTest, TheTableListsEverySettingWithItsFlagKeyAndDefault) {
  const std::string table = ServerSettingsMarkdown();
  for (const ServerSetting& setting : ServerSettings()) {
    EXPECT_NE(table.find("| `" + ServerSettingFlag(setting)), std::string::npos) << setting.key;
    EXPECT_NE(table.find("| `" + std::string(setting.key) + "` |"), std::string::npos);
    if (!setting.default_text.empty()) {
      EXPECT_NE(table.find(std::string(setting.default_text)), std::string::npos);
    }
  }
  EXPECT_NE(table.find("| `--remote-write URL` (repeatable) |"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
