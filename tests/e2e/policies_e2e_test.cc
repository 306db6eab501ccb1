// End to end: a host that joined with an enrollment token and the CA fingerprint takes its
// collection plan from the server's policies file, follows every change of it without a
// restart, reports the local settings the plan overrides, falls back to them when no policy
// names it any more, renews its certificate on the stream before it expires, and is cut off by
// a revocation. Real processes on loopback; docs/policies.md and docs/enrollment.md.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tests/e2e/e2e_cluster.h"
#include "tests/support/child_process.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPoliciesReaderSecret[] = "policies-reader-secret-0000001";

// A policy for other hosts only: the file exists, and names none of this test's hosts.
constexpr char kOtherHostsOnly[] =
    "[[policy]]\nname = \"databases\"\nhosts = [\"db*\"]\nqueries = [\"Costly@1h\"]\n";

class PoliciesTest : public ::testing::Test {
 protected:
  void StartServer(std::vector<std::string> extra_flags = {}) {
    scratch_ = std::make_unique<ScratchDir>("policies");
    setenv("STATE_DIRECTORY", (*scratch_ / "agent-state").c_str(), 1);
    fingerprint_ = InitServerCa(*scratch_, Data(), {"--name", "localhost"});
    ASSERT_FALSE(fingerprint_.empty());
    WriteText(*scratch_ / "tokens.toml", std::string("[[token]]\nname = \"cli\"\nsecret = \"") +
                                             kPoliciesReaderSecret + "\"\nread = true\n");
    WriteText(*scratch_ / "reader.token", kPoliciesReaderSecret);
    WritePolicies(kOtherHostsOnly);
    std::vector<std::string> flags = {"--tokens", *scratch_ / "tokens.toml", "--policies",
                                      Policies()};
    flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
    server_ = std::make_unique<ServerProcess>(*scratch_, flags);
    ASSERT_TRUE(server_->Start());
    address_ = server_->address();
  }
  void TearDown() override {
    agent_.reset();
    unsetenv("STATE_DIRECTORY");
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0);
    }
  }

  std::string Data() const { return *scratch_ / "server-data"; }
  std::string Policies() const { return *scratch_ / "policies.toml"; }
  std::string AgentLog() const { return ReadWholeFile(*scratch_ / "agent.err"); }
  void WritePolicies(const std::string& text) {
    // Written beside and renamed, as an editor saves: the server never reads half a file.
    WriteText(Policies() + ".new", text);
    std::filesystem::rename(Policies() + ".new", Policies());
  }

  std::string CreateToken(const std::string& hosts) {
    CommandResult created = RunCommand(*scratch_, {ServerBinary(), "enroll", "create", "--data",
                                                   Data(), "--hosts", hosts, "--uses", "1"});
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return created.out.substr(0, created.out.find('\n'));
  }

  // The procfs agent of this machine as `host`, with local settings that a plan may override.
  void StartAgent(const std::string& host, std::vector<std::string> local) {
    std::vector<std::string> argv = {
        AgentBinary(), "run",         "--server", address_,      "--ca-sha256",
        fingerprint_,  "--host-name", host,       "--spool-dir", *scratch_ / ("spool-" + host)};
    argv.insert(argv.end(), local.begin(), local.end());
    agent_ = std::make_unique<ChildProcess>(argv, *scratch_ / "agent.out", *scratch_ / "agent.err");
  }

  std::vector<std::string> Reader() const {
    return {"--ca-sha256", fingerprint_, "--token-file", *scratch_ / "reader.token"};
  }
  // The host's stored snapshots; none while the server has not heard of it yet.
  nlohmann::json Stored(const std::string& host) {
    std::vector<std::string> argv = {CliBinary(),        "snapshots", "\\\\" + host, "--server",
                                     server_->address(), "--format",  "json"};
    std::vector<std::string> reader = Reader();
    argv.insert(argv.end(), reader.begin(), reader.end());
    CommandResult listed = RunCommand(*scratch_, argv);
    if (listed.exit_code != 0) return nlohmann::json::array();
    return nlohmann::json::parse(listed.out)["snapshots"];
  }
  nlohmann::json Host(const std::string& host) {
    return HostEntry(*scratch_, *server_, host, Reader());
  }
  // The host's entry once its agent reports `revision` applied (and it is the latest).
  nlohmann::json WaitForApplied(const std::string& host, const std::string& revision_wanted) {
    nlohmann::json entry;
    WaitUntil([&] {
      entry = Host(host);
      return entry.is_object() && entry.value("plan_revision", "") == revision_wanted &&
             entry.value("plan_latest", "") == revision_wanted;
    });
    return entry;
  }
  size_t CountStored(const std::string& host, const std::string& query) {
    size_t count = 0;
    for (const auto& snapshot : Stored(host)) count += snapshot["query"] == query ? 1 : 0;
    return count;
  }

  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<ChildProcess> agent_;
  std::string address_;  // the server's, kept while it is stopped
  std::string fingerprint_;
};

// Proves the whole path on Linux: enroll with a token and a fingerprint, ship, take the
// plan a policy gives, follow two changes and the policy's removal in the same process (the
// agent's PID never changes), report the local --query the plan overrides, keep the policies in
// force when the file is broken, and be cut off by a revocation.
TEST_F(PoliciesTest, AnEnrolledAgentFollowsEveryPolicyChangeWithoutARestart) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  std::string token = CreateToken("lnxpol*");
  StartAgent("LNXPOL1", {"--enroll", token, "--query", "Global@1h"});
  ASSERT_TRUE(WaitUntil([&] { return CountStored("LNXPOL1", "Global") >= 1; })) << AgentLog();
  nlohmann::json before = Host("LNXPOL1");
  ASSERT_TRUE(before.is_object());
  EXPECT_EQ(before.value("plan_revision", "?"), "");
  EXPECT_EQ(before.value("plan_latest", "?"), "");
  EXPECT_EQ(before.value("credential", ""), "enrolled");

  // A policy for the host: two objects by name every 300 ms instead of Global every hour.
  WritePolicies(std::string(kOtherHostsOnly) +
                "[[policy]]\nname = \"linux\"\nhosts = [\"LNXPOL*\"]\n"
                "queries = [\"Processor,Memory@300ms\"]\n");
  nlohmann::json applied;
  WaitUntil([&] {
    applied = Host("LNXPOL1");
    return applied.is_object() && !applied.value("plan_latest", "").empty() &&
           applied.value("plan_revision", "") == applied.value("plan_latest", "");
  });
  std::string first = applied.value("plan_revision", "");
  ASSERT_EQ(first.size(), 12u) << applied.dump(1) << AgentLog();
  EXPECT_THAT(applied.value("plan_report", ""),
              HasSubstr("local queries Global@1h is overridden by policy linux: "
                        "Processor,Memory@300ms"));
  // Snapshots of the planned query arrive: the object names resolved to their indexes.
  std::string planned_query;
  ASSERT_TRUE(WaitUntil([&] {
    std::map<std::string, size_t> by_query;
    for (const auto& snapshot : Stored("LNXPOL1")) by_query[snapshot["query"]]++;
    for (const auto& [query, count] : by_query) {
      if (query != "Global" && count >= 3) planned_query = query;
    }
    return !planned_query.empty();
  })) << AgentLog();
  EXPECT_EQ(planned_query.find_first_not_of("0123456789 "), std::string::npos) << planned_query;
  EXPECT_THAT(AgentLog(), HasSubstr("applied policy linux revision " + first));

  // A broken file keeps the policies in force; the server says why.
  WritePolicies("[[policy]]\nname = \"linux\"\nhosts = \"not a list\"\n");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(Host("LNXPOL1").value("plan_latest", ""), first);

  // A second change: another revision, applied by the same process.
  WritePolicies(
      "[[policy]]\nname = \"linux\"\nhosts = [\"lnxpol*\"]\n"
      "queries = [\"Memory@250ms\"]\ninterval = \"2s\"\n");
  std::string second;
  ASSERT_TRUE(WaitUntil([&] {
    nlohmann::json entry = Host("LNXPOL1");
    second = entry.is_object() ? entry.value("plan_revision", "") : "";
    return !second.empty() && second != first && entry.value("plan_latest", "") == second;
  })) << AgentLog();
  EXPECT_TRUE(agent_->running());

  // No policy names the host any more: back to the local Global@1h, which is taken at once.
  size_t globals = CountStored("LNXPOL1", "Global");
  WritePolicies(kOtherHostsOnly);
  nlohmann::json local = WaitForApplied("LNXPOL1", "");
  EXPECT_EQ(local.value("plan_report", "?"), "");
  EXPECT_TRUE(WaitUntil([&] { return CountStored("LNXPOL1", "Global") > globals; }));
  EXPECT_THAT(AgentLog(), HasSubstr("back to the local settings"));
  EXPECT_TRUE(agent_->running());

  // Revoked: its stream ends and its reconnects are refused; nothing more is stored.
  CommandResult revoked =
      RunCommand(*scratch_, {ServerBinary(), "hosts", "revoke", "LNXPOL1", "--data", Data()});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  ASSERT_TRUE(WaitUntil([&] { return AgentLog().find("was revoked") != std::string::npos; }))
      << AgentLog();
  size_t stored = Stored("LNXPOL1").size();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(Stored("LNXPOL1").size(), stored);
}

// Proves: a certificate is renewed on the stream once two thirds of its life have passed,
// without a restart; the agent keeps shipping after the first certificate expired, and a new
// process starts with the renewed certificate (the token's one use is long spent).
TEST_F(PoliciesTest, ACertificateIsRenewedOnTheStreamBeforeItExpires) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--certificate-lifetime", "15s"}));
  std::string token = CreateToken("renew*");
  StartAgent("RENEW1", {"--enroll", token, "--interval", "500ms"});
  ASSERT_TRUE(WaitUntil([&] {
    return AgentLog().find("renewed the certificate") != std::string::npos;
  })) << AgentLog();
  // Past the first certificate's end: still shipping, over a stream opened with the new one.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  size_t stored = Stored("RENEW1").size();
  ASSERT_TRUE(WaitUntil([&] { return Stored("RENEW1").size() >= stored + 3; })) << AgentLog();
  CommandResult listed = RunCommand(*scratch_, {ServerBinary(), "hosts", "list", "--data", Data()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_GE(std::count(listed.out.begin(), listed.out.end(), '\n'), 3) << listed.out;

  agent_->Signal(SIGTERM);
  EXPECT_EQ(agent_->Wait(std::chrono::seconds(20)), 0) << AgentLog();
  // A new process, without the spent token: the renewed certificate (renewed again as needed)
  // is its credential.
  stored = Stored("RENEW1").size();
  StartAgent("RENEW1", {"--interval", "500ms"});
  EXPECT_TRUE(WaitUntil([&] { return Stored("RENEW1").size() >= stored + 3; })) << AgentLog();
}

// Proves (issue 34, 1): a revocation wins over a renewal that is due and in flight. Under a
// 10 s lifetime the first renewal is due after about 7 s; the host is revoked the moment its agent
// asks for it. Whichever lands first, no certificate of the host is left valid, and the agent
// stores nothing more.
TEST_F(PoliciesTest, ARevocationDuringADueRenewalLeavesNoValidCertificate) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--certificate-lifetime", "10s"}));
  std::string token = CreateToken("race*");
  StartAgent("RACE1", {"--enroll", token, "--interval", "500ms"});
  ASSERT_TRUE(WaitUntil([&] {
    return AgentLog().find("renewing the certificate of RACE1") != std::string::npos;
  })) << AgentLog();
  CommandResult revoked =
      RunCommand(*scratch_, {ServerBinary(), "hosts", "revoke", "RACE1", "--data", Data()});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.err;
  ASSERT_TRUE(WaitUntil([&] { return AgentLog().find("was revoked") != std::string::npos; }))
      << AgentLog();

  CommandResult listed = RunCommand(*scratch_, {ServerBinary(), "hosts", "list", "--data", Data()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::istringstream lines(listed.out);
  std::string line;
  int race_lines = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("RACE1 ", 0) != 0) continue;
    ++race_lines;
    EXPECT_THAT(line, HasSubstr("revoked")) << listed.out;
  }
  EXPECT_GE(race_lines, 1) << listed.out;
  size_t stored = Stored("RACE1").size();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(Stored("RACE1").size(), stored) << AgentLog();
  EXPECT_EQ(Host("RACE1").value("credential", ""), "revoked");
}

// Regression (issue 34, 10): an agent whose certificate expired while the server was away is
// refused in the TLS handshake when it comes back, where the server can say nothing, and it
// logged only "Socket closed". It now names the expired certificate and what to do.
TEST_F(PoliciesTest, AnAgentRefusedForItsExpiredCertificateSaysSo) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--certificate-lifetime", "10s"}));
  std::string token = CreateToken("expiry*");
  StartAgent("EXPIRY1", {"--enroll", token, "--interval", "500ms"});
  ASSERT_TRUE(WaitUntil([&] { return AgentLog().find("enrolled EXPIRY1") != std::string::npos; }))
      << AgentLog();
  auto enrolled = std::chrono::steady_clock::now();
  // Away before the renewal is due (two thirds of 10 s), back once the certificate has ended.
  ASSERT_EQ(server_->Stop(), 0);
  std::this_thread::sleep_until(enrolled + std::chrono::seconds(11));
  size_t away = AgentLog().size();
  ASSERT_TRUE(server_->Start());
  auto after_return = [&] { return AgentLog().substr(away); };
  EXPECT_TRUE(WaitUntil(
      [&] {
        return after_return().find("the certificate of EXPIRY1 expired at") != std::string::npos;
      },
      std::chrono::seconds(90)))
      << AgentLog();
  EXPECT_THAT(after_return(), HasSubstr("enroll again with a new token"));
  EXPECT_THAT(after_return(), Not(HasSubstr("renewed the certificate")));
}

// Proves: the plan in force is kept in the spool folder, so that an agent restarted while the
// server is away follows it (not its local settings) from its first snapshot, and the server,
// once back, finds the same revision applied.
TEST_F(PoliciesTest, AKeptPlanHoldsAcrossARestartWhileTheServerIsAway) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  WritePolicies(std::string(kOtherHostsOnly) +
                "[[policy]]\nname = \"linux\"\nhosts = [\"KEPT*\"]\n"
                "queries = [\"Memory@400ms\"]\n");
  std::string token = CreateToken("kept*");
  StartAgent("KEPT1", {"--enroll", token, "--query", "Global@1h"});
  nlohmann::json applied;
  ASSERT_TRUE(WaitUntil([&] {
    applied = Host("KEPT1");
    return applied.is_object() && !applied.value("plan_latest", "").empty() &&
           applied.value("plan_revision", "") == applied.value("plan_latest", "");
  })) << AgentLog();
  std::string revision = applied.value("plan_revision", "");
  agent_->Signal(SIGTERM);
  ASSERT_EQ(agent_->Wait(std::chrono::seconds(20)), 0) << AgentLog();

  ASSERT_EQ(server_->Stop(), 0);
  server_.reset();
  size_t first_run = AgentLog().size();
  StartAgent("KEPT1", {"--query", "Global@1h"});
  auto second_run = [&] { return AgentLog().substr(first_run); };
  ASSERT_TRUE(WaitUntil([&] {
    return second_run().find("following policy linux (revision " + revision +
                             ", kept from an earlier run)") != std::string::npos;
  })) << AgentLog();
  EXPECT_THAT(second_run(), HasSubstr("sampling Memory every 400ms"));
  EXPECT_THAT(second_run(), Not(HasSubstr("sampling Global")));
  agent_->Signal(SIGTERM);
  EXPECT_EQ(agent_->Wait(std::chrono::seconds(20)), 0) << AgentLog();
}

}  // namespace
}  // namespace perfhive::testing
