// perfhive the way an administrator runs it, with real processes on loopback and real recordings
// of this host: default settings (the spool under the agent's state directory, as systemd's
// StateDirectory= sets it), several agents on one machine, the same recording twice, an outage
// drained at once, a conflict, an agent killed while connected. Each test is named after what
// issue 20 saw go wrong.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "tests/e2e/e2e_cluster.h"
#include "tests/support/answer_points.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::chrono::seconds kGenerous{120};  // only so a broken agent fails, never hangs

class FleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::make_unique<ScratchDir>("fleet");
    // What systemd's StateDirectory= sets: the agents' default spool root is under it.
    setenv("STATE_DIRECTORY", (*scratch_ / "state").c_str(), 1);
  }
  void TearDown() override { unsetenv("STATE_DIRECTORY"); }

  // `perfhive-agent run` replaying `dir` as `host`, with the defaults (no --spool-dir).
  std::vector<std::string> Replay(const ServerProcess& server, const ReplayDir& dir,
                                  const std::string& host, const std::string& interval = "20ms",
                                  std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {AgentBinary(), "run",         "--server", server.address(),
                                     "--insecure",  "--source",    "replay",   "--replay",
                                     dir.path,      "--host-name", host,       "--interval",
                                     interval};
    argv.insert(argv.end(), extra.begin(), extra.end());
    if (std::find(extra.begin(), extra.end(), "--timeout") == extra.end()) {
      argv.insert(argv.end(), {"--timeout", "90s"});
    }
    return argv;
  }
  // The default spool folder of `host` (its name folded, under the state directory).
  std::string SpoolOf(std::string host) const {
    std::transform(host.begin(), host.end(), host.begin(), ::tolower);
    return *scratch_ / ("state/spool/" + host);
  }
  size_t SpooledFiles(const std::string& folder) const {
    size_t files = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
      files += entry.path().extension() == ".snap";
    }
    return files;
  }
  std::string Log(const std::string& name) const { return ReadWholeFile(*scratch_ / name); }

  std::unique_ptr<ScratchDir> scratch_;
};

// Case 1: a procfs agent for the machine itself and three replay agents, all with the default
// spool, shared one folder: they deleted each other's title files ("title database ... is not
// at hand"), a snapshot was lost and replays stayed unanswered at their timeout. Each host has
// a folder of its own now, and every host's snapshots are stored under it alone.
TEST_F(FleetTest, AgentsWithDefaultSettingsOnOneMachineEachShipTheirOwn) {
  ServerProcess server(*scratch_);  // started late: the agents spool first
  std::vector<ReplayDir> recordings;
  for (const char* name : {"rec-a", "rec-b", "rec-c"}) {
    recordings.push_back(RecordThisHost(*scratch_, name, 10));
  }
  ChildProcess procfs(
      {AgentBinary(), "run", "--server", server.address(), "--insecure", "--interval", "100ms"},
      *scratch_ / "procfs.out", *scratch_ / "procfs.err");
  std::vector<std::unique_ptr<ChildProcess>> replays;
  for (const ReplayDir& recording : recordings) {
    std::string name = std::filesystem::path(recording.path).filename();
    replays.push_back(std::make_unique<ChildProcess>(
        Replay(server, recording, name), *scratch_ / (name + ".out"), *scratch_ / (name + ".err")));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_TRUE(server.Start());
  for (size_t i = 0; i < replays.size(); ++i) {
    EXPECT_EQ(replays[i]->Wait(kGenerous), 0) << Log("rec-" + std::string(1, 'a' + i) + ".err");
  }
  // The procfs agent reconnects on its own backoff: let it ship before it is stopped.
  for (int i = 0; i < 150; ++i) {
    std::vector<std::string> names = HostNames(*scratch_, server);
    if (names.size() == 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  procfs.Signal(SIGTERM);
  EXPECT_EQ(procfs.Wait(std::chrono::seconds(30)), 0) << Log("procfs.err");

  std::set<std::string> recorded;
  for (const ReplayDir& recording : recordings) {
    std::string name = std::filesystem::path(recording.path).filename();
    ExpectStoredExactlyOnce(*scratch_, server, name, recording);
    for (const auto& raw : recording.snapshots) recorded.insert(Sha256Hex(raw));
    EXPECT_THAT(Log(name + ".err"), AllOf(Not(HasSubstr("not at hand")), HasSubstr("0 lost")));
  }
  std::vector<std::string> names = HostNames(*scratch_, server);
  ASSERT_EQ(names.size(), 4u) << ::testing::PrintToString(names);
  for (const std::string& name : names) {
    if (name.starts_with("rec-")) continue;
    // This machine's own host: its samples, none of the recordings'.
    nlohmann::json own = StoredSnapshots(*scratch_, server, name);
    EXPECT_GE(own.size(), 2u);
    for (const auto& stored : own) EXPECT_FALSE(recorded.contains(stored["sha256"]));
  }
  EXPECT_THAT(Log("procfs.err"), AllOf(Not(HasSubstr("not at hand")), HasSubstr("0 lost")));
}

// Case 1: one agent process per spool folder. A second agent for the same host (default
// settings, so the same folder) fails at once, naming the first one's PID and --spool-dir.
TEST_F(FleetTest, ASecondAgentForTheSameFolderFailsAtOnceNamingTheFirst) {
  ServerProcess server(*scratch_);
  ASSERT_TRUE(server.Start());
  ChildProcess first({AgentBinary(), "run", "--server", server.address(), "--insecure",
                      "--host-name", "twin", "--interval", "1s"},
                     *scratch_ / "first.out", *scratch_ / "first.err");
  ASSERT_TRUE(WaitForMatch(*scratch_ / "first.err", "sampling Global", std::chrono::seconds(30)));
  CommandResult second =
      RunCommand(*scratch_, {AgentBinary(), "run", "--server", server.address(), "--insecure",
                             "--host-name", "TWIN", "--interval", "1s"});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_THAT(second.err,
              AllOf(HasSubstr("spool " + SpoolOf("twin") + " is in use by another perfhive-agent"),
                    HasSubstr("locked by process " + std::to_string(first.pid())),
                    HasSubstr("--spool-dir")));
  first.Signal(SIGTERM);
  EXPECT_EQ(first.Wait(std::chrono::seconds(30)), 0) << Log("first.err");
}

// Case 2: an agent run as hostx spooled 8 snapshots with the server down; the same --spool-dir
// used next by an agent run as hosty delivered all 13 as hosty. Now hosty ships its own alone,
// says hostx's are kept aside, and `perfhive-agent drain` ships those as hostx.
TEST_F(FleetTest, ASpoolIsShippedOnlyUnderTheNameItWasTakenAs) {
  ServerProcess server(*scratch_);
  ReplayDir x = RecordThisHost(*scratch_, "recx", 8);
  ReplayDir y = RecordThisHost(*scratch_, "recy", 5);
  std::string shared = *scratch_ / "shared-spool";
  CommandResult hostx = RunCommand(
      *scratch_, Replay(server, x, "hostx", "20ms", {"--spool-dir", shared, "--timeout", "2s"}));
  EXPECT_EQ(hostx.exit_code, 1) << hostx.err;  // the server never answered
  EXPECT_EQ(SpooledFiles(shared), 8u);

  ASSERT_TRUE(server.Start());
  CommandResult hosty =
      RunCommand(*scratch_, Replay(server, y, "hosty", "20ms", {"--spool-dir", shared}));
  EXPECT_EQ(hosty.exit_code, 0) << hosty.err;
  EXPECT_THAT(hosty.err, AllOf(HasSubstr("8 snapshots taken as hostx (agent), are kept aside"),
                               HasSubstr("perfhive-agent drain --spool-dir " + shared)));
  ExpectStoredExactlyOnce(*scratch_, server, "hosty", y);
  EXPECT_THAT(HostNames(*scratch_, server), ::testing::ElementsAre("hosty"));

  CommandResult drained =
      RunCommand(*scratch_, {AgentBinary(), "drain", "--server", server.address(), "--insecure",
                             "--spool-dir", shared, "--timeout", "60s"});
  EXPECT_EQ(drained.exit_code, 0) << drained.err;
  EXPECT_THAT(drained.err, HasSubstr("drained hostx (agent): 8 of 8 acknowledged"));
  ExpectStoredExactlyOnce(*scratch_, server, "hostx", x);
  ExpectStoredExactlyOnce(*scratch_, server, "hosty", y);
  EXPECT_EQ(SpooledFiles(shared), 0u);
}

// Case 3: replaying a host's snapshot files a second time (a new agent process: another
// instance id, sequences from 1 again) stored every one of them again. So did two agents
// replaying the same files at once.
TEST_F(FleetTest, TheSameRecordingReplayedAgainIsStoredOnce) {
  ServerProcess server(*scratch_);
  ASSERT_TRUE(server.Start());
  ReplayDir recording = RecordThisHost(*scratch_, "rec", 12);
  CommandResult first = RunCommand(*scratch_, Replay(server, recording, "again"));
  EXPECT_EQ(first.exit_code, 0) << first.err;
  CommandResult second = RunCommand(*scratch_, Replay(server, recording, "again"));
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.err, HasSubstr("12 acknowledged (12 duplicates)"));
  ExpectStoredExactlyOnce(*scratch_, server, "again", recording);

  // Two at once, each with a folder of its own (one folder is one agent's).
  std::vector<std::unique_ptr<ChildProcess>> both;
  for (const char* folder : {"spool-1", "spool-2"}) {
    both.push_back(std::make_unique<ChildProcess>(
        Replay(server, recording, "together", "5ms", {"--spool-dir", *scratch_ / folder}),
        *scratch_ / (std::string(folder) + ".out"), *scratch_ / (std::string(folder) + ".err")));
  }
  for (auto& agent : both) EXPECT_EQ(agent->Wait(kGenerous), 0);
  ExpectStoredExactlyOnce(*scratch_, server, "together", recording);
}

// Case 5: an agent that spooled a long outage's backlog sent it at once on reconnect; past the
// server's rate limit it was refused ("more than 50 snapshots per second on one stream"), the
// deltas after each refusal were refused too ("send a keyframe"), and all were deleted while the
// final line said "0 lost". Past the limit the server now reads more slowly: all are stored.
TEST_F(FleetTest, AnOutagesBacklogIsStoredWholeWhenTheServerComesBack) {
  ServerProcess server(*scratch_, {"--insecure", "--max-snapshots-per-second", "20"});
  ReplayDir recording = RecordThisHost(*scratch_, "outage", 150, std::chrono::milliseconds(2));
  ChildProcess agent(Replay(server, recording, "outage", "10ms"), *scratch_ / "agent.out",
                     *scratch_ / "agent.err");
  for (int i = 0; i < 600 && SpooledFiles(SpoolOf("outage")) < 150; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(SpooledFiles(SpoolOf("outage")), 150u) << Log("agent.err");
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(agent.Wait(kGenerous), 0) << Log("agent.err");
  EXPECT_THAT(Log("agent.err"), AllOf(HasSubstr("150 acknowledged"), HasSubstr("; 0 lost"),
                                      Not(HasSubstr("the server refused"))));
  ExpectStoredExactlyOnce(*scratch_, server, "outage", recording);
  EXPECT_THAT(ReadWholeFile(server.log_path()), Not(HasSubstr("event=refused")));
}

// Case 6: a snapshot whose sample was stored with other bytes ended the stream as UNAVAILABLE,
// and the agent sent it first again at every reconnect, so nothing more from the host was ever
// stored. It is refused as a conflict, counted as lost, and everything after it is stored.
TEST_F(FleetTest, AConflictIsRefusedAndTheHostGoesOn) {
  ServerProcess server(*scratch_);
  ASSERT_TRUE(server.Start());
  ReplayDir first = RecordThisHost(*scratch_, "rec-first", 6);
  CommandResult stored = RunCommand(*scratch_, Replay(server, first, "h"));
  ASSERT_EQ(stored.exit_code, 0) << stored.err;

  ReplayDir later = RecordThisHost(*scratch_, "rec-later", 6);
  std::vector<std::vector<uint8_t>> mixed = {WithOneValueChanged(first.snapshots[0])};
  mixed.insert(mixed.end(), later.snapshots.begin(), later.snapshots.end());
  ReplayDir conflicting = WriteReplayFiles(*scratch_, "rec-conflict", mixed, first.titles);
  CommandResult refused = RunCommand(*scratch_, Replay(server, conflicting, "h"));
  EXPECT_EQ(refused.exit_code, 1);  // a snapshot was lost
  EXPECT_THAT(refused.err,
              AllOf(HasSubstr("ALREADY_EXISTS: host h already has a \"Global\" sample"),
                    HasSubstr("6 acknowledged"), HasSubstr("1 lost (1 refused by the server")));
  ReplayDir both = first;
  both.snapshots.insert(both.snapshots.end(), later.snapshots.begin(), later.snapshots.end());
  ExpectStoredExactlyOnce(*scratch_, server, "h", both);
  EXPECT_THAT(ReadWholeFile(server.log_path()), HasSubstr("event=conflict"));
}

// Case 7: while connected, snapshots not yet acknowledged were only in memory: kill -9 of the
// agent lost what was in flight. Every snapshot is on disk before it is on the wire, so the next
// run of the agent ships everything the killed one took.
TEST_F(FleetTest, AnAgentKilledWhileConnectedLosesNothingItTook) {
  ServerProcess server(*scratch_);
  ASSERT_TRUE(server.Start());
  ReplayDir recording = RecordThisHost(*scratch_, "rec", 150, std::chrono::milliseconds(2));
  ChildProcess agent(Replay(server, recording, "inflight"), *scratch_ / "agent.out",
                     *scratch_ / "agent.err");
  ASSERT_TRUE(WaitForMatch(server.log_path(), "event=hello", std::chrono::seconds(30)));
  server.Kill(SIGSTOP);  // connected, but nothing is answered any more
  std::this_thread::sleep_for(std::chrono::seconds(2));
  agent.Signal(SIGKILL);
  agent.Wait(std::chrono::seconds(10));
  size_t spooled = SpooledFiles(SpoolOf("inflight"));
  server.Kill(SIGCONT);
  EXPECT_GE(spooled, 40u) << "taken while the server could not answer, so on disk";

  ReplayDir nothing_new = WriteReplayFiles(*scratch_, "rec-none", {}, recording.titles);
  CommandResult next = RunCommand(*scratch_, Replay(server, nothing_new, "inflight"));
  EXPECT_EQ(next.exit_code, 0) << next.err;
  nlohmann::json stored = StoredSnapshots(*scratch_, server, "inflight");
  // What the killed agent took is a prefix of the recording: stored whole, once, in order.
  ASSERT_GE(stored.size(), spooled);
  ASSERT_LE(stored.size(), recording.snapshots.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(recording.snapshots[i])) << "snapshot " << i;
  }
}

// A host whose wall clock steps (NTP, a VM resumed) loses nothing: stepped back, SystemTimes
// repeat but PerfTime does not, so the samples after the step are new ones, stored beside those
// before; stepped forward, the series has a gap and its rates, from PerfTime, stay valid.
TEST_F(FleetTest, AHostWhoseWallClockStepsLosesNothing) {
  ServerProcess server(*scratch_);
  ASSERT_TRUE(server.Start());
  for (auto [name, step_back] :
       {std::pair{"stepped-back", true}, std::pair{"stepped-forward", false}}) {
    SCOPED_TRACE(name);
    ReplayDir recording =
        RecordThisHost(*scratch_, std::string(name) + "-rec", 30, std::chrono::milliseconds(10));
    // Back: sample 15 lands on sample 5's time, so that the samples after the step repeat the
    // SystemTimes of those before, however long the recording took (regression: a fixed 400 ms
    // fell behind sample 14 on a loaded machine, and nothing repeated). Forward: an hour.
    std::chrono::milliseconds shift(step_back ? WallClockMilliseconds(recording.snapshots[5]) -
                                                    WallClockMilliseconds(recording.snapshots[15])
                                              : 3'600'000);
    std::vector<std::vector<uint8_t>> stepped = recording.snapshots;
    for (size_t i = 15; i < stepped.size(); ++i)
      stepped[i] = WithWallClockShifted(stepped[i], shift);
    ReplayDir dir = WriteReplayFiles(*scratch_, name, stepped, recording.titles);
    CommandResult replayed = RunCommand(*scratch_, Replay(server, dir, name));
    EXPECT_EQ(replayed.exit_code, 0) << replayed.err;
    nlohmann::json stored = StoredSnapshots(*scratch_, server, name);
    std::set<std::string> expected, got;
    for (const auto& raw : stepped) expected.insert(Sha256Hex(raw));
    for (const auto& snapshot : stored) got.insert(snapshot["sha256"]);
    EXPECT_EQ(stored.size(), stepped.size());
    EXPECT_EQ(got, expected);
    // The host's context switches, counted by PerfTime, which no step moves: one series, every
    // point valid but the first and, after a step back, where a sample taken after the step
    // follows one taken before it, PerfTime going back. (Regression: % Processor Time counts by
    // PerfTime100nSec, which moves with the wall clock, so its crossings showed only where the
    // idle time went down, and on a busy machine it did not.)
    CommandResult query =
        RunCommand(*scratch_, {CliBinary(), "query",
                               "\\\\" + std::string(name) + "\\System\\Context Switches/sec",
                               "--server", server.address(), "--insecure", "--format", "json"});
    ASSERT_EQ(query.exit_code, 0) << query.err;
    nlohmann::json series = nlohmann::json::parse(query.out)["series"];
    ASSERT_EQ(series.size(), 1u);
    const size_t points = series[0]["values"].size();
    const size_t invalid = points - ValidValues(series[0]).size();
    EXPECT_EQ(points, stepped.size());
    if (shift.count() > 0) {
      EXPECT_EQ(invalid, 1u);
    } else {
      EXPECT_GE(invalid, 2u) << series[0]["statuses"].dump();
      EXPECT_LE(invalid, stepped.size() / 2);
    }
  }
}

// Case 9, the agent's side: a name that is not a computer name is refused before anything is
// sampled, saying what is wrong.
TEST_F(FleetTest, AnAgentRefusesAHostNameThatIsNotOne) {
  ServerProcess server(*scratch_);
  CommandResult bad = RunCommand(*scratch_, {AgentBinary(), "run", "--server", server.address(),
                                             "--insecure", "--host-name", "web 01"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("--host-name: host name \"web 01\" is not a computer name"));
}

}  // namespace
}  // namespace perfhive::testing
