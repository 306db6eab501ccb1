// End to end, with real processes on loopback: perfhive-server, agents (procfs and replay) and
// the perfhive CLI. Each test says what it proves.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "export/http_client.h"
#include "tests/e2e/e2e_cluster.h"

namespace perfhive::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<std::string> ReplayAgent(const ServerProcess& server, const ReplayDir& dir,
                                     const std::string& host, const ScratchDir& scratch,
                                     std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {
      AgentBinary(), "run",    "--server",    server.address(),
      "--source",    "replay", "--replay",    dir.path,
      "--host-name", host,     "--interval",  "50ms",
      "--timeout",   "60s",    "--spool-dir", scratch / ("spool-" + host)};
  bool has_security = false;
  for (const std::string& flag : extra) has_security |= flag == "--ca" || flag == "--token-file";
  if (!has_security) argv.push_back("--insecure");
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// Proves: several agents (procfs, and replays with their own title databases under other host
// names) stream to one server, which stores every snapshot exactly once and bit for bit, with
// the title database each was taken with; `perfhive raw` gives back the exact bytes.
TEST(IngestEndToEndTest, SeveralAgentsStoreEverySnapshotExactlyOnce) {
  ScratchDir scratch("agents");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  ReplayDir windows_a = WriteReplayDir(scratch, "WINA", 8, 0, "");
  ReplayDir windows_b = WriteReplayDir(scratch, "WINB", 5, 30, " B");
  ChildProcess replay_a(ReplayAgent(server, windows_a, "WINA", scratch), scratch / "a.out",
                        scratch / "a.err");
  ChildProcess replay_b(ReplayAgent(server, windows_b, "WINB", scratch), scratch / "b.out",
                        scratch / "b.err");
  ChildProcess procfs(
      {AgentBinary(), "run", "--server", server.address(), "--insecure", "--source", "procfs",
       "--host-name", "linux-e2e", "--interval", "200ms", "--spool-dir", scratch / "spool-procfs"},
      scratch / "procfs.out", scratch / "procfs.err");
  EXPECT_EQ(replay_a.Wait(std::chrono::seconds(90)), 0) << ReadWholeFile(scratch / "a.err");
  EXPECT_EQ(replay_b.Wait(std::chrono::seconds(90)), 0) << ReadWholeFile(scratch / "b.err");
  // The procfs agent has shipped a few by now; SIGTERM stops it cleanly.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  procfs.Signal(SIGTERM);
  EXPECT_EQ(procfs.Wait(std::chrono::seconds(20)), 0) << ReadWholeFile(scratch / "procfs.err");

  ExpectStoredExactlyOnce(scratch, server, "WINA", windows_a);
  ExpectStoredExactlyOnce(scratch, server, "WINB", windows_b);
  EXPECT_GE(StoredSnapshots(scratch, server, "linux-e2e").size(), 2u);

  nlohmann::json stored = StoredSnapshots(scratch, server, "WINB");
  ASSERT_FALSE(stored.empty());
  CommandResult raw =
      RunCommand(scratch, {CliBinary(), "raw", "\\\\WINB", "--at", stored[2]["time"], "--output",
                           scratch / "raw.bin", "--titles-output", scratch / "raw.titles",
                           "--server", server.address(), "--insecure"});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  std::string bytes = ReadWholeFile(scratch / "raw.bin");
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), windows_b.snapshots[2]);
  std::string titles = ReadWholeFile(scratch / "raw.titles");
  EXPECT_EQ(std::vector<uint8_t>(titles.begin(), titles.end()), windows_b.titles);

  CommandResult hosts = RunCommand(scratch, {CliBinary(), "hosts", "--server", server.address(),
                                             "--insecure", "--format", "json"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  nlohmann::json listed = nlohmann::json::parse(hosts.out)["hosts"];
  std::vector<std::string> names;
  for (const auto& host : listed) names.push_back(host["name"]);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("WINA", "WINB", "linux-e2e"));
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a server killed with SIGKILL mid-stream and restarted on the same data loses nothing
// it acknowledged, and the agent's resends after reconnecting are stored once.
TEST(IngestEndToEndTest, KillNineTheServerMidStreamLosesNothing) {
  ScratchDir scratch("kill9");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  ReplayDir dir = WriteReplayDir(scratch, "WINK", 40);
  ChildProcess agent(ReplayAgent(server, dir, "WINK", scratch), scratch / "agent.out",
                     scratch / "agent.err");
  ASSERT_TRUE(WaitForMatch(server.log_path(), "event=hello", std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  server.Kill(SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(agent.Wait(std::chrono::seconds(90)), 0) << ReadWholeFile(scratch / "agent.err");
  ExpectStoredExactlyOnce(scratch, server, "WINK", dir);
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a server with default settings rewrites closed groups as columnar blocks by itself,
// beside the agent's appends, and every snapshot then still reads back byte for byte, and the
// host's stored bytes shrink.
TEST(IngestEndToEndTest, ClosedGroupsAreCompactedByDefaultAndReadBackExactly) {
  ScratchDir scratch("compaction");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  ReplayDir dir = WriteReplayDir(scratch, "WINC", 130);  // groups of 60: two closed, one open
  ChildProcess agent(ReplayAgent(server, dir, "WINC", scratch), scratch / "agent.out",
                     scratch / "agent.err");
  // Groups compacted so far, and the stored bytes that saved, by the server's log.
  auto compacted = [&] {
    std::string log = ReadWholeFile(server.log_path());
    static const std::regex kLine(
        "event=compaction groups=([0-9]+) snapshots=[0-9]+ "
        "bytes_saved=([0-9]+)");
    std::pair<int, int64_t> total{0, 0};
    for (auto it = std::sregex_iterator(log.begin(), log.end(), kLine);
         it != std::sregex_iterator(); ++it) {
      total.first += std::stoi((*it)[1]);
      total.second += std::stoll((*it)[2]);
    }
    return total;
  };
  EXPECT_EQ(agent.Wait(std::chrono::seconds(90)), 0) << ReadWholeFile(scratch / "agent.err");
  // The pass runs every 10 s; groups close at snapshots 60 and 120 (or sooner, should a delta
  // come out too large).
  ASSERT_TRUE(WaitUntil([&] { return compacted().first >= 2; }, std::chrono::seconds(40)))
      << ReadWholeFile(server.log_path());
  EXPECT_GT(compacted().second, 0);
  ExpectStoredExactlyOnce(scratch, server, "WINC", dir);
  nlohmann::json stored = StoredSnapshots(scratch, server, "WINC");
  ASSERT_EQ(stored.size(), dir.snapshots.size());
  for (size_t i = 0; i < stored.size(); i += 9) {
    CommandResult raw =
        RunCommand(scratch, {CliBinary(), "raw", "\\\\WINC", "--at", stored[i]["time"], "--output",
                             scratch / "raw.bin", "--server", server.address(), "--insecure"});
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    std::string bytes = ReadWholeFile(scratch / "raw.bin");
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), dir.snapshots[i]) << i;
  }
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a connection that stalls (the server stopped with SIGSTOP) and comes back delivers
// everything, once.
TEST(IngestEndToEndTest, AStalledServerThatComesBackGetsEverything) {
  ScratchDir scratch("stall");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  ReplayDir dir = WriteReplayDir(scratch, "WINS", 30);
  ChildProcess agent(ReplayAgent(server, dir, "WINS", scratch), scratch / "agent.out",
                     scratch / "agent.err");
  ASSERT_TRUE(WaitForMatch(server.log_path(), "event=hello", std::chrono::seconds(30)));
  server.Kill(SIGSTOP);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  server.Kill(SIGCONT);
  EXPECT_EQ(agent.Wait(std::chrono::seconds(90)), 0) << ReadWholeFile(scratch / "agent.err");
  ExpectStoredExactlyOnce(scratch, server, "WINS", dir);
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: snapshots taken while no server is up wait in the spool and arrive, in order, once it
// is; past the spool's limit the oldest are dropped, counted and logged, and `perfhive health`
// says how many were lost (a collection-losses finding; exit 6, it is new).
TEST(IngestEndToEndTest, TheSpoolKeepsTheNewestWhileTheServerIsDown) {
  ScratchDir scratch("spool");
  ServerProcess server(scratch);
  ReplayDir dir = WriteReplayDir(scratch, "WINP", 12);
  // Room for about five snapshots in the spool.
  uint64_t limit = dir.snapshots[0].size() * 5 + 1024;
  ChildProcess agent(
      ReplayAgent(server, dir, "WINP", scratch, {"--spool-max-bytes", std::to_string(limit)}),
      scratch / "agent.out", scratch / "agent.err");
  ASSERT_TRUE(WaitForMatch(scratch / "agent.err", "dropped", std::chrono::seconds(30)))
      << ReadWholeFile(scratch / "agent.err");
  std::this_thread::sleep_for(std::chrono::milliseconds(800));  // every file read by now
  ASSERT_TRUE(server.Start());
  agent.Wait(std::chrono::seconds(60));
  nlohmann::json stored = StoredSnapshots(scratch, server, "WINP");
  ASSERT_GE(stored.size(), 3u);
  ASSERT_LT(stored.size(), dir.snapshots.size());
  // What arrived is the newest run of snapshots, in order, bit for bit.
  size_t first = dir.snapshots.size() - stored.size();
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(dir.snapshots[first + i])) << i;
  }
  CommandResult health = RunCommand(scratch, {CliBinary(), "health", "--server", server.address(),
                                              "--insecure", "--format", "json"});
  EXPECT_EQ(health.exit_code, 6) << health.err << health.out;
  const nlohmann::json report = nlohmann::json::parse(health.out);
  int losses = 0;
  for (const nlohmann::json& finding : report["findings"]) {
    if (finding["kind"] != "collection-losses") continue;
    ++losses;
    ASSERT_EQ(finding["hosts"].size(), 1u);
    EXPECT_EQ(finding["hosts"][0]["host"], "WINP");
    EXPECT_THAT(finding["hosts"][0]["cause"].get<std::string>(),
                HasSubstr(std::to_string(dir.snapshots.size() - stored.size()) +
                          " snapshots dropped by the spool's limit"));
  }
  EXPECT_EQ(losses, 1) << health.out;
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: a Linux agent times each object of its snapshots asked for alone, with the real /proc,
// and sends the sweep; `perfhive health` lists its slowest objects by name, slowest first, and
// /metrics gives the same times.
TEST(IngestEndToEndTest, AnAgentTimesEachObjectAloneAndTheReportNamesTheSlowest) {
  ScratchDir scratch("timings");
  ServerProcess server(scratch, {"--insecure", "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(server.Start());
  ChildProcess agent(
      {AgentBinary(), "run", "--server", server.address(), "--insecure", "--source", "procfs",
       "--host-name", "linux-timed", "--interval", "500ms", "--spool-dir", scratch / "spool"},
      scratch / "agent.out", scratch / "agent.err");
  nlohmann::json slowest;
  const auto started = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - started < std::chrono::seconds(60)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CommandResult health = RunCommand(scratch, {CliBinary(), "health", "--server", server.address(),
                                                "--insecure", "--format", "json"});
    const nlohmann::json report = nlohmann::json::parse(health.out, nullptr, false);
    if (report.is_object() && !report["slowest_objects"].empty()) {
      slowest = report["slowest_objects"];
      break;
    }
  }
  ASSERT_EQ(slowest.size(), 1u) << ReadWholeFile(scratch / "agent.err");
  EXPECT_EQ(slowest[0]["host"], "linux-timed");
  const nlohmann::json& objects = slowest[0]["objects"];
  ASSERT_EQ(objects.size(), 5u) << slowest.dump();  // procfs gives more objects than five
  std::set<std::string> names;
  for (size_t i = 0; i < objects.size(); ++i) {
    const std::string name = objects[i]["object"];
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(name.find_first_not_of("0123456789"), 0u) << "named by the host's titles: " << name;
    const double seconds = objects[i]["seconds"];
    EXPECT_GT(seconds, 0);
    EXPECT_LT(seconds, 10);
    if (i > 0) {
      EXPECT_LE(seconds, objects[i - 1]["seconds"].get<double>()) << "slowest first";
    }
  }
  HttpClientOptions large;
  large.max_body_bytes = size_t{64} << 20;
  Result<HttpResponse> metrics =
      HttpClient(large).Get(ListeningUrl(server, "metrics") + "/metrics");
  ASSERT_TRUE(metrics.ok()) << metrics.error();
  for (const std::string& name : names) {
    EXPECT_THAT(metrics->body, HasSubstr("perfhive_object_collection_seconds{host=\"linux-timed\","
                                         "object=\"" +
                                         name + "\"}"));
  }
  agent.Signal(SIGTERM);
  EXPECT_EQ(agent.Wait(std::chrono::seconds(20)), 0) << ReadWholeFile(scratch / "agent.err");
  EXPECT_THAT(ReadWholeFile(scratch / "agent.err"), Not(HasSubstr("asked for alone failed")));
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: malformed and oversized snapshots among good ones are refused with the reader's
// message, counted per host, and everything else is stored; the agent finishes, saying it lost
// two and why, and exits 1 (a replay that lost data did not succeed).
TEST(IngestEndToEndTest, MalformedAndOversizedSnapshotsAreRefusedAndTheRestStored) {
  ScratchDir scratch("malformed");
  ServerProcess server(scratch, {"--insecure", "--max-snapshot-bytes", "6000"});
  ASSERT_TRUE(server.Start());
  ReplayDir dir = WriteReplayDir(scratch, "WINM", 6);
  // File 2 loses its signature; file 4 grows past the server's limit.
  {
    std::vector<uint8_t> broken = dir.snapshots[2];
    broken[2] = 'X';
    std::ofstream(dir.path + "/00002.perf", std::ios::binary)
        .write(reinterpret_cast<const char*>(broken.data()),
               static_cast<std::streamsize>(broken.size()));
    std::vector<uint8_t> big = dir.snapshots[4];
    big.resize(8000, 0);  // trailing bytes past TotalByteLength still parse
    std::ofstream(dir.path + "/00004.perf", std::ios::binary)
        .write(reinterpret_cast<const char*>(big.data()), static_cast<std::streamsize>(big.size()));
  }
  ChildProcess agent(ReplayAgent(server, dir, "WINM", scratch), scratch / "agent.out",
                     scratch / "agent.err");
  EXPECT_EQ(agent.Wait(std::chrono::seconds(60)), 1) << ReadWholeFile(scratch / "agent.err");
  EXPECT_THAT(ReadWholeFile(scratch / "agent.err"),
              HasSubstr("; 2 lost (2 refused by the server, 0 dropped"));
  nlohmann::json stored = StoredSnapshots(scratch, server, "WINM");
  ASSERT_EQ(stored.size(), 4u);
  for (int i : {0, 1, 3, 5}) {
    bool found = false;
    for (const auto& s : stored) found |= s["sha256"] == Sha256Hex(dir.snapshots[i]);
    EXPECT_TRUE(found) << "file " << i;
  }
  EXPECT_THAT(ReadWholeFile(server.log_path()), HasSubstr("Signature"));
  CommandResult hosts = RunCommand(scratch, {CliBinary(), "hosts", "--server", server.address(),
                                             "--insecure", "--format", "json"});
  nlohmann::json listed = nlohmann::json::parse(hosts.out)["hosts"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["refused"], 2);
  EXPECT_EQ(server.Stop(), 0);
}

// Proves: when the agent cannot read its host, the server learns why (a HealthReport), and
// `perfhive hosts` shows it as the host's last error, while the snapshots that could be read are
// stored.
TEST(IngestEndToEndTest, AHostThatCannotBeReadShowsItsLastErrorInHosts) {
  ScratchDir scratch("health");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  ReplayDir dir = WriteReplayDir(scratch, "WINH", 3);
  // The last "file" is a directory: reading it fails as reading a host can.
  std::filesystem::create_directory(dir.path + "/00009.perf");
  ChildProcess agent(ReplayAgent(server, dir, "WINH", scratch), scratch / "agent.out",
                     scratch / "agent.err");
  EXPECT_EQ(agent.Wait(std::chrono::seconds(60)), 0) << ReadWholeFile(scratch / "agent.err");
  CommandResult hosts = RunCommand(scratch, {CliBinary(), "hosts", "--server", server.address(),
                                             "--insecure", "--format", "json"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  nlohmann::json listed = nlohmann::json::parse(hosts.out)["hosts"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_THAT(listed[0]["last_error"].get<std::string>(), HasSubstr("00009.perf"));
  EXPECT_EQ(listed[0]["snapshots"], 3);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace perfhive::testing
