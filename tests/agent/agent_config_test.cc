#include "agent/agent_config.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

using std::chrono::milliseconds;

TEST(AgentConfigTest, ReadsEverySettingFromToml) {
  AgentConfig config;
  Status status = LoadConfigText(R"(
server = "collector:7443"
ca = "/etc/perfhive/ca.pem"
cert = "/etc/perfhive/agent.pem"
key = "/etc/perfhive/agent.key"
token_file = "/etc/perfhive/token"
host_name = "web01"
source = "procfs"
interval = "30s"
spool_dir = "/var/spool/ph"
spool_max_bytes = 1048576
timeout = "1h"

[[query]]
name = "Global"
every = "10s"

[[query]]
name = "Costly"

[[query]]
objects = ["Processor", "Network Interface"]
every = "1m"
)",
                                 "agent.toml", config);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(config.server, "collector:7443");
  EXPECT_EQ(config.ca_file, "/etc/perfhive/ca.pem");
  EXPECT_EQ(config.cert_file, "/etc/perfhive/agent.pem");
  EXPECT_EQ(config.key_file, "/etc/perfhive/agent.key");
  EXPECT_EQ(config.token_file, "/etc/perfhive/token");
  EXPECT_EQ(config.host_name, "web01");
  EXPECT_EQ(config.interval, milliseconds(30000));
  EXPECT_EQ(config.spool_dir, "/var/spool/ph");
  EXPECT_EQ(config.spool_max_bytes, 1048576u);
  EXPECT_EQ(config.timeout, milliseconds(3600000));
  ASSERT_EQ(config.queries.size(), 3u);
  EXPECT_EQ(config.queries[0].name, "Global");
  EXPECT_EQ(ScheduleInterval(config.queries[0], config.interval), milliseconds(10000));
  EXPECT_EQ(ScheduleInterval(config.queries[1], config.interval), milliseconds(300000));
  EXPECT_EQ(config.queries[2].objects,
            (std::vector<std::string>{"Processor", "Network Interface"}));
  EXPECT_EQ(ScheduleInterval(config.queries[2], config.interval), milliseconds(60000));
}

TEST(AgentConfigTest, ErrorsNameTheFileLineAndSetting) {
  AgentConfig config;
  Status typo = LoadConfigText("server = \"a:1\"\nintervall = \"10s\"\n", "agent.toml", config);
  EXPECT_EQ(typo.message(), "agent.toml:2: unknown setting \"intervall\"");
  Status bad = LoadConfigText("interval = \"ten\"\n", "agent.toml", config);
  EXPECT_NE(bad.message().find("agent.toml:1: interval: invalid duration \"ten\""),
            std::string::npos)
      << bad.message();
  Status query = LoadConfigText("[[query]]\nname = \"Everything\"\n", "agent.toml", config);
  EXPECT_FALSE(query.ok());
  Status syntax = LoadConfigText("server = \n", "agent.toml", config);
  EXPECT_NE(syntax.message().find("agent.toml:1:"), std::string::npos) << syntax.message();
}

TEST(AgentConfigTest, QueryFlagsNameQueriesObjectsAndSchedules) {
  Result<QuerySchedule> global = ParseQueryFlag("Global@10s");
  ASSERT_TRUE(global.ok());
  EXPECT_EQ(global->name, "Global");
  EXPECT_EQ(global->every, milliseconds(10000));
  Result<QuerySchedule> objects = ParseQueryFlag("Processor,Network Interface@1m");
  ASSERT_TRUE(objects.ok());
  EXPECT_EQ(objects->objects, (std::vector<std::string>{"Processor", "Network Interface"}));
  EXPECT_EQ(QueryLabel(*objects), "Processor,Network Interface");
  Result<QuerySchedule> costly = ParseQueryFlag("Costly");
  ASSERT_TRUE(costly.ok());
  EXPECT_FALSE(costly->every.has_value());
  EXPECT_FALSE(ParseQueryFlag("Global@soon").ok());
  EXPECT_FALSE(ParseQueryFlag(",@1s").ok());
}

TEST(AgentConfigTest, TargetsListHostsWithCredentialsAndIntervals) {
  AgentConfig config;
  Status status = LoadConfigText(R"(
server = "collector:7443"
max_concurrent_polls = 4

[[target]]
address = '\\web01'
credentials = "/etc/perfhive/web01.auth"
interval = "30s"

[[target]]
address = '\\10.0.0.7:4455'
host_name = "DB01"
call_timeout = "2s"
)",
                                 "agent.toml", config);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(config.max_concurrent_polls, 4);
  ASSERT_EQ(config.targets.size(), 2u);
  EXPECT_EQ(config.targets[0].address, "\\\\web01");
  EXPECT_EQ(config.targets[0].Name(), "web01");
  EXPECT_EQ(config.targets[0].credentials_file, "/etc/perfhive/web01.auth");
  EXPECT_EQ(config.targets[0].interval, milliseconds(30000));
  EXPECT_FALSE(config.targets[0].call_timeout.has_value());
  EXPECT_EQ(config.targets[1].Name(), "DB01");
  EXPECT_EQ(config.targets[1].credentials_file, "");
  EXPECT_EQ(config.targets[1].call_timeout, milliseconds(2000));

  Status missing = LoadConfigText("[[target]]\nhost_name = \"x\"\n", "agent.toml", config);
  EXPECT_EQ(missing.message(),
            "agent.toml:1: a [[target]] needs address = '\\\\HOST' or '\\\\HOST:PORT'");
  Status typo =
      LoadConfigText("[[target]]\naddress = 'h'\npassword = \"s\"\n", "agent.toml", config);
  EXPECT_NE(typo.message().find("agent.toml:3: unknown key \"password\" in [[target]]"),
            std::string::npos)
      << typo.message();
  // The secret's value is not repeated in the message.
  EXPECT_EQ(typo.message().find("\"s\""), std::string::npos);
  EXPECT_FALSE(LoadConfigText("max_concurrent_polls = 0\n", "agent.toml", config).ok());
}

TEST(AgentConfigTest, TargetFlagsNameTheHostAfterAnEqualsSign) {
  Result<RemoteHostConfig> plain = ParseTargetFlag("\\\\winhost");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->address, "\\\\winhost");
  EXPECT_EQ(plain->Name(), "winhost");
  Result<RemoteHostConfig> named = ParseTargetFlag("\\\\127.0.0.1:4455=WEB01");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->address, "\\\\127.0.0.1:4455");
  EXPECT_EQ(named->Name(), "WEB01");
  EXPECT_EQ(ParseTargetFlag("\\\\127.0.0.1:4455")->Name(), "127.0.0.1");
  EXPECT_FALSE(ParseTargetFlag("=WEB01").ok());
  EXPECT_FALSE(ParseTargetFlag("\\\\h=..").ok());
  EXPECT_FALSE(ParseTargetFlag("\\\\h=a/b").ok());
}

// Labels in agent.toml are a table of strings, each checked with the server's rule; a mistake
// names the file, the line and the column of the label.
TEST(AgentConfigTest, LabelsAreATableOfCheckedStrings) {
  AgentConfig config;
  Status status =
      LoadConfigText("server = \"c:1\"\nlabels = { role = \"web\", \"rack.unit\" = \"b-12\" }\n",
                     "agent.toml", config);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(config.labels, (query::HostLabels{{"rack.unit", "b-12"}, {"role", "web"}}));

  AgentConfig bad;
  EXPECT_EQ(LoadConfigText("\nlabels = { role = \"web\", site = \"a;b\" }\n", "agent.toml", bad)
                .message(),
            "agent.toml:2:33: labels: label \"site=a;b\": a label's value is printable UTF-8 of "
            "at most 128 bytes, without ',' or ';' and without spaces at its ends");
  EXPECT_EQ(LoadConfigText("labels = { \"-x\" = \"a\" }\n", "agent.toml", bad).message(),
            "agent.toml:1:19: labels: label \"-x=a\": \"-x\" is not a label key (a letter or _, "
            "then letters, digits, _, . or -; at most 64 bytes)");
  EXPECT_EQ(LoadConfigText("labels = [\"role=web\"]\n", "agent.toml", bad).message(),
            "agent.toml:1: labels must be a table of strings, e.g. { role = \"web\" }");
}

// --label flags (and the MSI's LABELS, split at ';') are KEY=VALUE each; the error names the label
// that is wrong, and a key given twice.
TEST(AgentConfigTest, LabelFlagsAreKeyEqualsValue) {
  Result<query::HostLabels> labels = ParseLabelFlags({"role=web", "site=ams", "env=prod"});
  ASSERT_TRUE(labels.ok()) << labels.error();
  EXPECT_EQ(*labels, (query::HostLabels{{"env", "prod"}, {"role", "web"}, {"site", "ams"}}));
  EXPECT_EQ(ParseLabelFlags({"role=web", "role=sql"}).error(),
            "label role is given twice; give each key once");
  EXPECT_EQ(ParseLabelFlags({"role"}).error(), "label \"role\" is not KEY=VALUE (e.g. role=web)");
  EXPECT_EQ(ParseLabelFlags({"role=web", "2nd=x"}).error(),
            "label \"2nd=x\": \"2nd\" is not a label key (a letter or _, then letters, digits, _, "
            ". or -; at most 64 bytes)");
  std::vector<std::string> many;
  for (int i = 0; i < 33; ++i) many.push_back("k" + std::to_string(i) + "=v");
  EXPECT_EQ(ParseLabelFlags(many).error(), "a host has at most 32 labels, not 33");
}

}  // namespace
}  // namespace perfhive
