// End to end: tokens, TLS and mutual TLS between real agent, server and CLI processes, with a
// test CA that the test makes with openssl.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_cluster.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kWebAgentSecret[] = "agent-secret-for-web-hosts-0001";
constexpr char kCliReaderSecret[] = "reader-secret-for-the-cli-0001";

// The agents' and the reader's tokens, and a wrong secret; the agent's file ends with a newline,
// as an editor leaves it.
void WriteTokens(const ScratchDir& scratch) {
  WriteAgentAndReaderTokens(scratch, kWebAgentSecret, "WEB*", kCliReaderSecret);
  WriteText(scratch / "agent.token", std::string(kWebAgentSecret) + "\n");
  WriteText(scratch / "wrong.token", "not-the-right-secret-at-all-0000");
}

std::vector<std::string> Agent(const ServerProcess& server, const ReplayDir& dir,
                               const std::string& host, const ScratchDir& scratch,
                               std::vector<std::string> security) {
  std::vector<std::string> argv = {AgentBinary(), "run",
                                   "--server",    server.address(),
                                   "--source",    "replay",
                                   "--replay",    dir.path,
                                   "--host-name", host,
                                   "--interval",  "50ms",
                                   "--spool-dir", scratch / ("spool-" + host)};
  argv.insert(argv.end(), security.begin(), security.end());
  return argv;
}

// Proves: with tokens and mutual TLS, an agent holding a client certificate and its token stores
// its snapshots, and a read-only token lists them; an agent without a client certificate, one
// with a wrong token and one writing as a host its token does not name get nothing in, and say
// why.
TEST(SecurityEndToEndTest, MutualTlsAndTokensLetInOnlyWhoMay) {
  ScratchDir scratch("tls");
  WriteTokens(scratch);
  ASSERT_TRUE(MakeCertificates(scratch));
  ServerProcess server(scratch,
                       {"--tls-cert", scratch / "server.pem", "--tls-key", scratch / "server.key",
                        "--client-ca", scratch / "ca.pem", "--tokens", scratch / "tokens.toml"});
  ASSERT_TRUE(server.Start());
  std::vector<std::string> tls = {"--ca",  scratch / "ca.pem",    "--cert", scratch / "client.pem",
                                  "--key", scratch / "client.key"};

  ReplayDir good = WriteReplayDir(scratch, "WEB01", 4);
  std::vector<std::string> security = tls;
  security.insert(security.end(), {"--token-file", scratch / "agent.token", "--timeout", "60s"});
  CommandResult stored = RunCommand(scratch, Agent(server, good, "WEB01", scratch, security),
                                    std::chrono::seconds(90));
  EXPECT_EQ(stored.exit_code, 0) << stored.err;

  std::vector<std::string> reader = tls;
  reader.insert(reader.end(), {"--token-file", scratch / "reader.token"});
  std::vector<std::string> list = {CliBinary(),      "snapshots", "\\\\WEB01", "--server",
                                   server.address(), "--format",  "json"};
  list.insert(list.end(), reader.begin(), reader.end());
  CommandResult listed = RunCommand(scratch, list);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  nlohmann::json snapshots = nlohmann::json::parse(listed.out)["snapshots"];
  ASSERT_EQ(snapshots.size(), good.snapshots.size());
  for (size_t i = 0; i < snapshots.size(); ++i) {
    EXPECT_EQ(snapshots[i]["sha256"], Sha256Hex(good.snapshots[i]));
  }

  // The agent's token may write but not read.
  std::vector<std::string> list_as_agent = {CliBinary(), "hosts", "--server", server.address()};
  list_as_agent.insert(list_as_agent.end(), tls.begin(), tls.end());
  list_as_agent.insert(list_as_agent.end(), {"--token-file", scratch / "agent.token"});
  CommandResult denied = RunCommand(scratch, list_as_agent);
  EXPECT_EQ(denied.exit_code, 5);
  EXPECT_THAT(denied.err, HasSubstr("may not read"));

  ReplayDir other = WriteReplayDir(scratch, "DB01", 2);
  std::vector<std::string> briefly = tls;
  briefly.insert(briefly.end(), {"--token-file", scratch / "agent.token", "--timeout", "5s"});
  CommandResult wrong_host =
      RunCommand(scratch, Agent(server, other, "DB01", scratch, briefly), std::chrono::seconds(60));
  EXPECT_NE(wrong_host.exit_code, 0);
  EXPECT_THAT(wrong_host.err, HasSubstr("may not send snapshots as host \"DB01\""));

  std::vector<std::string> wrong_token = tls;
  wrong_token.insert(wrong_token.end(),
                     {"--token-file", scratch / "wrong.token", "--timeout", "5s"});
  CommandResult unknown = RunCommand(scratch, Agent(server, good, "WEB02", scratch, wrong_token),
                                     std::chrono::seconds(60));
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_THAT(unknown.err, HasSubstr("unknown token"));

  // Without a client certificate the TLS handshake itself fails.
  CommandResult no_client_cert = RunCommand(scratch,
                                            Agent(server, good, "WEB03", scratch,
                                                  {"--ca", scratch / "ca.pem", "--token-file",
                                                   scratch / "agent.token", "--timeout", "5s"}),
                                            std::chrono::seconds(60));
  EXPECT_NE(no_client_cert.exit_code, 0);

  CommandResult hosts_listed = RunCommand(scratch, [&] {
    std::vector<std::string> argv = {CliBinary(),      "hosts",    "--server",
                                     server.address(), "--format", "json"};
    argv.insert(argv.end(), reader.begin(), reader.end());
    return argv;
  }());
  ASSERT_EQ(hosts_listed.exit_code, 0) << hosts_listed.err;
  nlohmann::json hosts = nlohmann::json::parse(hosts_listed.out)["hosts"];
  ASSERT_EQ(hosts.size(), 1u) << hosts.dump(1);
  EXPECT_EQ(hosts[0]["name"], "WEB01");
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: the server will not serve plain text on an address other machines can reach.
TEST(SecurityEndToEndTest, InsecureRefusesANonLoopbackAddress) {
  ScratchDir scratch("insecure");
  CommandResult refused = RunCommand(
      scratch, {ServerBinary(), "--listen", "0.0.0.0:0", "--data", scratch / "data", "--insecure"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("--insecure listens on loopback only"));
}

// Regression: a server run by hand (a shell's umask 022) left its store, the enrollment registry
// and its keys readable by every user. Whatever the umask, what it creates is its owner's alone.
TEST(SecurityEndToEndTest, TheServersFilesAreItsOwnersAloneWhateverTheUmask) {
  ScratchDir scratch("private-files");
  const mode_t shell = umask(022);  // the server inherits it, as from a shell
  ServerProcess server(scratch, {"--insecure"});
  const bool started = server.Start();
  umask(shell);
  ASSERT_TRUE(started);
  const std::string data = scratch / "server-data";  // ServerProcess's --data
  CommandResult token =
      RunCommand(scratch, {ServerBinary(), "enroll", "create", "--data", data, "--hosts", "web*"});
  EXPECT_EQ(token.exit_code, 0) << token.err;
  EXPECT_EQ(server.Stop(), 0);
  struct stat folder {};
  ASSERT_EQ(stat(data.c_str(), &folder), 0);
  EXPECT_EQ(folder.st_mode & 077, 0u) << data << " is mode " << std::oct << (folder.st_mode & 0777);
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    struct stat info {};
    ASSERT_EQ(lstat(entry.path().c_str(), &info), 0) << entry.path();
    EXPECT_EQ(info.st_mode & 077, 0u)
        << entry.path() << " is mode " << std::oct << (info.st_mode & 0777);
    files += entry.is_regular_file();
  }
  EXPECT_TRUE(std::filesystem::exists(data + "/perfhive.db"));
  EXPECT_GE(files, 2u);
}

}  // namespace
}  // namespace perfhive::testing
