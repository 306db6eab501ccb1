// End to end across platforms: the Windows agent (perfhive-agent.exe, cross-built with MinGW)
// runs under Wine and streams to a Linux perfhive-server over gRPC with TLS and a token, and the
// Linux perfhive CLI answers for that host. Wine's HKEY_PERFORMANCE_DATA has no objects, so
// values are checked on builder-made Windows snapshots that the Windows agent replays; the
// registry source and the service are checked for shipping and stopping cleanly.
//
// Needs PERFHIVE_WINDOWS_AGENT (the .exe), a Wine prefix (WINEPREFIX) and a persistent
// wineserver (`wineserver -p`: without one, Wine ends services when the last program exits);
// scripts/test-windows.sh provides all three. Labelled wine, so the Linux-only runs leave it out.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/wine.h"
#include "tests/support/answer_points.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kWineAgentSecret[] = "windows-agent-secret-000000001";
constexpr char kWineReaderSecret[] = "windows-reader-secret-00000001";

class WindowsAgentEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* agent = std::getenv("PERFHIVE_WINDOWS_AGENT");
    if (agent == nullptr || *agent == '\0') {
      GTEST_SKIP() << "PERFHIVE_WINDOWS_AGENT is not set; scripts/test-windows.sh runs this test "
                      "with the cross-built perfhive-agent.exe";
    }
    agent_ = agent;
    ASSERT_EQ(access(kWine, X_OK), 0) << kWine << " is missing (scripts/install-deps.sh windows)";
    scratch_ = std::make_unique<ScratchDir>("windows-agent");
    ASSERT_TRUE(MakeCertificates(*scratch_));
    WriteText(*scratch_ / "tokens.toml",
              std::string("[[token]]\nname = \"windows agents\"\nsecret = \"") + kWineAgentSecret +
                  "\"\nwrite = [\"WINE*\"]\n\n[[token]]\nname = \"cli\"\nsecret = \"" +
                  kWineReaderSecret + "\"\nread = true\n");
    WriteText(*scratch_ / "agent.token", kWineAgentSecret);
    WriteText(*scratch_ / "reader.token", kWineReaderSecret);
    server_ = std::make_unique<ServerProcess>(
        *scratch_,
        std::vector<std::string>{"--tls-cert", *scratch_ / "server.pem", "--tls-key",
                                 *scratch_ / "server.key", "--tokens", *scratch_ / "tokens.toml"});
    ASSERT_TRUE(server_->Start());
  }
  void TearDown() override {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0);
    }
  }

  // `perfhive-agent.exe ARGS...` under Wine.
  CommandResult Agent(std::vector<std::string> args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(180)) {
    std::vector<std::string> argv = {kWine, agent_};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(*scratch_, argv, timeout);
  }

  // The `run` flags that reach this test's server over TLS with the agent's token.
  std::vector<std::string> Shipping(const std::string& host) {
    return {"--server",     server_->address(),
            "--ca",         WinePath(*scratch_ / "ca.pem"),
            "--token-file", WinePath(*scratch_ / "agent.token"),
            "--host-name",  host,
            "--spool-dir",  WinePath(*scratch_ / ("spool-" + host))};
  }

  // The Linux CLI with TLS and the read token, its standard output parsed as JSON.
  nlohmann::json Cli(std::vector<std::string> args) {
    std::vector<std::string> argv = {CliBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--server", server_->address(), "--ca", *scratch_ / "ca.pem",
                             "--token-file", *scratch_ / "reader.token", "--format", "json"});
    CommandResult result = RunCommand(*scratch_, argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    if (result.exit_code != 0) return nlohmann::json::object();
    return nlohmann::json::parse(result.out);
  }

  std::string agent_;
  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<ServerProcess> server_;
};

// Proves: the Windows agent ships builder-made Windows snapshots over TLS exactly as they were
// written, and the Linux CLI computes the values they were built with (Processor 0 is 25% busy).
TEST_F(WindowsAgentEndToEndTest, ReplayedSnapshotsArriveOverTlsAndQueryAnswers) {
  ReplayDir dir = WriteReplayDir(*scratch_, "WINE01", 5);
  std::vector<std::string> args = {"run",      "--source",         "replay",
                                   "--replay", WinePath(dir.path), "--interval",
                                   "50ms",     "--timeout",        "120s"};
  std::vector<std::string> shipping = Shipping("WINE01");
  args.insert(args.end(), shipping.begin(), shipping.end());
  CommandResult ran = Agent(args);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("the server answered all 5 files"));

  nlohmann::json snapshots = Cli({"snapshots", "\\\\WINE01"})["snapshots"];
  ASSERT_EQ(snapshots.size(), dir.snapshots.size()) << snapshots.dump(1);
  for (size_t i = 0; i < snapshots.size(); ++i) {
    EXPECT_EQ(snapshots[i]["sha256"], Sha256Hex(dir.snapshots[i])) << "snapshot " << i;
  }

  nlohmann::json series = Cli({"query", "\\\\WINE01\\Processor(0)\\% Processor Time", "--from",
                               "2026-11-22T09:59:00Z", "--to", "2026-11-22T10:01:00Z"})["series"];
  ASSERT_EQ(series.size(), 1u) << series.dump(1);
  EXPECT_EQ(series[0]["path"], "\\\\WINE01\\Processor(0)\\% Processor Time");
  // The first sample has no predecessor, so its point carries a status and no value.
  EXPECT_EQ(ValidValues(series[0]), std::vector<double>(dir.snapshots.size() - 1, 25.0))
      << series.dump(1);
}

// Proves: reading Wine's HKEY_PERFORMANCE_DATA on schedule, the agent ships snapshots the server
// accepts, and stops cleanly at its timeout.
TEST_F(WindowsAgentEndToEndTest, RegistrySnapshotsShipOnSchedule) {
  std::vector<std::string> args = {"run",   "--source",  "hkpd", "--interval",
                                   "500ms", "--timeout", "5s"};
  std::vector<std::string> shipping = Shipping("WINEHKPD");
  args.insert(args.end(), shipping.begin(), shipping.end());
  CommandResult ran = Agent(args);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("; 0 lost"));

  nlohmann::json snapshots = Cli({"snapshots", "\\\\WINEHKPD"})["snapshots"];
  EXPECT_GE(snapshots.size(), 3u) << ran.err;
}

// Proves: a provider disabled in the host's registry (`Disable Performance Counters`, set here
// with Wine's reg.exe) reaches the server from the agent and is a provider-disabled finding of
// `perfhive health` naming the service, its registry key and its library; health exits 6 (a
// finding new since the range began).
TEST_F(WindowsAgentEndToEndTest, ADisabledProviderIsReportedByTheHealthReport) {
  const std::string key =
      "HKLM\\SYSTEM\\CurrentControlSet\\Services\\PerfhiveE2eProvider\\Performance";
  auto reg = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {kWine, "reg"};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult result = RunCommand(*scratch_, argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
  };
  reg({"add", key, "/v", "Disable Performance Counters", "/t", "REG_DWORD", "/d", "1", "/f"});
  reg({"add", key, "/v", "Library", "/t", "REG_SZ", "/d", "perfhive-e2e.dll", "/f"});
  std::vector<std::string> args = {"run",   "--source",  "hkpd", "--interval",
                                   "500ms", "--timeout", "5s"};
  std::vector<std::string> shipping = Shipping("WINEPROVIDERS");
  args.insert(args.end(), shipping.begin(), shipping.end());
  CommandResult ran = Agent(args);
  reg({"delete", "HKLM\\SYSTEM\\CurrentControlSet\\Services\\PerfhiveE2eProvider", "/f"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("service PerfhiveE2eProvider is disabled"));

  CommandResult health =
      RunCommand(*scratch_, {CliBinary(), "health", "WINEPROVIDERS", "--server", server_->address(),
                             "--ca", *scratch_ / "ca.pem", "--token-file",
                             *scratch_ / "reader.token", "--format", "json"});
  EXPECT_EQ(health.exit_code, 6) << health.err << health.out;
  nlohmann::json report = nlohmann::json::parse(health.out);
  int found = 0;
  for (const nlohmann::json& finding : report["findings"]) {
    if (finding["kind"] != "provider-disabled") continue;
    ++found;
    EXPECT_EQ(finding["counter"], "PerfhiveE2eProvider");
    ASSERT_EQ(finding["hosts"].size(), 1u);
    EXPECT_EQ(finding["hosts"][0]["host"], "WINEPROVIDERS");
    const std::string cause = finding["hosts"][0]["cause"];
    EXPECT_THAT(cause, HasSubstr(key));
    EXPECT_THAT(cause, HasSubstr("perfhive-e2e.dll"));
  }
  EXPECT_EQ(found, 1) << report.dump(1);
}

// Proves: the agentless poller on Windows (RegConnectRegistryW; Wine connects a name only when it
// is its own computer's) ships the host it reads under the name it is given, marked agentless.
TEST_F(WindowsAgentEndToEndTest, ARemoteRegistryTargetShipsAsAnAgentlessHost) {
  CommandResult named = RunCommand(*scratch_, {kWine, "cmd", "/c", "echo", "%COMPUTERNAME%"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  std::string computer = named.out.substr(0, named.out.find_first_of("\r\n"));
  ASSERT_FALSE(computer.empty());
  std::vector<std::string> args = {
      "run", "--target", "\\\\" + computer, "--interval", "500ms", "--timeout", "5s"};
  std::vector<std::string> shipping = Shipping("WINEREMOTE");
  args.insert(args.end(), shipping.begin(), shipping.end());
  CommandResult ran = Agent(args);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("; 0 lost"));

  nlohmann::json hosts = Cli({"hosts"})["hosts"];
  ASSERT_EQ(hosts.size(), 1u) << hosts.dump(1);
  EXPECT_EQ(hosts[0]["name"], "WINEREMOTE");
  EXPECT_EQ(hosts[0]["source"], "agentless") << hosts.dump(1);
  EXPECT_GE(Cli({"snapshots", "\\\\WINEREMOTE"})["snapshots"].size(), 3u) << ran.err;
}

// Proves: installed as a service, the agent is started by the service control manager, ships,
// and stops cleanly when the manager asks (logging why), then uninstalls.
TEST_F(WindowsAgentEndToEndTest, TheServiceStartsShipsAndStopsCleanly) {
  std::string config = *scratch_ / "agent.toml";
  std::string log = *scratch_ / "service.log";
  auto quoted = [](const std::string& text) {
    std::string escaped;
    for (char c : text) escaped += c == '\\' ? std::string("\\\\") : std::string(1, c);
    return "\"" + escaped + "\"";
  };
  WriteText(config, "server = " + quoted(server_->address()) +
                        "\nca = " + quoted(WinePath(*scratch_ / "ca.pem")) +
                        "\ntoken_file = " + quoted(WinePath(*scratch_ / "agent.token")) +
                        "\nhost_name = \"WINESVC\"\nsource = \"hkpd\"\ninterval = \"500ms\"\n" +
                        "spool_dir = " + quoted(WinePath(*scratch_ / "spool-svc")) + "\n");
  const std::string name = "perfhive-agent-e2e";
  CommandResult installed = Agent({"service", "install", "--name", name, "--config",
                                   WinePath(config), "--log-file", WinePath(log)});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  EXPECT_THAT(installed.out, HasSubstr("installed service " + name));

  CommandResult started = RunCommand(*scratch_, {kWine, "net", "start", name});
  EXPECT_EQ(started.exit_code, 0) << started.out << started.err;
  EXPECT_GE(
      WaitForSnapshots(*scratch_, *server_, "WINESVC", 3,
                       {"--ca", *scratch_ / "ca.pem", "--token-file", *scratch_ / "reader.token"})
          .size(),
      3u);

  CommandResult stopped = RunCommand(*scratch_, {kWine, "net", "stop", name});
  EXPECT_EQ(stopped.exit_code, 0) << stopped.out << stopped.err;
  CommandResult uninstalled = Agent({"service", "uninstall", "--name", name});
  EXPECT_EQ(uninstalled.exit_code, 0) << uninstalled.err;

  std::ifstream log_file(log);
  std::string log_text((std::istreambuf_iterator<char>(log_file)),
                       std::istreambuf_iterator<char>());
  EXPECT_THAT(log_text, HasSubstr("stopping on signal"));
  EXPECT_THAT(log_text, HasSubstr("stopped WINESVC (agent): "));
}

// Proves: the Windows agent trusts a server made by `perfhive-server init` by the printed
// fingerprint alone (the pin checked by OpenSSL inside the MinGW build), shipping every replayed
// snapshot byte for byte; pinned to another fingerprint it ships nothing and says why.
TEST(WindowsPinnedAgentEndToEndTest, TheFingerprintAloneReachesAServerMadeByInit) {
  const char* agent = std::getenv("PERFHIVE_WINDOWS_AGENT");
  if (agent == nullptr || *agent == '\0') {
    GTEST_SKIP() << "PERFHIVE_WINDOWS_AGENT is not set; scripts/test-windows.sh runs this test";
  }
  ScratchDir scratch("windows-pinned");
  std::string pin = InitServerCa(scratch, scratch / "server-data", {"--name", "central.example"});
  ASSERT_FALSE(pin.empty());
  WriteAgentAndReaderTokens(scratch, kWineAgentSecret, "WINEPIN*", kWineReaderSecret);
  ServerProcess server(scratch, {"--tokens", scratch / "tokens.toml"});
  ASSERT_TRUE(server.Start());
  auto run = [&](const std::string& host, const ReplayDir& dir, const std::string& fingerprint,
                 const char* timeout) {
    std::vector<std::string> argv = {
        kWine,        agent,  "run",       "--source", "replay", "--replay", WinePath(dir.path),
        "--interval", "50ms", "--timeout", timeout};
    argv.insert(argv.end(), {"--server", server.address(), "--ca-sha256", fingerprint,
                             "--token-file", WinePath(scratch / "agent.token"), "--host-name", host,
                             "--spool-dir", WinePath(scratch / ("spool-" + host))});
    return RunCommand(scratch, argv, std::chrono::seconds(180));
  };
  ReplayDir dir = WriteReplayDir(scratch, "WINEPIN1", 4);
  CommandResult ran = run("WINEPIN1", dir, pin, "120s");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  nlohmann::json stored =
      WaitForSnapshots(scratch, server, "WINEPIN1", dir.snapshots.size(),
                       {"--ca-sha256", pin, "--token-file", scratch / "reader.token"});
  ASSERT_EQ(stored.size(), dir.snapshots.size()) << stored.dump(1);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(dir.snapshots[i])) << i;
  }

  std::string wrong = "sha256:" + std::string(64, 'a');
  CommandResult refused = run("WINEPIN2", WriteReplayDir(scratch, "WINEPIN2", 2), wrong, "3s");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("include no CA with the pinned " + wrong));
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a new Windows agent joins a server made by `perfhive-server init` with nothing but an
// enrollment token and the fingerprint: it makes its key under %ProgramData%, gets its
// certificate, and ships every replayed snapshot over mutual TLS; revoked, it is refused at its
// next connection.
TEST(WindowsEnrolledAgentEndToEndTest, ATokenAndAFingerprintAreAllItNeeds) {
  const char* agent = std::getenv("PERFHIVE_WINDOWS_AGENT");
  const char* prefix = std::getenv("WINEPREFIX");
  if (agent == nullptr || *agent == '\0' || prefix == nullptr) {
    GTEST_SKIP() << "PERFHIVE_WINDOWS_AGENT and WINEPREFIX are not set; scripts/test-windows.sh "
                    "runs this test";
  }
  ScratchDir scratch("windows-enrolled");
  std::string data = scratch / "server-data";
  std::string pin = InitServerCa(scratch, data, {"--name", "localhost"});
  ASSERT_FALSE(pin.empty());
  CommandResult created = RunCommand(
      scratch, {ServerBinary(), "enroll", "create", "--data", data, "--hosts", "WINENROLL*"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string token = created.out.substr(0, created.out.find('\n'));
  WriteText(scratch / "tokens.toml", std::string("[[token]]\nname = \"cli\"\nsecret = \"") +
                                         kWineReaderSecret + "\"\nread = true\n");
  WriteText(scratch / "reader.token", kWineReaderSecret);
  ServerProcess server(scratch, {"--tokens", scratch / "tokens.toml"});
  ASSERT_TRUE(server.Start());
  const std::string credentials =
      std::string(prefix) + "/drive_c/ProgramData/perfhive/agent/credentials/winenroll1";
  std::filesystem::remove_all(credentials);

  auto run = [&](const ReplayDir& dir, const char* timeout) {
    return RunCommand(scratch,
                      {kWine,
                       agent,
                       "run",
                       "--source",
                       "replay",
                       "--replay",
                       WinePath(dir.path),
                       "--interval",
                       "50ms",
                       "--timeout",
                       timeout,
                       "--server",
                       server.address(),
                       "--ca-sha256",
                       pin,
                       "--enroll",
                       token,
                       "--host-name",
                       "WINENROLL1",
                       "--spool-dir",
                       WinePath(scratch / ("spool-" + dir.path.substr(dir.path.rfind('/') + 1)))},
                      std::chrono::seconds(180));
  };
  ReplayDir dir = WriteReplayDir(scratch, "WINENROLL1", 4);
  CommandResult ran = run(dir, "120s");
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("enrolled WINENROLL1"));
  EXPECT_TRUE(std::filesystem::exists(credentials + "/key.pem"));
  nlohmann::json stored =
      WaitForSnapshots(scratch, server, "WINENROLL1", dir.snapshots.size(),
                       {"--ca-sha256", pin, "--token-file", scratch / "reader.token"});
  ASSERT_EQ(stored.size(), dir.snapshots.size()) << stored.dump(1);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(dir.snapshots[i])) << i;
  }

  CommandResult revoked =
      RunCommand(scratch, {ServerBinary(), "hosts", "revoke", "WINENROLL1", "--data", data});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  CommandResult cut = run(WriteReplayDir(scratch, "WINENROLL1-later", 2, 100), "5s");
  EXPECT_NE(cut.exit_code, 0);
  EXPECT_THAT(cut.err, HasSubstr("was revoked"));
  std::filesystem::remove_all(credentials);
  EXPECT_EQ(server.Stop(), 0);
}

// Proves issue 22's whole path for a Windows agent: it joins a server made by init with an
// enrollment token and the fingerprint, ships Wine's registry snapshots, takes a policy written
// while it runs (Global every 300 ms instead of its local hourly Global) without a restart,
// reports the local query the plan overrides, and a revocation cuts it off.
TEST(WindowsEnrolledAgentEndToEndTest, APolicyChangeAppliesWithoutARestartAndRevocationCutsOff) {
  const char* agent = std::getenv("PERFHIVE_WINDOWS_AGENT");
  const char* prefix = std::getenv("WINEPREFIX");
  if (agent == nullptr || *agent == '\0' || prefix == nullptr) {
    GTEST_SKIP() << "PERFHIVE_WINDOWS_AGENT and WINEPREFIX are not set; scripts/test-windows.sh "
                    "runs this test";
  }
  ScratchDir scratch("windows-policies");
  std::string data = scratch / "server-data";
  std::string pin = InitServerCa(scratch, data, {"--name", "localhost"});
  ASSERT_FALSE(pin.empty());
  CommandResult created = RunCommand(scratch, {ServerBinary(), "enroll", "create", "--data", data,
                                               "--hosts", "WINPOL*", "--uses", "1"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string token = created.out.substr(0, created.out.find('\n'));
  WriteText(scratch / "tokens.toml", std::string("[[token]]\nname = \"cli\"\nsecret = \"") +
                                         kWineReaderSecret + "\"\nread = true\n");
  WriteText(scratch / "reader.token", kWineReaderSecret);
  const std::string policies = scratch / "policies.toml";
  WriteText(policies, "[[policy]]\nname = \"databases\"\nhosts = [\"db*\"]\n");
  ServerProcess server(scratch, {"--tokens", scratch / "tokens.toml", "--policies", policies});
  ASSERT_TRUE(server.Start());
  const std::string credentials =
      std::string(prefix) + "/drive_c/ProgramData/perfhive/agent/credentials/winpol1";
  std::filesystem::remove_all(credentials);
  const std::vector<std::string> reader = {"--ca-sha256", pin, "--token-file",
                                           scratch / "reader.token"};

  ChildProcess running({kWine, agent, "run", "--source", "hkpd", "--query", "Global@1h", "--server",
                        server.address(), "--ca-sha256", pin, "--enroll", token, "--host-name",
                        "WINPOL1", "--spool-dir", WinePath(scratch / "spool")},
                       scratch / "agent.out", scratch / "agent.err");
  auto log = [&] { return ReadWholeFile(scratch / "agent.err"); };
  ASSERT_EQ(
      WaitForSnapshots(scratch, server, "WINPOL1", 1, reader, std::chrono::seconds(120)).size(), 1u)
      << log();
  EXPECT_THAT(log(), HasSubstr("enrolled WINPOL1"));

  std::string written =
      "[[policy]]\nname = \"windows\"\nhosts = [\"WINPOL*\"]\n"
      "queries = [\"Global@300ms\"]\n";
  WriteText(policies + ".new", written);
  std::filesystem::rename(policies + ".new", policies);
  nlohmann::json host;
  ASSERT_TRUE(WaitUntil(
      [&] {
        host = HostEntry(scratch, server, "WINPOL1", reader);
        return host.is_object() && !host.value("plan_latest", "").empty() &&
               host.value("plan_revision", "") == host.value("plan_latest", "");
      },
      std::chrono::seconds(60)))
      << host.dump(1) << log();
  EXPECT_THAT(host.value("plan_report", ""),
              HasSubstr("local queries Global@1h is overridden by policy windows: Global@300ms"));
  EXPECT_GE(
      WaitForSnapshots(scratch, server, "WINPOL1", 5, reader, std::chrono::seconds(60)).size(), 5u)
      << log();
  EXPECT_TRUE(running.running()) << log();

  CommandResult revoked =
      RunCommand(scratch, {ServerBinary(), "hosts", "revoke", "WINPOL1", "--data", data});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_TRUE(WaitUntil([&] { return log().find("was revoked") != std::string::npos; },
                        std::chrono::seconds(60)))
      << log();
  running.Signal(SIGTERM);
  running.Wait(std::chrono::seconds(30));
  std::filesystem::remove_all(credentials);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace perfhive::testing
