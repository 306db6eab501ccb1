// End to end, agentless: a real smbd serving HKEY_PERFORMANCE_DATA on loopback with data this
// test writes (tests/support/samba_server.h), a real perfhive-server, and one perfhive-agent
// polling that smbd as two hosts plus a third target nothing listens on. Skipped where Samba
// cannot run (not root, not installed).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/e2e/e2e_cluster.h"
#include "tests/support/answer_points.h"
#include "tests/support/samba_server.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr uint32_t kRawCount = 0x00010000;       // PERF_COUNTER_RAWCOUNT
constexpr uint32_t kLargeRawCount = 0x00010100;  // PERF_COUNTER_LARGE_RAWCOUNT

SambaPerfData Widgets() {
  return SambaPerfData{.perf_time = 1000000,
                       .perf_time_100ns = 133500000000000000,
                       .perf_freq = 10000000,
                       .objects = {
                           SambaObject{.name = "Widget",
                                       .instances = {"alpha", "beta"},
                                       .counters = {{"Widgets Made", kRawCount, 0, {11, 22}}}},
                           SambaObject{.name = "Host",
                                       .instances = {},
                                       .counters = {{"Uptime Seconds", kLargeRawCount, 86400, {}}}},
                       }};
}

// `perfhive hosts` as JSON, by host name.
std::map<std::string, nlohmann::json> Hosts(const ScratchDir& scratch,
                                            const ServerProcess& server) {
  CommandResult hosts = RunCommand(scratch, {CliBinary(), "hosts", "--server", server.address(),
                                             "--insecure", "--format", "json"});
  std::map<std::string, nlohmann::json> by_name;
  EXPECT_EQ(hosts.exit_code, 0) << hosts.err;
  if (hosts.exit_code != 0) return by_name;
  nlohmann::json listed = nlohmann::json::parse(hosts.out);
  for (const auto& host : listed["hosts"]) {
    by_name[host["name"].get<std::string>()] = host;
  }
  return by_name;
}

// The latest valid value of each series `path` selects, by series path.
std::map<std::string, double> Query(const ScratchDir& scratch, const ServerProcess& server,
                                    const std::string& path) {
  CommandResult answer = RunCommand(scratch, {CliBinary(), "query", path, "--server",
                                              server.address(), "--insecure", "--format", "json"});
  EXPECT_EQ(answer.exit_code, 0) << answer.err;
  std::map<std::string, double> latest;
  if (answer.exit_code != 0) return latest;
  nlohmann::json parsed = nlohmann::json::parse(answer.out);
  for (const auto& series : parsed["series"]) {
    std::vector<double> values = ValidValues(series);
    if (!values.empty()) latest[series["path"]] = values.back();
  }
  return latest;
}

// A server made by `perfhive-server init` for pollers of `samba`'s hosts: the smbd account in a
// credentials file, the data directory, the CA's fingerprint, and the CLI's reader flags (the
// token is in tokens.toml, which the server is to be given).
struct SecureSite {
  std::string credentials;
  std::string data;
  std::string pin;
  std::vector<std::string> reader;
};
SecureSite MakeSecureSite(const ScratchDir& scratch, const SambaServer& samba) {
  SecureSite site;
  site.credentials = scratch / "smb.auth";
  WriteText(site.credentials, "username = " + samba.options().user +
                                  "\npassword = " + samba.options().password + "\n");
  chmod(site.credentials.c_str(), 0600);
  site.data = scratch / "server-data";
  site.pin = InitServerCa(scratch, site.data, {"--name", "localhost"});
  WriteText(scratch / "tokens.toml",
            "[[token]]\nname = \"cli\"\nsecret = \"agentless-reader-secret-0001\"\nread = true\n");
  WriteText(scratch / "reader.token", "agentless-reader-secret-0001");
  site.reader = {"--ca-sha256", site.pin, "--token-file", scratch / "reader.token"};
  return site;
}

// An enrollment token of `data`'s server for `hosts` (patterns), good for one use.
std::string EnrollmentToken(const ScratchDir& scratch, const std::string& data,
                            const std::vector<std::string>& hosts) {
  std::vector<std::string> argv = {ServerBinary(), "enroll", "create", "--data",
                                   data,           "--uses", "1"};
  for (const std::string& host : hosts) argv.insert(argv.end(), {"--hosts", host});
  CommandResult created = RunCommand(scratch, argv);
  EXPECT_EQ(created.exit_code, 0) << created.err;
  return created.out.substr(0, created.out.find('\n'));
}

// Proves: one agent polls several hosts without an agent, each shipped under its own name and
// marked agentless; the server stores both live hosts' snapshots and `perfhive query` answers
// with the values written into smbd; the dead target shows why in `perfhive hosts` while the
// live ones keep their schedule; a provider disabled in smbd's registry is one provider-disabled
// finding of `perfhive health` on both live hosts, and each live host's objects are timed alone.
TEST(AgentlessEndToEndTest, OneAgentPollsTwoLiveHostsAndReportsTheDeadOne) {
  if (std::string why = SambaServer::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  SambaServer samba;
  ASSERT_TRUE(samba.ready()) << samba.log();
  samba.Write(Widgets());
  const std::string provider_key =
      "HKLM\\SYSTEM\\CurrentControlSet\\Services\\WidgetService\\Performance";
  ASSERT_TRUE(samba.SetRegistryValue(provider_key, "Disable Performance Counters", "dword", "1"))
      << samba.log();

  ScratchDir scratch("agentless");
  std::string credentials = scratch / "smb.auth";
  {
    std::ofstream file(credentials);
    file << "username = " << samba.options().user << "\npassword = " << samba.options().password
         << "\n";
  }
  chmod(credentials.c_str(), 0600);
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  int dead_port = UnusedLoopbackPort();  // nothing listens there
  std::string dead = "\\\\127.0.0.1:" + std::to_string(dead_port);
  auto started = std::chrono::steady_clock::now();
  ChildProcess agent({AgentBinary(), "run", "--server", server.address(), "--insecure", "--target",
                      samba.target() + "=WINA", "--target", samba.target() + "=WINB", "--target",
                      dead + "=WINDEAD", "--credentials", credentials, "--interval", "1500ms",
                      "--spool-dir", scratch / "spool"},
                     scratch / "agent.out", scratch / "agent.err");

  // Three slots of a 1.5 s schedule: the dead host must not eat them. (Not faster: smbd's
  // emulated registry reports SystemTime in whole seconds and the PerfTime it was given, so two
  // reads within one second are one sample to the server, and their stray padding differs.)
  std::map<std::string, nlohmann::json> hosts;
  while (std::chrono::steady_clock::now() - started < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    hosts = Hosts(scratch, server);
    if (hosts.count("WINA") && hosts["WINA"]["snapshots"] >= 3 && hosts.count("WINB") &&
        hosts["WINB"]["snapshots"] >= 3 && hosts.count("WINDEAD") &&
        !hosts["WINDEAD"]["last_error"].get<std::string>().empty()) {
      break;
    }
  }
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(hosts.count("WINA"), 1u) << ReadWholeFile(scratch / "agent.err");
  ASSERT_EQ(hosts.count("WINB"), 1u) << ReadWholeFile(scratch / "agent.err");
  ASSERT_EQ(hosts.count("WINDEAD"), 1u) << ReadWholeFile(scratch / "agent.err");
  EXPECT_LT(took, std::chrono::seconds(10)) << ReadWholeFile(scratch / "agent.err");
  for (const char* name : {"WINA", "WINB"}) {
    EXPECT_GE(hosts[name]["snapshots"], 3) << name;
    EXPECT_EQ(hosts[name]["source"], "agentless") << name;
    EXPECT_EQ(hosts[name]["os"], "Windows") << name;
    EXPECT_EQ(hosts[name]["last_error"], "") << name;
  }
  EXPECT_EQ(hosts["WINDEAD"]["source"], "agentless");
  EXPECT_EQ(hosts["WINDEAD"]["snapshots"], 0);
  std::string error = hosts["WINDEAD"]["last_error"];
  EXPECT_THAT(error, HasSubstr(dead));
  EXPECT_THAT(error, HasSubstr("host unreachable"));

  std::map<std::string, double> widgets =
      Query(scratch, server, "\\\\WIN*\\Widget(*)\\Widgets Made");
  EXPECT_EQ(widgets, (std::map<std::string, double>{{"\\\\WINA\\Widget(alpha)\\Widgets Made", 11},
                                                    {"\\\\WINA\\Widget(beta)\\Widgets Made", 22},
                                                    {"\\\\WINB\\Widget(alpha)\\Widgets Made", 11},
                                                    {"\\\\WINB\\Widget(beta)\\Widgets Made", 22}}));
  std::map<std::string, double> uptime = Query(scratch, server, "\\\\WINB\\Host\\Uptime Seconds");
  EXPECT_EQ(uptime, (std::map<std::string, double>{{"\\\\WINB\\Host\\Uptime Seconds", 86400}}));

  // The poller checked each target's providers at its first poll; exit 6: a finding is new.
  CommandResult health = RunCommand(scratch, {CliBinary(), "health", "--server", server.address(),
                                              "--insecure", "--format", "json"});
  EXPECT_EQ(health.exit_code, 6) << health.err << health.out;
  const nlohmann::json report = nlohmann::json::parse(health.out);
  std::vector<std::string> disabled_on;
  for (const nlohmann::json& finding : report["findings"]) {
    if (finding["kind"] != "provider-disabled") continue;
    EXPECT_EQ(finding["counter"], "WidgetService");
    for (const nlohmann::json& host : finding["hosts"]) {
      disabled_on.push_back(host["host"]);
      EXPECT_THAT(host["cause"].get<std::string>(), HasSubstr(provider_key));
    }
  }
  EXPECT_EQ(disabled_on, (std::vector<std::string>{"WINA", "WINB"})) << health.out;
  // Each live target's objects were timed alone over MS-RRP (one BaseRegQueryValue each, from
  // the second poll on); the dead one has none.
  std::map<std::string, std::set<std::string>> timed;
  for (const nlohmann::json& host : report["slowest_objects"]) {
    for (const nlohmann::json& object : host["objects"]) {
      timed[host["host"]].insert(object["object"].get<std::string>());
      EXPECT_GT(object["seconds"].get<double>(), 0) << host.dump();
    }
  }
  const std::set<std::string> widget_objects = {"Host", "Widget"};
  EXPECT_EQ(timed, (std::map<std::string, std::set<std::string>>{{"WINA", widget_objects},
                                                                 {"WINB", widget_objects}}))
      << health.out;

  agent.Signal(SIGTERM);
  EXPECT_EQ(agent.Wait(std::chrono::seconds(30)), 0) << ReadWholeFile(scratch / "agent.err");
  std::string log = ReadWholeFile(scratch / "agent.err");
  EXPECT_THAT(log, HasSubstr("[WINDEAD] "));
  EXPECT_THAT(log, Not(HasSubstr(samba.options().password)));
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: an agentless poller enrolls once, as itself, for the hosts it polls: its one
// certificate writes as each of them, `hosts list` names them, a token whose patterns miss a
// target is refused naming it, and revoking one polled host ends the poller's credential.
TEST(AgentlessEndToEndTest, APollerEnrollsOnceForTheHostsItPolls) {
  if (std::string why = SambaServer::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  SambaServer samba;
  ASSERT_TRUE(samba.ready()) << samba.log();
  samba.Write(Widgets());

  ScratchDir scratch("agentless-enrolled");
  setenv("STATE_DIRECTORY", (scratch / "agent-state").c_str(), 1);
  SecureSite site = MakeSecureSite(scratch, samba);
  ASSERT_FALSE(site.pin.empty());
  const std::string& data = site.data;
  const std::string& pin = site.pin;
  const std::string& credentials = site.credentials;
  ServerProcess server(scratch, {"--tokens", scratch / "tokens.toml"});
  ASSERT_TRUE(server.Start());
  auto poller = [&](const std::string& token, const std::string& second) {
    return std::vector<std::string>{AgentBinary(),   "run",
                                    "--server",      server.address(),
                                    "--ca-sha256",   pin,
                                    "--enroll",      token,
                                    "--poller-name", "POLLER1",
                                    "--target",      samba.target() + "=WINPA",
                                    "--target",      samba.target() + "=" + second,
                                    "--credentials", credentials,
                                    "--interval",    "1500ms",
                                    "--spool-dir",   scratch / "spool"};
  };

  // A token for the poller and one of its hosts only: refused, naming the other; nothing spent.
  std::vector<std::string> narrow =
      poller(EnrollmentToken(scratch, data, {"POLLER1", "WINPA"}), "WINPC");
  narrow.insert(narrow.end(), {"--timeout", "20s"});
  CommandResult refused = RunCommand(scratch, narrow);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("is not for the polled host WINPC"));

  ChildProcess agent(poller(EnrollmentToken(scratch, data, {"POLLER*", "WINP*"}), "WINPB"),
                     scratch / "agent.out", scratch / "agent.err");
  const std::vector<std::string>& reader = site.reader;
  nlohmann::json a, b;
  ASSERT_TRUE(WaitUntil([&] {
    a = HostEntry(scratch, server, "WINPA", reader);
    b = HostEntry(scratch, server, "WINPB", reader);
    return a.is_object() && b.is_object() && a["snapshots"] >= 2 && b["snapshots"] >= 2;
  })) << ReadWholeFile(scratch / "agent.err");
  for (const nlohmann::json& host : {a, b}) {
    EXPECT_EQ(host["source"], "agentless") << host.dump();
    EXPECT_EQ(host["credential"], "enrolled") << host.dump();
  }
  EXPECT_THAT(ReadWholeFile(scratch / "agent.err"), HasSubstr("enrolled POLLER1"));
  CommandResult listed = RunCommand(scratch, {ServerBinary(), "hosts", "list", "--data", data});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("(polls WINPA WINPB)"));

  // Revoking one polled host ends the poller's one credential: every stream of it.
  CommandResult revoked =
      RunCommand(scratch, {ServerBinary(), "hosts", "revoke", "WINPB", "--data", data});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_TRUE(WaitUntil([&] {
    std::string log = ReadWholeFile(scratch / "agent.err");
    return log.find("[WINPA] ") != std::string::npos &&
           log.find("was revoked") != std::string::npos &&
           HostEntry(scratch, server, "WINPA", reader).value("credential", "") == "revoked";
  })) << ReadWholeFile(scratch / "agent.err");
  agent.Signal(SIGTERM);
  agent.Wait(std::chrono::seconds(30));
  unsetenv("STATE_DIRECTORY");
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a poller that follows the center (--poller, default spool and state) polls the hosts
// its policy names, enrolled with a token for itself alone; a policy change adds and takes
// away polled hosts in the same process; the server lets the poller's certificate write as a
// host only while the policy gives it that host (a copy of the agent still polling a host taken
// away is refused, naming the poller); and the poller's own row shows the plan it applied.
TEST(AgentlessEndToEndTest, APollerPollsTheHostsItsPolicyGivesIt) {
  if (std::string why = SambaServer::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  SambaServer samba;
  ASSERT_TRUE(samba.ready()) << samba.log();
  samba.Write(Widgets());

  ScratchDir scratch("agentless-policy");
  setenv("STATE_DIRECTORY", (scratch / "agent-state").c_str(), 1);
  SecureSite site = MakeSecureSite(scratch, samba);
  ASSERT_FALSE(site.pin.empty());
  const std::string& pin = site.pin;
  const std::string& credentials = site.credentials;
  std::string policies = scratch / "policies.toml";
  auto give = [&](const std::vector<std::string>& names) {
    std::string text = "[[policy]]\nname = \"pollers\"\nhosts = [\"POLLER2\"]\ntargets = [";
    for (const std::string& name : names) text += "'" + samba.target() + "=" + name + "', ";
    WriteText(policies + ".new", text + "]\n");
    std::filesystem::rename(policies + ".new", policies);
  };
  give({"WINQA"});
  ServerProcess server(scratch, {"--tokens", scratch / "tokens.toml", "--policies", policies});
  ASSERT_TRUE(server.Start());
  std::string token = EnrollmentToken(scratch, site.data, {"POLLER2"});

  ChildProcess agent({AgentBinary(), "run", "--server", server.address(), "--ca-sha256", pin,
                      "--enroll", token, "--poller", "--poller-name", "POLLER2", "--credentials",
                      credentials, "--interval", "1500ms"},
                     scratch / "agent.out", scratch / "agent.err");
  const std::vector<std::string>& reader = site.reader;
  auto snapshots = [&](const std::string& host) -> int {
    nlohmann::json entry = HostEntry(scratch, server, host, reader);
    return entry.is_object() ? entry.value("snapshots", 0) : 0;
  };
  ASSERT_TRUE(WaitUntil([&] { return snapshots("WINQA") >= 2; }))
      << ReadWholeFile(scratch / "agent.err");
  nlohmann::json a = HostEntry(scratch, server, "WINQA", reader);
  EXPECT_EQ(a["source"], "agentless") << a.dump();
  nlohmann::json own;
  EXPECT_TRUE(WaitUntil([&] {
    own = HostEntry(scratch, server, "POLLER2", reader);
    return own.is_object() && !own.value("plan_revision", "").empty() &&
           own.value("plan_revision", "") == own.value("plan_latest", "");
  })) << own.dump();
  EXPECT_EQ(own["source"], "poller") << own.dump();
  EXPECT_EQ(own.value("snapshots", 0), 0) << own.dump();

  // Given a second host: polled by the same process.
  give({"WINQA", "WINQB"});
  EXPECT_TRUE(WaitUntil([&] { return snapshots("WINQB") >= 2; }))
      << ReadWholeFile(scratch / "agent.err");
  EXPECT_TRUE(agent.running());

  // The first taken away: no longer polled, while the second goes on.
  give({"WINQB"});
  ASSERT_TRUE(WaitUntil([&] {
    return ReadWholeFile(scratch / "agent.err").find("no longer polling WINQA") !=
           std::string::npos;
  })) << ReadWholeFile(scratch / "agent.err");
  int a_after = snapshots("WINQA");
  int b_after = snapshots("WINQB");
  std::this_thread::sleep_for(std::chrono::seconds(4));
  EXPECT_EQ(snapshots("WINQA"), a_after);
  EXPECT_GT(snapshots("WINQB"), b_after);

  // The server holds the poller to its policy: the poller's certificate, used by another run
  // that still polls WINQA, may not write as it.
  CommandResult stale = RunCommand(
      scratch, {AgentBinary(), "run", "--server", server.address(), "--ca-sha256", pin,
                "--poller-name", "POLLER2", "--target", samba.target() + "=WINQA", "--credentials",
                credentials, "--interval", "1500ms", "--timeout", "5s"});
  EXPECT_THAT(stale.err, HasSubstr("may not send snapshots as host \"WINQA\", and no policy "
                                   "gives it to poller \"POLLER2\" to poll"));
  EXPECT_EQ(snapshots("WINQA"), a_after);

  agent.Signal(SIGTERM);
  EXPECT_EQ(agent.Wait(std::chrono::seconds(30)), 0) << ReadWholeFile(scratch / "agent.err");
  unsetenv("STATE_DIRECTORY");
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace perfhive::testing
