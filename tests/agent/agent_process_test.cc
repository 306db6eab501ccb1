// The real perfhive-agent binary, started as a child process and stopped by its PID, against
// the fake Ingest server on loopback: a replay exits 0 once everything is answered and the
// server holds the files byte for byte; SIGTERM leaves the unanswered snapshots in the spool.

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "agent/logger.h"
#include "agent/spool.h"
#include "tests/agent/agent_test_util.h"
#include "tests/agent/fake_ingest_server.h"
#include "tests/support/child_process.h"

namespace perfhive {
namespace {

using testing::ChildProcess;
using testing::FakeIngestServer;
using testing::FakeIngestService;
using testing::FakeRaw;
using testing::TempDir;

constexpr std::chrono::minutes kGenerous{2};  // only so a broken agent fails, never hangs

class AgentProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(replay_ / "titles.bin", std::ios::binary) << std::string("1\0\0\0", 4);
    for (int i = 1; i <= kFiles; ++i) {
      std::vector<uint8_t> raw = FakeRaw(i, 3000 + i);
      char name[16];
      std::snprintf(name, sizeof name, "%03d.bin", i);
      std::ofstream(replay_ / name, std::ios::binary)
          .write(reinterpret_cast<const char*>(raw.data()),
                 static_cast<std::streamsize>(raw.size()));
    }
  }
  std::vector<std::string> Args(const std::string& server, const std::string& interval) {
    return {PERFHIVE_AGENT_BINARY, "run",         "--source",    "replay",     "--replay",
            replay_.path(),        "--host-name", "REPLAYHOST",  "--server",   server,
            "--insecure",          "--spool-dir", spool_.path(), "--interval", interval,
            "--timeout",           "120s"};
  }

  static constexpr int kFiles = 8;
  TempDir replay_;
  TempDir spool_;
  TempDir log_;
  FakeIngestService service_;
};

TEST_F(AgentProcessTest, ReplayExitsZeroOnceTheServerHoldsEveryFileExactly) {
  FakeIngestServer server(service_);
  ChildProcess agent(Args(server.address(), "20ms"), log_ / "out", log_ / "err");
  EXPECT_EQ(agent.Wait(kGenerous), 0) << testing::ReadWholeFile(log_ / "err");

  auto stored = service_.stored();
  ASSERT_EQ(stored.size(), static_cast<size_t>(kFiles));
  std::string instance = stored.begin()->first.first;
  for (int i = 1; i <= kFiles; ++i) EXPECT_EQ(stored.at({instance, i}), FakeRaw(i, 3000 + i)) << i;
  ASSERT_FALSE(service_.hellos().empty());
  EXPECT_EQ(service_.hellos()[0].host_name(), "REPLAYHOST");
  EXPECT_EQ(instance.size(), 32u);  // 128 bits in hex
}

// Issue 20, case 5: snapshots the server refused were deleted and the agent's final line said
// "0 lost". A refusal is data lost: the replay says how many and why, and exits non-zero.
TEST_F(AgentProcessTest, ARefusedSnapshotIsReportedLostAndTheReplayFails) {
  service_.Refuse(5);
  FakeIngestServer server(service_);
  ChildProcess agent(Args(server.address(), "20ms"), log_ / "out", log_ / "err");
  EXPECT_EQ(agent.Wait(kGenerous), 1);
  std::string log = testing::ReadWholeFile(log_ / "err");
  EXPECT_EQ(service_.stored().size(), static_cast<size_t>(kFiles - 1));
  EXPECT_NE(log.find("ERROR lost a snapshot: the server refused instance"), std::string::npos)
      << log;
  EXPECT_NE(log.find("sequence 5 for good: INVALID_ARGUMENT: refused by the test"),
            std::string::npos);
  EXPECT_NE(log.find("ERROR stopped REPLAYHOST (agent): 8 snapshots taken"), std::string::npos);
  EXPECT_NE(log.find("1 lost (1 refused by the server"), std::string::npos);
}

TEST_F(AgentProcessTest, ReplayExitsNonZeroWhenSomethingIsUnansweredAtTheTimeout) {
  service_.HoldAcks(true);
  FakeIngestServer server(service_);
  std::vector<std::string> args = Args(server.address(), "10ms");
  args.back() = "2s";
  ChildProcess agent(args, log_ / "out", log_ / "err");
  EXPECT_EQ(agent.Wait(kGenerous), 1);
  EXPECT_NE(testing::ReadWholeFile(log_ / "err").find("unanswered at the timeout"),
            std::string::npos);
}

TEST_F(AgentProcessTest, SigtermLeavesTheUnansweredSnapshotsInTheSpool) {
  service_.HoldAcks(true);
  FakeIngestServer server(service_);
  ChildProcess agent(Args(server.address(), "50ms"), log_ / "out", log_ / "err");
  ASSERT_TRUE(service_.WaitFor([&] { return service_.received().size() >= 3; }));
  agent.Signal(SIGTERM);
  EXPECT_EQ(agent.Wait(kGenerous), 0) << testing::ReadWholeFile(log_ / "err");

  std::ostringstream log_text;
  Logger log(log_text, Env::Default());
  Result<std::unique_ptr<Spool>> spool =
      Spool::Open(Env::Default(), spool_.path(), 1 << 30, testing::TestOwner("REPLAYHOST"), log);
  ASSERT_TRUE(spool.ok()) << spool.error();
  std::vector<Spool::Entry> entries = (*spool)->TakeRecovered();
  ASSERT_GE(entries.size(), 3u);
  EXPECT_TRUE(log_text.str().find("skipping") == std::string::npos) << log_text.str();
  for (size_t i = 0; i < entries.size(); ++i) {
    Result<SnapshotRecord> record = (*spool)->Read(entries[i].id);
    ASSERT_TRUE(record.ok()) << record.error();
    EXPECT_EQ(record->sequence, i + 1);  // in order, none missing
    EXPECT_EQ(record->raw, FakeRaw(static_cast<int>(i + 1), 3000 + i + 1));
    EXPECT_EQ(record->query, "Global");
  }
}

}  // namespace
}  // namespace perfhive
