// End to end: host labels from where they are set to where they are shown. Two procfs agents of
// this machine, each as its own host with its own --label flags, and a policies file that gives
// one of them another site: `perfhive hosts` (table, JSON, --select), /api/v1/hosts (?select=),
// /metrics, the agent's warning and the server's log line; the labels after the server restarts,
// and an agent's new labels replacing its old ones. Real processes on loopback;
// docs/policies.md, "Host labels".

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "export/http_client.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/support/child_process.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using LabelMap = std::map<std::string, std::string>;

// The web hosts are at site fra, whatever their agents say.
constexpr char kFraPolicy[] =
    "[[policy]]\nname = \"fra\"\nhosts = [\"lblweb*\"]\nlabels = { site = \"fra\" }\n";

class LabelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<ScratchDir>("labels");
    WriteText(*scratch_ / "policies.toml", kFraPolicy);
    server_ = std::make_unique<ServerProcess>(
        *scratch_, std::vector<std::string>{"--insecure", "--policies", *scratch_ / "policies.toml",
                                            "--http-listen", "127.0.0.1:0", "--metrics-listen",
                                            "127.0.0.1:0"});
    ASSERT_TRUE(server_->Start());
  }
  void TearDown() override {
    agents_.clear();
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0);
    }
  }

  // This machine's procfs agent as `host`, sampling Global every second.
  void StartAgent(const std::string& host, const std::vector<std::string>& labels) {
    std::vector<std::string> argv = {AgentBinary(),
                                     "run",
                                     "--server",
                                     server_->address(),
                                     "--insecure",
                                     "--host-name",
                                     host,
                                     "--spool-dir",
                                     *scratch_ / ("spool-" + host),
                                     "--query",
                                     "Global@1s"};
    for (const std::string& label : labels) {
      argv.push_back("--label");
      argv.push_back(label);
    }
    agents_[host] = std::make_unique<ChildProcess>(argv, *scratch_ / (host + ".out"),
                                                   *scratch_ / (host + ".err"));
  }
  std::string AgentLog(const std::string& host) {
    return ReadWholeFile(*scratch_ / (host + ".err"));
  }
  std::string ServerLog() { return ReadWholeFile(server_->log_path()); }

  CommandResult Cli(std::vector<std::string> args) {
    std::vector<std::string> argv = {CliBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--server", server_->address(), "--insecure"});
    return RunCommand(*scratch_, argv);
  }
  // The hosts `perfhive hosts --format json [--select SELECTOR]` lists, by name, with their labels.
  std::map<std::string, LabelMap> ListedLabels(const std::string& selector = "") {
    std::vector<std::string> args = {"hosts", "--format", "json"};
    if (!selector.empty()) args.insert(args.end(), {"--select", selector});
    CommandResult listed = Cli(args);
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    std::map<std::string, LabelMap> hosts;
    if (listed.exit_code != 0) return hosts;
    const nlohmann::json doc = nlohmann::json::parse(listed.out);
    for (const auto& host : doc["hosts"]) hosts[host["name"]] = host["labels"].get<LabelMap>();
    return hosts;
  }
  // GET `path` from the server's HTTP port named in its log after `what` (the newest start's).
  std::string Get(const std::string& what, const std::string& path) {
    const std::string base = ListeningUrl(*server_, what);
    HttpClientOptions options;
    options.max_body_bytes = size_t{64} << 20;  // a /metrics page of two hosts' every counter
    HttpClient client(options);
    Result<HttpResponse> got = client.Get(base + path);
    EXPECT_TRUE(got.ok() && got->status == 200) << (got.ok() ? got->body : got.error());
    return got.ok() ? got->body : "{}";
  }

  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<ServerProcess> server_;
  std::map<std::string, std::unique_ptr<ChildProcess>> agents_;
};

TEST_F(LabelsTest, LabelsGoFromTheAgentAndThePolicyToEveryPlaceTheyAreShown) {
  StartAgent("LBLWEB1", {"role=web", "site=ams"});
  StartAgent("LBLSQL1", {"role=sql", "site=ams", "team.owner=dba"});
  const std::map<std::string, LabelMap> expected = {
      {"LBLWEB1", {{"role", "web"}, {"site", "fra"}}},
      {"LBLSQL1", {{"role", "sql"}, {"site", "ams"}, {"team.owner", "dba"}}}};
  std::map<std::string, LabelMap> listed;
  ASSERT_TRUE(WaitUntil([&] { return (listed = ListedLabels()) == expected; }))
      << nlohmann::json(listed).dump() << AgentLog("LBLWEB1") << ServerLog();

  // The conflict is reported: in the agent's log as a warning, in its plan report (the POLICY
  // column's '*'), and in the server's log at Hello.
  const std::string overridden = "local label site=ams is overridden by policy fra: site=fra";
  ASSERT_TRUE(WaitUntil([&] { return AgentLog("LBLWEB1").find(overridden) != std::string::npos; }))
      << AgentLog("LBLWEB1");
  EXPECT_THAT(AgentLog("LBLWEB1"), HasSubstr("WARNING " + overridden));
  EXPECT_THAT(AgentLog("LBLSQL1"), Not(HasSubstr("overridden")));
  nlohmann::json web;
  ASSERT_TRUE(WaitUntil([&] {
    web = HostEntry(*scratch_, *server_, "LBLWEB1", {"--insecure"});
    return web.is_object() && web.value("plan_report", "").find(overridden) != std::string::npos;
  })) << web.dump(1);
  EXPECT_THAT(ServerLog(), HasSubstr("event=label-overridden host=LBLWEB1"));
  EXPECT_THAT(ServerLog(), HasSubstr("agent label site=ams is overridden by policy fra: site=fra"));

  // The table's LABELS column.
  CommandResult table = Cli({"hosts"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("LABELS"));
  EXPECT_THAT(table.out, HasSubstr("role=web,site=fra"));
  EXPECT_THAT(table.out, HasSubstr("role=sql,site=ams,team.owner=dba"));

  // Selectors, as --select and as the API's select=.
  auto names = [](const std::map<std::string, LabelMap>& hosts) {
    std::vector<std::string> keys;
    for (const auto& [name, labels] : hosts) keys.push_back(name);
    return keys;
  };
  EXPECT_EQ(names(ListedLabels("role=web")), std::vector<std::string>{"LBLWEB1"});
  EXPECT_EQ(names(ListedLabels("role=sql")), std::vector<std::string>{"LBLSQL1"});
  EXPECT_EQ(names(ListedLabels("site=AM*")), std::vector<std::string>{"LBLSQL1"});
  EXPECT_EQ(names(ListedLabels("team.owner=")), std::vector<std::string>{"LBLWEB1"});
  EXPECT_EQ(names(ListedLabels("role!=web,host=lbl*")), std::vector<std::string>{"LBLSQL1"});
  CommandResult none = Cli({"hosts", "--select", "role=cache"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_THAT(none.out, HasSubstr("no host matches \"role=cache\""));
  CommandResult bad = Cli({"hosts", "--select", "ro le=web"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, HasSubstr("\"ro le\" is not a label key"));

  nlohmann::json api = nlohmann::json::parse(Get("console", "/api/v1/hosts"));
  std::map<std::string, LabelMap> from_api;
  for (const auto& host : api["hosts"]) from_api[host["name"]] = host["labels"].get<LabelMap>();
  EXPECT_EQ(from_api, expected) << api.dump(1);
  nlohmann::json selected =
      nlohmann::json::parse(Get("console", "/api/v1/hosts?select=role%3Dweb%2Csite%3Dfra"));
  ASSERT_EQ(selected["hosts"].size(), 1u) << selected.dump(1);
  EXPECT_EQ(selected["hosts"][0]["name"], "LBLWEB1");

  // /metrics: each host's series carry its labels, the '.' of a key made '_'.
  std::string page;
  ASSERT_TRUE(WaitUntil([&] {
    page = Get("metrics", "/metrics");
    return page.find("pdh_memory_available_bytes{host=\"LBLSQL1\"") != std::string::npos &&
           page.find("pdh_memory_available_bytes{host=\"LBLWEB1\"") != std::string::npos;
  })) << page.substr(0, 2000);
  EXPECT_THAT(page, HasSubstr("pdh_memory_available_bytes{host=\"LBLWEB1\",role=\"web\","
                              "site=\"fra\"}"));
  EXPECT_THAT(page, HasSubstr("pdh_memory_available_bytes{host=\"LBLSQL1\",role=\"sql\","
                              "site=\"ams\",team_owner=\"dba\"}"));

  // The server restarts, the agents stopped: the labels are the store's and the policy's.
  agents_.clear();
  ASSERT_EQ(server_->Stop(), 0);
  ASSERT_TRUE(server_->Start());
  EXPECT_EQ(ListedLabels(), expected);
  EXPECT_EQ(names(ListedLabels("role=web")), std::vector<std::string>{"LBLWEB1"});

  // A new Hello with other labels replaces the old ones; the policy's site still wins.
  StartAgent("LBLWEB1", {"role=cache"});
  ASSERT_TRUE(WaitUntil([&] {
    return ListedLabels()["LBLWEB1"] == LabelMap{{"role", "cache"}, {"site", "fra"}};
  })) << AgentLog("LBLWEB1");
}

// A label the agent cannot carry stops it at its start, naming the label.
TEST_F(LabelsTest, AnAgentRefusesABadLabelAtItsStart) {
  CommandResult bad =
      RunCommand(*scratch_, {AgentBinary(), "run", "--server", server_->address(), "--insecure",
                             "--host-name", "LBLBAD1", "--label", "role=web", "--label", "2nd=x"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--label: label \"2nd=x\": \"2nd\" is not a label key"));
}

}  // namespace
}  // namespace perfhive::testing
