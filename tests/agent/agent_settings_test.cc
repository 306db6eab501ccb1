#include "agent/agent_settings.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "agent/run_flags.h"
#include "port/env.h"

namespace perfhive {
namespace {

// One value of a setting, written as the config file and as the flags write it.
struct WrittenValue {
  std::string toml;
  std::vector<std::string> flags;
};

WrittenValue SampleValue(const AgentSetting& setting) {
  const std::string key(setting.key);
  const std::string flag(setting.flag);
  auto written = [&](auto field) -> WrittenValue {
    using Field = std::remove_reference_t<decltype(std::declval<AgentConfig&>().*field)>;
    if constexpr (std::is_same_v<Field, bool>) {
      return {key + " = true\n", {flag}};
    } else if constexpr (std::is_same_v<Field, std::chrono::milliseconds> ||
                         std::is_same_v<Field, std::optional<std::chrono::milliseconds>>) {
      return {key + " = \"1m30s\"\n", {flag, "1m30s"}};
    } else if constexpr (std::is_same_v<Field, uint64_t> || std::is_same_v<Field, int>) {
      return {key + " = 3\n", {flag, "3"}};
    } else if constexpr (std::is_same_v<Field, std::string>) {
      std::string value =
          setting.choices.empty() ? "value-of-" + key : std::string(setting.choices.back());
      return {key + " = \"" + value + "\"\n", {flag, value}};
    } else if constexpr (std::is_same_v<Field, std::vector<QuerySchedule>>) {
      return {"[[" + key + "]]\nobjects = [\"Processor\", \"Memory\"]\nevery = \"1m\"\n",
              {flag, "Processor,Memory@1m"}};
    } else if constexpr (std::is_same_v<Field, std::vector<RemoteHostConfig>>) {
      return {"[[" + key + "]]\naddress = '\\\\web01:4455'\nhost_name = \"WEB\"\n",
              {flag, "\\\\web01:4455=WEB"}};
    } else {
      static_assert(std::is_same_v<Field, query::HostLabels>);
      return {key + " = { role = \"web\", site = \"ams\" }\n",
              {flag, "role=web", flag, "site=ams"}};
    }
  };
  return std::visit(written, setting.field);
}

bool SameValue(const AgentSetting& setting, const AgentConfig& a, const AgentConfig& b) {
  return std::visit([&](auto field) { return a.*field == b.*field; }, setting.field);
}

Result<AgentConfig> FromFlags(const std::vector<std::string>& args) {
  CLI::App app;
  RunFlags flags;
  AddRunFlags(app, flags);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return Status::InvalidArgument(error.what());
  }
  return ResolveRunConfig(Env::Default(), flags);
}

TEST(AgentSettingsTest, KeysAndFlagsAreEachOneSettings) {
  std::set<std::string_view> keys, flags;
  for (const AgentSetting& setting : AgentSettings()) {
    EXPECT_TRUE(keys.insert(setting.key).second) << setting.key;
    EXPECT_TRUE(flags.insert(setting.flag).second) << setting.flag;
    EXPECT_TRUE(setting.flag.starts_with("--")) << setting.flag;
    EXPECT_FALSE(setting.help.empty()) << setting.key;
    EXPECT_EQ(FindAgentSetting(setting.key), &setting);
  }
  EXPECT_EQ(FindAgentSetting("no_such_setting"), nullptr);
}

// Each setting, given in the file or by its flag, comes to the same value, other than the
// default; and the flag wins over the file.
TEST(AgentSettingsTest, EverySettingReadsTheSameFromTheFileAndFromItsFlag) {
  const AgentConfig defaults;
  for (const AgentSetting& setting : AgentSettings()) {
    SCOPED_TRACE(std::string(setting.key));
    WrittenValue value = SampleValue(setting);
    AgentConfig from_file;
    Status loaded = LoadConfigText(value.toml, "agent.toml", from_file);
    ASSERT_TRUE(loaded.ok()) << loaded.message() << "\n" << value.toml;
    EXPECT_FALSE(SameValue(setting, from_file, defaults)) << "the file's value is not the default";
    if (setting.given != nullptr) {
      EXPECT_TRUE(from_file.*setting.given);
    }

    std::vector<std::string> args = value.flags;
    // --credentials is for polled hosts.
    if (setting.key == "credentials") args.push_back("--poller");
    Result<AgentConfig> from_flags = FromFlags(args);
    ASSERT_TRUE(from_flags.ok()) << from_flags.error();
    EXPECT_TRUE(SameValue(setting, *from_flags, from_file)) << "the flag's value is the file's";
    if (setting.given != nullptr) {
      EXPECT_TRUE((*from_flags).*setting.given);
    }
  }
}

TEST(AgentSettingsTest, AnUnknownKeyIsRefusedWithItsName) {
  AgentConfig config;
  Status status = LoadConfigText("server = \"a:1\"\nintervall = \"10s\"\n", "agent.toml", config);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("unknown setting \"intervall\""), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("agent.toml"), std::string::npos) << status.message();
}

TEST(AgentSettingsTest, AFlagsValueOutsideItsRangeIsRefused) {
  EXPECT_FALSE(FromFlags({"--max-concurrent-polls", "1025"}).ok());
  EXPECT_FALSE(FromFlags({"--source", "wmi"}).ok());
  Result<AgentConfig> bad_duration = FromFlags({"--interval", "ten"});
  ASSERT_FALSE(bad_duration.ok());
  EXPECT_NE(bad_duration.error().find("--interval"), std::string::npos) << bad_duration.error();
}

TEST(AgentSettingsTest, TheTableListsEverySettingWithItsFlagKeyAndDefault) {
  const std::string table = AgentSettingsMarkdown();
  for (const AgentSetting& setting : AgentSettings()) {
    EXPECT_NE(table.find("`" + std::string(setting.flag)), std::string::npos) << setting.flag;
    EXPECT_NE(table.find(std::string(setting.key)), std::string::npos) << setting.key;
    if (!setting.default_text.empty()) {
      EXPECT_NE(table.find(std::string(setting.default_text)), std::string::npos)
          << setting.default_text;
    }
  }
  // A value that holds '|' does not end its cell.
  EXPECT_NE(table.find("`--source procfs\\|hkpd\\|replay`"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
