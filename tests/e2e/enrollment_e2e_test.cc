// End to end: agents that hold nothing but an enrollment token and the server's CA fingerprint
// join a server made by `perfhive-server init`, get a client certificate of their own and ship
// over mutual TLS; tokens that are expired, revoked, used up or for other hosts are refused; a
// host's certificate writes as that host only; a revoked host is cut off at its next
// connection; a reader is listed and revoked apart from the host whose name it took. Real
// processes on loopback; docs/enrollment.md.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "tests/e2e/e2e_cluster.h"
#include "tests/support/child_process.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kEnrollmentReaderSecret[] = "enrollment-reader-secret-000001";

class EnrollmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<ScratchDir>("enrollment");
    // The agents' credentials go to their state directory, as under systemd.
    setenv("STATE_DIRECTORY", (*scratch_ / "agent-state").c_str(), 1);
    fingerprint_ = InitServerCa(*scratch_, *scratch_ / "server-data", {"--name", "localhost"});
    ASSERT_FALSE(fingerprint_.empty());
    // Only the CLI has a token; agents have their certificates.
    WriteText(*scratch_ / "tokens.toml", std::string("[[token]]\nname = \"cli\"\nsecret = \"") +
                                             kEnrollmentReaderSecret + "\"\nread = true\n");
    WriteText(*scratch_ / "reader.token", kEnrollmentReaderSecret);
    server_ = std::make_unique<ServerProcess>(
        *scratch_, std::vector<std::string>{"--tokens", *scratch_ / "tokens.toml"});
    ASSERT_TRUE(server_->Start());
  }
  void TearDown() override {
    unsetenv("STATE_DIRECTORY");
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0);
    }
  }

  // `perfhive-server ARGS... --data DIR`, its first line of output (a token: the text).
  CommandResult Admin(std::vector<std::string> args) {
    std::vector<std::string> argv = {ServerBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--data", *scratch_ / "server-data"});
    return RunCommand(*scratch_, argv);
  }
  std::string CreateToken(std::vector<std::string> flags) {
    std::vector<std::string> args = {"enroll", "create"};
    args.insert(args.end(), flags.begin(), flags.end());
    CommandResult created = Admin(args);
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return created.out.substr(0, created.out.find('\n'));
  }

  // An agent's settings file with the server, the fingerprint, an enrollment token and the host
  // name, replaying `dir`.
  std::string AgentConfig(const std::string& host, const std::string& token, const ReplayDir& dir) {
    std::string path = *scratch_ / (host + ".toml");
    WriteText(path, "server = \"" + server_->address() + "\"\nca_sha256 = \"" + fingerprint_ +
                        "\"\nenroll = \"" + token + "\"\nhost_name = \"" + host +
                        "\"\nsource = \"replay\"\nreplay = \"" + dir.path +
                        "\"\ninterval = \"50ms\"\nspool_dir = \"" + *scratch_ / ("spool-" + host) +
                        "\"\n");
    return path;
  }
  CommandResult RunAgent(const std::string& config, const char* timeout = "60s") {
    return RunCommand(*scratch_, {AgentBinary(), "run", "--config", config, "--timeout", timeout},
                      std::chrono::seconds(90));
  }
  // The agent for `host` with its certificate from an earlier enrollment (no token), replaying
  // `dir` into the spool folder `spool`.
  CommandResult RunEnrolled(const std::string& host, const ReplayDir& dir, const std::string& spool,
                            const char* timeout) {
    return RunCommand(
        *scratch_,
        {AgentBinary(), "run", "--server", server_->address(), "--ca-sha256", fingerprint_,
         "--host-name", host, "--source", "replay", "--replay", dir.path, "--interval", "50ms",
         "--spool-dir", *scratch_ / spool, "--timeout", timeout},
        std::chrono::seconds(90));
  }
  std::string Credentials(const std::string& host) {
    return *scratch_ / ("agent-state/credentials/" + host);
  }
  nlohmann::json Stored(const std::string& host) {
    return StoredSnapshots(
        *scratch_, *server_, host,
        {"--ca-sha256", fingerprint_, "--token-file", *scratch_ / "reader.token"});
  }

  // `perfhive hosts --format json`: the hosts the server holds snapshots of.
  nlohmann::json Hosts() {
    CommandResult listed = RunCommand(
        *scratch_, {CliBinary(), "hosts", "--server", server_->address(), "--ca-sha256",
                    fingerprint_, "--token-file", *scratch_ / "reader.token", "--format", "json"});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    if (listed.exit_code != 0) return nlohmann::json::array();
    return nlohmann::json::parse(listed.out)["hosts"];
  }
  std::vector<std::string> KnownHosts() {
    std::vector<std::string> names;
    for (const auto& host : Hosts()) names.push_back(host["name"]);
    return names;
  }

  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<ServerProcess> server_;
  std::string fingerprint_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Proves: an agent given an enrollment token and the fingerprint enrolls (its key made here and
// kept owner-only), ships every replayed snapshot byte for byte over mutual TLS without any
// bearer token, and removes the spent token from its settings file; the server lists the
// host's credential and the token's remaining use.
TEST_F(EnrollmentTest, AnAgentEnrollsWithATokenAndAFingerprintAndShips) {
  std::string token = CreateToken({"--hosts", "web*", "--uses", "2", "--expires", "1h"});
  ASSERT_THAT(token, ::testing::MatchesRegex("phe1_[0-9a-f]{8}_[0-9a-f]{32}"));
  ReplayDir dir = WriteReplayDir(*scratch_, "web01", 5);
  std::string config = AgentConfig("web01", token, dir);
  CommandResult ran = RunAgent(config);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.err, HasSubstr("enrolled web01"));

  nlohmann::json stored = Stored("web01");
  ASSERT_EQ(stored.size(), dir.snapshots.size()) << stored.dump(1);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(dir.snapshots[i])) << i;
  }
  EXPECT_THAT(ReadFile(config), Not(HasSubstr(token)));
  EXPECT_THAT(ReadFile(config), HasSubstr(fingerprint_));
  struct stat info;
  ASSERT_EQ(stat((Credentials("web01") + "/key.pem").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_THAT(ReadFile(server_->log_path()), HasSubstr("event=enrolled"));

  nlohmann::json listed = Hosts();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["credential"], "enrolled");
  EXPECT_THAT(listed[0]["credential_expires"].get<std::string>(), ::testing::StartsWith("20"));
  CommandResult hosts = Admin({"hosts", "list"});
  EXPECT_THAT(hosts.out, ::testing::ContainsRegex("web01 +[0-9a-f]+ +[0-9T:Z-]+ +valid"));
  CommandResult tokens = Admin({"enroll", "list"});
  EXPECT_THAT(tokens.out, ::testing::ContainsRegex("web\\* +1 +[0-9T:Z-]+ +usable"));

  // A second host configured as the MSI does it (`configure --enroll`): the token waits in a
  // file of its own, which the agent deletes once enrolled.
  std::string web02 = *scratch_ / "web02.toml";
  ReplayDir dir02 = WriteReplayDir(*scratch_, "web02", 2);
  CommandResult configured = RunCommand(
      *scratch_, {AgentBinary(), "configure", "--file", web02, "--server", server_->address(),
                  "--ca-sha256", fingerprint_, "--enroll", token, "--host-name", "web02",
                  "--source", "replay", "--replay", dir02.path, "--interval", "50ms"});
  ASSERT_EQ(configured.exit_code, 0) << configured.err;
  ASSERT_TRUE(std::filesystem::exists(*scratch_ / "enroll.token"));
  CommandResult ran02 = RunAgent(web02);
  ASSERT_EQ(ran02.exit_code, 0) << ran02.err;
  EXPECT_FALSE(std::filesystem::exists(*scratch_ / "enroll.token"));
  EXPECT_THAT(ReadFile(web02), Not(HasSubstr("enroll_file")));
  EXPECT_EQ(Stored("web02").size(), dir02.snapshots.size());

  // Started again, the agent uses its certificate; the spent token is not needed.
  ReplayDir more = WriteReplayDir(*scratch_, "web01-more", 3, 100);
  CommandResult again = RunEnrolled("web01", more, "spool-web01", "60s");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.err, Not(HasSubstr("enrolling")));
  EXPECT_EQ(Stored("web01").size(), dir.snapshots.size() + more.snapshots.size());
}

// Proves: an enrollment token is refused, with the reason, once its uses are spent (a stolen
// token is then worthless), for a host its patterns do not allow, once revoked, and once
// expired; a refused agent exits 2 (its unit does not restart it) and gets no certificate.
TEST_F(EnrollmentTest, TokensAreRefusedWhenUsedUpForOtherHostsRevokedOrExpired) {
  ReplayDir dir = WriteReplayDir(*scratch_, "any", 2);
  std::string once = CreateToken({"--hosts", "web*", "--uses", "1"});
  ASSERT_EQ(RunAgent(AgentConfig("web01", once, dir)).exit_code, 0);

  auto refused = [&](const std::string& host, const std::string& token, const std::string& why) {
    SCOPED_TRACE(host + ": " + why);
    CommandResult ran = RunAgent(AgentConfig(host, token, dir), "10s");
    EXPECT_EQ(ran.exit_code, 2) << ran.err;
    EXPECT_THAT(ran.err, HasSubstr(why));
    EXPECT_FALSE(std::filesystem::exists(Credentials(host) + "/certificate.pem"));
  };
  refused("web02", once, "is used up: it had 1 use");
  std::string webs = CreateToken({"--hosts", "web*"});
  refused("db01", webs, "is not for host db01: its host patterns are web*");
  std::string revoked = CreateToken({"--hosts", "*"});
  std::string revoked_id = revoked.substr(5, 8);
  ASSERT_EQ(Admin({"enroll", "revoke", revoked_id}).exit_code, 0);
  refused("web03", revoked, "was revoked");
  std::string brief = CreateToken({"--hosts", "*", "--expires", "1s"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  refused("web04", brief, "expired at");
  std::string forged = once.substr(0, 14) + std::string(32, '0');
  refused("web05", forged, "wrong secret");
  EXPECT_EQ(KnownHosts(), std::vector<std::string>{"web01"});
}

// Proves: web01's certificate, copied to be used as db01's, cannot write as db01; once web01 is
// revoked, its next connection is refused saying so, and nothing more is stored for it.
TEST_F(EnrollmentTest, ACertificateWritesAsItsHostOnlyAndARevokedHostIsCutOff) {
  std::string token = CreateToken({"--hosts", "web*"});
  ReplayDir dir = WriteReplayDir(*scratch_, "web01", 3);
  ASSERT_EQ(RunAgent(AgentConfig("web01", token, dir)).exit_code, 0);
  std::filesystem::copy(Credentials("web01"), Credentials("db01"));
  ReplayDir other = WriteReplayDir(*scratch_, "db01", 2);
  CommandResult stolen = RunEnrolled("db01", other, "spool-db01", "5s");
  EXPECT_NE(stolen.exit_code, 0);
  EXPECT_THAT(stolen.err, HasSubstr("may not send snapshots as host \"db01\""));
  EXPECT_EQ(KnownHosts(), std::vector<std::string>{"web01"});

  CommandResult revoked = Admin({"hosts", "revoke", "WEB01"});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  EXPECT_THAT(revoked.out, HasSubstr("revoked 1 credential of host WEB01"));
  ReplayDir later = WriteReplayDir(*scratch_, "web01-later", 2, 100);
  CommandResult cut = RunEnrolled("web01", later, "spool-web01b", "5s");
  EXPECT_NE(cut.exit_code, 0);
  EXPECT_THAT(cut.err, HasSubstr("the credential of host \"web01\" was revoked"));
  EXPECT_EQ(Stored("web01").size(), dir.snapshots.size());
  EXPECT_THAT(Admin({"hosts", "list"}).out, HasSubstr("revoked"));
  EXPECT_EQ(Hosts()[0]["credential"], "revoked");
}

// Proves: revoking a host ends its open stream within seconds, with the reason, rather than at
// its next reconnect; nothing more is stored for it.
TEST_F(EnrollmentTest, ARevokedHostsOpenStreamIsClosed) {
  std::string token = CreateToken({"--hosts", "web*"});
  ReplayDir first = WriteReplayDir(*scratch_, "web01", 2);
  ASSERT_EQ(RunAgent(AgentConfig("web01", token, first)).exit_code, 0);
  // 400 files, one every 50 ms: 20 s of shipping.
  ReplayDir lasting = WriteReplayDir(*scratch_, "web01-lasting", 400, 100);
  std::string err = *scratch_ / "lasting.err";
  ChildProcess agent(
      {AgentBinary(), "run", "--server", server_->address(), "--ca-sha256", fingerprint_,
       "--host-name", "web01", "--source", "replay", "--replay", lasting.path, "--interval", "50ms",
       "--spool-dir", *scratch_ / "spool-lasting", "--timeout", "60s"},
      *scratch_ / "lasting.out", err);
  auto stored = [&] { return Stored("web01").size(); };
  for (int i = 0; i < 100 && stored() < first.snapshots.size() + 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(stored(), first.snapshots.size() + 5);
  auto revoked_at = std::chrono::steady_clock::now();
  ASSERT_EQ(Admin({"hosts", "revoke", "web01"}).exit_code, 0);
  std::string log;
  for (int i = 0; i < 100 && log.find("was revoked") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    log = ReadFile(err);
  }
  EXPECT_THAT(log, HasSubstr("the credential of host \"web01\" was revoked"));
  EXPECT_LT(std::chrono::steady_clock::now() - revoked_at, std::chrono::seconds(6));
  size_t after = stored();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(stored(), after) << "snapshots stored after the revocation";
  EXPECT_LT(after, first.snapshots.size() + lasting.snapshots.size());
  agent.Signal(SIGTERM);
  agent.Wait(std::chrono::seconds(30));
}

// Proves: `perfhive login --enroll` with a reader's enrollment token gets a certificate that
// reads with no flag afterwards (the server, fingerprint and credential remembered in the CLI's
// config file), may not write, and stops reading once `readers revoke` revoked it; an agent's
// token logs no reader in. The reader takes the name of host web01 (issue 34, 7): it is listed
// under `readers list`, not `hosts list`; `hosts revoke web01` leaves it reading; `readers
// revoke` of host alice's name is refused naming `hosts revoke`.
TEST_F(EnrollmentTest, AReaderLogsInWithAnEnrollmentTokenAndReadsWithoutFlags) {
  std::string host_token = CreateToken({"--hosts", "web*"});
  ReplayDir dir = WriteReplayDir(*scratch_, "web01", 3);
  ASSERT_EQ(RunAgent(AgentConfig("web01", host_token, dir)).exit_code, 0);
  std::string reader_token = CreateToken({"--read"});
  // The CLI keeps its settings under $HOME: this test's own.
  const char* home = std::getenv("HOME");
  std::string saved_home = home != nullptr ? home : "";
  setenv("HOME", scratch_->path().c_str(), 1);
  auto cli = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {CliBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(*scratch_, argv);
  };
  CommandResult wrong = cli({"login", "--server", server_->address(), "--ca-sha256", fingerprint_,
                             "--enroll", CreateToken({"--hosts", "alice"}), "--name", "alice"});
  ASSERT_EQ(wrong.exit_code, 0) << wrong.err;  // a host's token makes a host's certificate...
  CommandResult denied = cli({"hosts"});
  EXPECT_NE(denied.exit_code, 0);  // ...which may not read
  EXPECT_THAT(denied.err, HasSubstr("enrolled host alice may not read"));

  CommandResult login = cli({"login", "--server", server_->address(), "--ca-sha256", fingerprint_,
                             "--enroll", reader_token, "--name", "web01"});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  EXPECT_THAT(login.out, HasSubstr("as web01"));
  CommandResult hosts = cli({"hosts", "--format", "json"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_EQ(nlohmann::json::parse(hosts.out)["hosts"][0]["name"], "web01");
  std::string settings = ReadFile(*scratch_ / ".config/perfhive/cli.toml");
  EXPECT_THAT(settings, HasSubstr(fingerprint_));
  EXPECT_THAT(settings, Not(HasSubstr(reader_token)));
  struct stat info;
  ASSERT_EQ(stat((*scratch_ / ".config/perfhive/credential/key.pem").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  std::smatch row;
  std::string readers = Admin({"readers", "list"}).out;
  ASSERT_TRUE(
      std::regex_search(readers, row, std::regex("\nweb01 +([0-9a-f]+) +[0-9T:Z-]+ +valid")))
      << readers;
  std::string reader_serial = row[1];
  EXPECT_THAT(Admin({"hosts", "list"}).out, Not(HasSubstr(reader_serial)));
  EXPECT_EQ(Hosts()[0]["credential"], "enrolled");

  CommandResult host_revoked = Admin({"hosts", "revoke", "web01"});
  ASSERT_EQ(host_revoked.exit_code, 0) << host_revoked.err;
  EXPECT_THAT(host_revoked.out, HasSubstr("revoked 1 credential of host web01"));
  CommandResult still = cli({"hosts", "--format", "json"});
  ASSERT_EQ(still.exit_code, 0) << still.err;
  EXPECT_EQ(nlohmann::json::parse(still.out)["hosts"][0]["credential"], "revoked");

  CommandResult host_named = Admin({"readers", "revoke", "alice"});
  EXPECT_EQ(host_named.exit_code, 1);
  EXPECT_THAT(host_named.err, HasSubstr("only to a host of that name: perfhive-server hosts "
                                        "revoke alice revokes a host's"));
  CommandResult reader_revoked = Admin({"readers", "revoke", "WEB01"});
  ASSERT_EQ(reader_revoked.exit_code, 0) << reader_revoked.err;
  EXPECT_THAT(reader_revoked.out, HasSubstr("revoked 1 credential of reader WEB01"));
  CommandResult revoked = cli({"hosts"});
  EXPECT_NE(revoked.exit_code, 0);
  EXPECT_THAT(revoked.err, HasSubstr("the credential of reader \"web01\" was revoked "
                                     "(perfhive-server readers revoke)"));
  EXPECT_THAT(Admin({"readers", "list"}).out,
              ::testing::ContainsRegex("web01 +[0-9a-f]+ +[0-9T:Z-]+ +revoked "));
  setenv("HOME", saved_home.c_str(), 1);
}

}  // namespace
}  // namespace perfhive::testing
