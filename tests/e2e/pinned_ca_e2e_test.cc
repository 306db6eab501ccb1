// End to end: a server made secure by `perfhive-server init` alone, reached by an agent and the
// CLI that know nothing but its CA's fingerprint, and a server in the middle with another CA
// refused by that pin. Real processes on loopback; no CA file is copied anywhere.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "tests/e2e/e2e_cluster.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr char kPinnedAgentSecret[] = "pinned-agent-secret-000000000001";
constexpr char kPinnedReaderSecret[] = "pinned-reader-secret-00000000001";

// Runs `perfhive-server init` for a server's data directory; returns the fingerprint it
// printed.
std::string Init(const ScratchDir& scratch, const std::string& data) {
  return InitServerCa(scratch, data, {"--name", "central.example", "--address", "10.0.0.5"});
}

std::vector<std::string> PinnedAgent(const ScratchDir& scratch, const ServerProcess& server,
                                     const ReplayDir& dir, const std::string& host,
                                     const std::string& fingerprint, const std::string& timeout) {
  return {AgentBinary(),  "run",
          "--server",     server.address(),
          "--source",     "replay",
          "--replay",     dir.path,
          "--host-name",  host,
          "--interval",   "50ms",
          "--spool-dir",  scratch / ("spool-" + host),
          "--ca-sha256",  fingerprint,
          "--token-file", scratch / "agent.token",
          "--timeout",    timeout};
}

// Proves: `init` then a server given only --data and --tokens serves TLS with the CA init made;
// an agent given only the printed fingerprint and its token stores every replayed snapshot with
// its exact bytes, and the CLI given the fingerprint reads them. The keys are the server's
// user's alone.
TEST(PinnedCaEndToEndTest, AServerMadeByInitIsReachedByItsFingerprintAlone) {
  ScratchDir scratch("pinned");
  WriteAgentAndReaderTokens(scratch, kPinnedAgentSecret, "PINNED*", kPinnedReaderSecret);
  std::string data = scratch / "server-data";  // ServerProcess's data directory
  std::string fingerprint = Init(scratch, data);
  ASSERT_THAT(fingerprint, MatchesRegex("sha256:[0-9a-f]{64}"));
  for (const char* key : {"/pki/ca.key", "/pki/server.key"}) {
    struct stat info;
    ASSERT_EQ(stat((data + key).c_str(), &info), 0) << key;
    EXPECT_EQ(info.st_mode & 0777, 0600u) << key;
  }
  ServerProcess server(scratch, {"--tokens", scratch / "tokens.toml"});
  ASSERT_TRUE(server.Start());

  ReplayDir dir = WriteReplayDir(scratch, "PINNED01", 5);
  CommandResult shipped =
      RunCommand(scratch, PinnedAgent(scratch, server, dir, "PINNED01", fingerprint, "60s"),
                 std::chrono::seconds(90));
  EXPECT_EQ(shipped.exit_code, 0) << shipped.err;
  nlohmann::json stored =
      StoredSnapshots(scratch, server, "PINNED01",
                      {"--ca-sha256", fingerprint, "--token-file", scratch / "reader.token"});
  ASSERT_EQ(stored.size(), dir.snapshots.size()) << stored.dump(1);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(dir.snapshots[i])) << i;
  }
  // Plain text is not served: the server took the TLS certificate from its data directory.
  CommandResult plain =
      RunCommand(scratch, {CliBinary(), "hosts", "--server", server.address(), "--insecure",
                           "--token-file", scratch / "reader.token"});
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a server in the middle, made by its own `init` (another CA), gets nothing from an
// agent pinned to the genuine CA, and the agent and the CLI say why, naming both fingerprints.
TEST(PinnedCaEndToEndTest, AServerWithAnotherCaIsRefusedByThePin) {
  ScratchDir genuine("pinned-genuine");
  std::string pin = Init(genuine, genuine / "server-data");
  ScratchDir middle("pinned-middle");
  WriteAgentAndReaderTokens(middle, kPinnedAgentSecret, "PINNED*", kPinnedReaderSecret);
  std::string other = Init(middle, middle / "server-data");
  ASSERT_NE(pin, other);
  ServerProcess server(middle, {"--tokens", middle / "tokens.toml"});
  ASSERT_TRUE(server.Start());

  ReplayDir dir = WriteReplayDir(middle, "PINNED02", 2);
  CommandResult refused = RunCommand(
      middle, PinnedAgent(middle, server, dir, "PINNED02", pin, "3s"), std::chrono::seconds(60));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("include no CA with the pinned " + pin));
  EXPECT_THAT(refused.err, HasSubstr(other));

  CommandResult cli =
      RunCommand(middle, {CliBinary(), "hosts", "--server", server.address(), "--ca-sha256", pin,
                          "--token-file", middle / "reader.token"});
  EXPECT_NE(cli.exit_code, 0);
  EXPECT_THAT(cli.err, HasSubstr("include no CA with the pinned " + pin));
  // Nothing reached the server in the middle.
  CommandResult hosts =
      RunCommand(middle, {CliBinary(), "hosts", "--server", server.address(), "--ca-sha256", other,
                          "--token-file", middle / "reader.token", "--format", "json"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_TRUE(nlohmann::json::parse(hosts.out)["hosts"].empty()) << hosts.out;
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace perfhive::testing
