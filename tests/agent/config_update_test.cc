#include "agent/config_update.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

using std::chrono::milliseconds;

// The settings `text` gives the agent.
AgentConfig Load(const std::string& text) {
  AgentConfig config;
  Status status = LoadConfigText(text, "agent.toml", config);
  EXPECT_TRUE(status.ok()) << status.message() << "\n" << text;
  return config;
}

// Proves: the keys the update names change; every other setting, tables included, reads back as
// it was.
TEST(ConfigUpdateTest, ChangesTheKeysGivenAndKeepsEveryOtherSetting) {
  const std::string before = R"(# an administrator's note
server = "old:7443"
ca = "/etc/perfhive/ca.pem"
token_file = "/etc/perfhive/token"
spool_max_bytes = 1048576
max_concurrent_polls = 3

[[query]]
name = "Global"
every = "10s"

[[target]]
address = '\\web01'
credentials = "/etc/perfhive/web01.auth"
call_timeout = "5s"
)";
  ConfigUpdate update;
  update.server = "new:7443";
  update.host_name = "WEB02";
  Result<std::string> after = ApplyConfigUpdate(before, "agent.toml", update);
  ASSERT_TRUE(after.ok()) << after.error();

  AgentConfig old_config = Load(before);
  AgentConfig new_config = Load(*after);
  EXPECT_EQ(new_config.server, "new:7443");
  EXPECT_EQ(new_config.host_name, "WEB02");
  new_config.server = old_config.server;
  new_config.host_name = old_config.host_name;
  EXPECT_EQ(new_config.ca_file, old_config.ca_file);
  EXPECT_EQ(new_config.token_file, old_config.token_file);
  EXPECT_EQ(new_config.spool_max_bytes, 1048576u);
  EXPECT_EQ(new_config.max_concurrent_polls, 3);
  EXPECT_EQ(new_config.queries, old_config.queries);
  EXPECT_EQ(new_config.targets, old_config.targets);
  // Comments are not kept; the file says so at its top.
  EXPECT_EQ(after->find("an administrator's note"), std::string::npos);
  EXPECT_EQ(after->rfind("# perfhive-agent settings", 0), 0u) << *after;
}

// Proves: a key this agent does not know (a newer agent's) survives an update untouched.
TEST(ConfigUpdateTest, KeepsKeysItDoesNotKnow) {
  ConfigUpdate update;
  update.interval = milliseconds(30000);
  Result<std::string> after =
      ApplyConfigUpdate("future_setting = [1, 2]\n[future_table]\nx = 'y'\n", "agent.toml", update);
  ASSERT_TRUE(after.ok()) << after.error();
  EXPECT_NE(after->find("future_setting = [ 1, 2 ]"), std::string::npos) << *after;
  EXPECT_NE(after->find("[future_table]\nx = 'y'"), std::string::npos) << *after;
  EXPECT_NE(after->find("interval = '30s'"), std::string::npos) << *after;
}

// Proves: values with quotes, backslashes and non-ASCII text read back through the agent's own
// parser exactly as given.
TEST(ConfigUpdateTest, ValuesWithQuotesAndBackslashesReadBackExactly) {
  ConfigUpdate update;
  update.server = "collector.example:7443";
  update.replay_dir = "C:\\ProgramData\\perfhive\\replay 'one'\\";
  update.token_file = "C:\\it's \"here\"\\agent.token";
  update.ca_file = "/etc/perfhive/ça.pem";
  update.host_name = "web\\01\"";
  Result<std::string> after = ApplyConfigUpdate("", "agent.toml", update);
  ASSERT_TRUE(after.ok()) << after.error();
  AgentConfig config = Load(*after);
  EXPECT_EQ(config.replay_dir, *update.replay_dir);
  EXPECT_EQ(config.token_file, *update.token_file);
  EXPECT_EQ(config.ca_file, *update.ca_file);
  EXPECT_EQ(config.host_name, *update.host_name);
}

// Proves: queries and targets replace every table of their kind, and read back as the flags that
// made them.
TEST(ConfigUpdateTest, QueriesAndTargetsReplaceTheirTables) {
  ConfigUpdate update;
  update.queries = {*ParseQueryFlag("Processor,Network Interface@1m"), *ParseQueryFlag("Costly")};
  update.targets = {*ParseTargetFlag("\\\\10.0.0.7:445=DB01")};
  update.insecure = false;
  Result<std::string> after = ApplyConfigUpdate(
      "[[query]]\nname = \"Global\"\n\n[[target]]\naddress = '\\\\old'\n", "agent.toml", update);
  ASSERT_TRUE(after.ok()) << after.error();
  AgentConfig config = Load(*after);
  EXPECT_EQ(config.queries, *update.queries);
  ASSERT_EQ(config.targets.size(), 1u);
  EXPECT_EQ(config.targets[0].address, "\\\\10.0.0.7:445");
  EXPECT_EQ(config.targets[0].host_name, "DB01");
  EXPECT_FALSE(config.insecure);
  EXPECT_NE(after->find("insecure = false"), std::string::npos) << *after;
}

// Proves: a file that is not TOML is refused with its line, not overwritten by a guess.
TEST(ConfigUpdateTest, RefusesTextThatIsNotToml) {
  ConfigUpdate update;
  update.server = "a:1";
  Result<std::string> after =
      ApplyConfigUpdate("server = \"a:1\"\nnot toml\n", "agent.toml", update);
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(after.error().rfind("agent.toml:2:", 0), 0u) << after.error();
}

}  // namespace
}  // namespace perfhive
