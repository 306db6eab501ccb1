// End to end: what `perfhive query`, `watch` and the browsing commands answer from a real
// server holding snapshots of several hosts (replayed builder-made Windows-like snapshots, each
// host with its own title database, and this Linux host through the procfs agent). The expected
// values are the ones the snapshots were built with (tests/e2e/e2e_cluster.h), not computed here.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "perfdata/snapshot_builder.h"
#include "perfdata/time_text.h"
#include "perfdata/title_database.h"
#include "perfdata/well_known_indexes.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/support/answer_points.h"

namespace perfhive::testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

// Title index of the "Print Queue" object of the SPOOLER host (an extensible object's place).
constexpr uint32_t kPrintQueue = 9000;
constexpr uint32_t kJobs = 9002;

// A replay directory of `count` samples of a host whose "Print Queue" object keeps an instance
// list that is always empty, beside a Processor with one instance.
std::string WriteSpoolerDir(const ScratchDir& scratch, const std::string& name, int count) {
  const std::string dir = scratch / name;
  std::filesystem::create_directories(dir);
  TitleDatabase titles;
  titles.AddName(title_index::kProcessor, "Processor");
  titles.AddName(title_index::kPercentProcessorTime, "% Processor Time");
  titles.AddName(kPrintQueue, "Print Queue");
  titles.AddName(kJobs, "Jobs");
  const std::vector<uint8_t> counters = titles.EncodeNames();
  WriteText(dir + "/titles.bin", std::string(counters.begin(), counters.end()));
  for (int second = 0; second < count; ++second) {
    SnapshotBuilder builder;
    builder.set_system_name(name)
        .set_system_time({2026, 11, 1, 22, 10, 0, static_cast<uint16_t>(second), 0})
        .set_perf_freq(10'000'000)
        .set_perf_time(int64_t{10'000'000} * second)
        .set_perf_time_100ns(int64_t{10'000'000} * second);
    ObjectBuilder& processor = builder.AddObject(title_index::kProcessor);
    uint32_t busy = processor.AddCounter(
        {.name_index = title_index::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
    processor.SetValue(processor.AddInstance("0"), busy, uint64_t{5'000'000} * second);
    builder.AddObject(kPrintQueue)
        .AddCounter({.name_index = kJobs, .type = winperf::kCounterRawcount});
    std::vector<uint8_t> bytes = builder.Build();
    WriteText(dir + "/0000" + std::to_string(second) + ".perf",
              std::string(bytes.begin(), bytes.end()));
  }
  return dir;
}

// One server with four replayed hosts: WINA and WINB share a build (English names), LOCAL7 has
// its objects named otherwise ("Processor X"); on WINA the first "app" exits at snapshot 4.
// SPOOLER has a "Print Queue" without instances. Their agents label them (kQueryHostLabels).
const std::map<std::string, std::vector<std::string>> kQueryHostLabels = {
    {"WINA", {"role=web", "site=ams"}},
    {"WINB", {"role=web", "site=fra"}},
    {"LOCAL7", {"role=app", "site=fra"}},
    {"SPOOLER", {"role=print", "site=ams"}}};

class QueryEndToEndTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new ScratchDir("query");
    server_ = new ServerProcess(*scratch_);
    ASSERT_TRUE(server_->Start());
    std::vector<std::string> dirs = {WriteReplayDir(*scratch_, "WINA", 8, 0, "", 4).path,
                                     WriteReplayDir(*scratch_, "WINB", 8, 0, "").path,
                                     WriteReplayDir(*scratch_, "LOCAL7", 4, 0, " X").path,
                                     WriteSpoolerDir(*scratch_, "SPOOLER", 3)};
    for (const std::string& dir : dirs) {
      std::string host = dir.substr(dir.rfind('/') + 1);
      std::vector<std::string> argv = {AgentBinary(),
                                       "run",
                                       "--server",
                                       server_->address(),
                                       "--insecure",
                                       "--source",
                                       "replay",
                                       "--replay",
                                       dir,
                                       "--host-name",
                                       host,
                                       "--interval",
                                       "20ms",
                                       "--timeout",
                                       "60s",
                                       "--spool-dir",
                                       *scratch_ / ("spool-" + host)};
      for (const std::string& label : kQueryHostLabels.at(host))
        argv.insert(argv.end(), {"--label", label});
      CommandResult replayed = RunCommand(*scratch_, argv, std::chrono::seconds(90));
      ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
    }
  }
  static void TearDownTestSuite() {
    server_->Stop();
    delete server_;
    delete scratch_;
  }

  // The CLI's command line: `args`, then this suite's server.
  std::vector<std::string> CliArgv(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {CliBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--server", server_->address(), "--insecure"});
    return argv;
  }
  CommandResult Cli(std::vector<std::string> args) { return RunCommand(*scratch_, CliArgv(args)); }
  // As Cli, with standard output on a full disk (/dev/full, which RunCommand could not read back):
  // the exit code (nullopt if still running after `limit`) and standard error.
  std::pair<std::optional<int>, std::string> CliIntoAFullDisk(const std::vector<std::string>& args,
                                                              std::chrono::seconds limit) {
    static int runs = 0;
    std::string err = *scratch_ / ("full-disk-" + std::to_string(++runs) + ".err");
    ChildProcess cli(CliArgv(args), "/dev/full", err);
    std::optional<int> exit_code = cli.Wait(limit);
    return {exit_code, ReadWholeFile(err)};
  }
  nlohmann::json Json(std::vector<std::string> args) {
    args.insert(args.end(), {"--format", "json"});
    CommandResult result = Cli(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.exit_code == 0 ? nlohmann::json::parse(result.out) : nlohmann::json();
  }

  static ScratchDir* scratch_;
  static ServerProcess* server_;
};

ScratchDir* QueryEndToEndTest::scratch_ = nullptr;
ServerProcess* QueryEndToEndTest::server_ = nullptr;

std::vector<double> Repeat(double value, size_t times) { return std::vector<double>(times, value); }

// Proves: a wildcard machine selects every host it matches, names resolve per host, and values
// are the quantities the snapshots were built with.
TEST_F(QueryEndToEndTest, WildcardsSpanHostsAndValuesAreTheBuiltQuantities) {
  nlohmann::json answer = Json({"query", "\\\\WIN*\\Processor(*)\\% Processor Time"});
  std::map<std::string, std::vector<double>> by_path;
  for (const auto& series : answer["series"]) by_path[series["path"]] = ValidValues(series);
  ASSERT_EQ(by_path.size(), 4u) << answer.dump(1);
  // Eight samples: seven intervals, each exactly 25% and 50% busy.
  EXPECT_EQ(by_path["\\\\WINA\\Processor(0)\\% Processor Time"], Repeat(25, 7));
  EXPECT_EQ(by_path["\\\\WINA\\Processor(1)\\% Processor Time"], Repeat(50, 7));
  EXPECT_EQ(by_path["\\\\WINB\\Processor(0)\\% Processor Time"], Repeat(25, 7));
  EXPECT_EQ(by_path["\\\\WINB\\Processor(1)\\% Processor Time"], Repeat(50, 7));
  // LOCAL7 calls the object "Processor X": the English name of the others does not reach it,
  // its own does.
  nlohmann::json local = Json({"query", "\\\\*\\Processor X(1)\\% Processor Time"});
  ASSERT_EQ(local["series"].size(), 1u);
  EXPECT_EQ(local["series"][0]["host"], "LOCAL7");
  EXPECT_EQ(ValidValues(local["series"][0]), Repeat(50, 3));
}

// Proves: a series follows one process by PID when its #n position changes: PID 1001 is app#1,
// then plain "app" once PID 1000 exits, and keeps its own history and values (20%).
TEST_F(QueryEndToEndTest, SeriesFollowProcessesWhenTheirNumberChanges) {
  nlohmann::json answer = Json({"query", "\\\\WINA\\Process(app*)\\% Processor Time"});
  std::map<int, nlohmann::json> by_pid;
  for (const auto& series : answer["series"]) by_pid[series["pid"]] = series;
  ASSERT_EQ(by_pid.size(), 2u) << answer.dump(1);
  EXPECT_EQ(ValidValues(by_pid[1000]), Repeat(10, 3));  // samples 0..3
  EXPECT_EQ(ValidValues(by_pid[1001]), Repeat(20, 7));
  EXPECT_EQ(by_pid[1001]["path"], "\\\\WINA\\Process(app)\\% Processor Time");
  bool had_old_name = false;
  for (const AnswerPoint& point : AnswerPoints(by_pid[1001])) {
    had_old_name |= point.path == "\\\\WINA\\Process(app#1)\\% Processor Time";
  }
  EXPECT_TRUE(had_old_name) << by_pid[1001].dump(1);
}

// Proves: --step resamples exactly from the raw samples at the steps' ends, and --stats gives
// the figures of the built values.
TEST_F(QueryEndToEndTest, StepsAndStatisticsAreExact) {
  nlohmann::json stepped =
      Json({"query", "\\\\WINB\\Process(svc)\\% Processor Time", "--from", "2026-11-22T10:00:00Z",
            "--to", "2026-11-22T10:00:07Z", "--step", "2s", "--stats"});
  ASSERT_EQ(stepped["series"].size(), 1u) << stepped.dump(1);
  const auto& series = stepped["series"][0];
  std::vector<std::string> times;
  for (const AnswerPoint& point : AnswerPoints(series)) {
    times.push_back(FormatRfc3339(point.time_ms * 1'000'000));
  }
  // Each point is the value between two boundaries, timed at the later one.
  EXPECT_THAT(times,
              ElementsAre("2026-11-22T10:00:02Z", "2026-11-22T10:00:04Z", "2026-11-22T10:00:06Z"));
  EXPECT_EQ(ValidValues(series), Repeat(30, 3));
  EXPECT_EQ(series["statistics"]["count"], 7);
  EXPECT_DOUBLE_EQ(series["statistics"]["min"], 30);
  EXPECT_DOUBLE_EQ(series["statistics"]["max"], 30);
  EXPECT_DOUBLE_EQ(series["statistics"]["mean"], 30);
}

// Splits one CSV line on commas outside quotes, unquoting each cell.
std::vector<std::string> CsvCells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

// Proves: --format csv is typeperf's layout: a quoted header starting with the PDH-CSV cell and
// the time zone, one column per counter path, one row per sample time.
TEST_F(QueryEndToEndTest, CsvIsInTypeperfsLayout) {
  CommandResult csv = Cli({"query", "\\\\WINB\\Processor(*)\\% Processor Time", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(lines, line)) {
    if (!line.empty() && line != "\r") rows.push_back(CsvCells(line));
  }
  ASSERT_EQ(rows.size(), 9u) << csv.out;  // the header and eight sample times
  EXPECT_THAT(rows[0], ElementsAre("(PDH-CSV 4.0) (Coordinated Universal Time)(0)",
                                   "\\\\WINB\\Processor(0)\\% Processor Time",
                                   "\\\\WINB\\Processor(1)\\% Processor Time"));
  EXPECT_EQ(rows[2][0], "11/22/2026 10:00:01.000");
  EXPECT_EQ(std::stod(rows[2][1]), 25);
  EXPECT_EQ(std::stod(rows[2][2]), 50);
}

// Proves: browsing answers from the stored samples: objects, counters with their types, and
// instances with the PID each process has.
TEST_F(QueryEndToEndTest, BrowsingListsObjectsCountersAndInstancesWithPids) {
  nlohmann::json objects = Json({"objects", "\\\\WINA"});
  std::vector<std::string> names;
  for (const auto& object : objects["objects"]) names.push_back(object["name"]);
  EXPECT_THAT(names, ElementsAre("Processor", "Process", "Memory"));
  nlohmann::json counters = Json({"counters", "\\\\WINA\\Process"});
  ASSERT_GE(counters["counters"].size(), 2u);
  EXPECT_EQ(counters["counters"][0]["name"], "% Processor Time");
  EXPECT_EQ(counters["counters"][0]["type"], "PERF_100NSEC_TIMER");
  nlohmann::json instances = Json({"instances", "\\\\WINB\\Process"});
  std::vector<std::string> listed;
  for (const auto& instance : instances["instances"]) {
    listed.push_back(instance["name"].get<std::string>() + " " +
                     instance["identity"].get<std::string>());
  }
  EXPECT_THAT(listed, ElementsAre("app pid 1000", "app#1 pid 1001", "svc pid 1002"));
}

// The lines of `text` that hold `part`.
std::vector<std::string> LinesWith(const std::string& text, const std::string& part) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(part) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

// name → [hosts that have it, the hosts lacking it] of a browse of several hosts (JSON).
std::map<std::string, std::pair<uint64_t, std::vector<std::string>>> BrowsedPresences(
    const nlohmann::json& items) {
  std::map<std::string, std::pair<uint64_t, std::vector<std::string>>> presences;
  for (const auto& item : items) {
    presences[item["name"]] = {item["hosts"], item["lacking"].get<std::vector<std::string>>()};
  }
  return presences;
}

// Proves: a selector, or a pattern for the host, browses every host it picks: each object,
// counter and instance with how many of them have it and which lack it, as the hosts were built
// (WINA: "app" and "svc" left; WINB: "app", "app#1", "svc"; SPOOLER: Processor and Print
// Queue). The table says "N of M" and names the hosts lacking.
TEST_F(QueryEndToEndTest, BrowsingSeveralHostsCountsTheHostsThatHaveEachName) {
  using Presence = std::pair<uint64_t, std::vector<std::string>>;
  nlohmann::json objects = Json({"objects", "--select", "site=ams"});
  EXPECT_EQ(objects["hosts"], nlohmann::json({"SPOOLER", "WINA"})) << objects.dump(1);
  EXPECT_EQ(objects["without_sample"], 0);
  EXPECT_EQ(BrowsedPresences(objects["objects"]),
            (std::map<std::string, Presence>{{"Processor", {2, {}}},
                                             {"Process", {1, {"SPOOLER"}}},
                                             {"Memory", {1, {"SPOOLER"}}},
                                             {"Print Queue", {1, {"WINA"}}}}));

  nlohmann::json instances = Json({"instances", "\\\\WIN*\\Process"});
  EXPECT_EQ(instances["hosts"], nlohmann::json({"WINA", "WINB"}));
  EXPECT_EQ(instances["object_hosts"], 2);
  EXPECT_EQ(BrowsedPresences(instances["instances"]),
            (std::map<std::string, Presence>{
                {"app", {2, {}}}, {"app#1", {1, {"WINA"}}}, {"svc", {2, {}}}}));

  nlohmann::json counters = Json({"counters", "\\\\*\\Process", "--select", "role!=app"});
  EXPECT_EQ(counters["hosts"], nlohmann::json({"SPOOLER", "WINA", "WINB"}));
  EXPECT_EQ(counters["object_hosts"], 2);
  EXPECT_EQ(counters["object_lacking"], nlohmann::json({"SPOOLER"}));
  EXPECT_EQ(BrowsedPresences(counters["counters"]),
            (std::map<std::string, Presence>{{"% Processor Time", {2, {"SPOOLER"}}},
                                             {"ID Process", {2, {"SPOOLER"}}}}));

  CommandResult table = Cli({"instances", "\\\\*\\Process", "--select", "role=web"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, StartsWith("\\\\*\\Process (role=web): on 2 of 2 hosts, sampled "));
  EXPECT_THAT(LinesWith(table.out, "app#1"), ElementsAre(MatchesRegex("app#1 +1 of 2 +WINA")));
  EXPECT_THAT(LinesWith(table.out, "svc"), ElementsAre(MatchesRegex("svc +2 of 2 +-")));
}

// Proves: a selector that does not parse is named before the server is asked (exit 2), and one
// that selects no host says how many the pattern matched (exit 3).
TEST_F(QueryEndToEndTest, ABadSelectorForBrowsingSaysWhatIsWrong) {
  CommandResult bad = Cli({"objects", "--select", "role"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--select: host selector \"role\": the term \"role\" is not "
                                 "KEY=VALUE"));
  CommandResult none = Cli({"instances", "\\\\WIN*\\Process", "--select", "role=sql"});
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_THAT(none.err, HasSubstr("none of the 2 hosts \\\\WIN* matches is selected by "
                                  "\"role=sql\""));
}

// Proves: mistakes get errors that say what is wrong, with exit codes scripts can rely on.
TEST_F(QueryEndToEndTest, ErrorsSayWhatIsWrong) {
  CommandResult bad_path = Cli({"query", "\\\\WINA\\Processor(0\\% Processor Time"});
  EXPECT_EQ(bad_path.exit_code, 2);
  EXPECT_THAT(bad_path.err, HasSubstr("bad counter path at column"));
  CommandResult unknown_host = Cli({"query", "\\\\NOSUCH\\Processor(*)\\% Processor Time"});
  EXPECT_EQ(unknown_host.exit_code, 3);
  EXPECT_THAT(unknown_host.err, AllOf(HasSubstr("no host matches"), HasSubstr("WINA")));
  CommandResult bad_time =
      Cli({"query", "\\\\WINA\\Memory\\Available Bytes", "--from", "yesterday"});
  EXPECT_EQ(bad_time.exit_code, 2);
  EXPECT_THAT(bad_time.err, HasSubstr("--from: bad time"));
  CommandResult too_large =
      Cli({"query", "\\\\WIN*\\Processor(*)\\% Processor Time", "--max-points", "5"});
  EXPECT_EQ(too_large.exit_code, 1);
  // Refused by the estimate, before the server read the samples.
  EXPECT_THAT(too_large.err, AllOf(HasSubstr("more than 5 points"), HasSubstr("estimated"),
                                   HasSubstr("WINA"), HasSubstr("--max-points")));
  CommandResult no_object = Cli({"counters", "\\\\WINA\\Procesor"});
  EXPECT_EQ(no_object.exit_code, 3);
  EXPECT_THAT(no_object.err, HasSubstr("Processor"));
}

// Issue 20, case 8: a typo read as an empty time range. Proves: a misspelt object or counter is
// named with the close match the host has, per host, and exits 3 (not found).
TEST_F(QueryEndToEndTest, ATypoIsNamedWithItsCloseMatchNotTakenForAnEmptyRange) {
  CommandResult object = Cli({"query", "\\\\WINA\\Procesor(*)\\% Processor Time"});
  EXPECT_EQ(object.exit_code, 3);
  EXPECT_THAT(LinesWith(object.err, "\"Procesor\""),
              ElementsAre(AllOf(HasSubstr("WINA"), HasSubstr("did you mean \"Processor\""))))
      << object.err;
  // Over every host, one line per host that has nothing, each with its own names.
  CommandResult everywhere = Cli({"query", "\\\\*\\Procesor(*)\\% Processor Time"});
  EXPECT_EQ(everywhere.exit_code, 3);
  EXPECT_THAT(LinesWith(everywhere.err, " on WINB;"), ElementsAre(HasSubstr("\"Processor\"")));
  EXPECT_THAT(LinesWith(everywhere.err, " on LOCAL7;"), ElementsAre(HasSubstr("\"Processor X\"")))
      << everywhere.err;
  CommandResult counter = Cli({"query", "\\\\WINA\\Processor(*)\\% Procesor Time"});
  EXPECT_EQ(counter.exit_code, 3);
  EXPECT_THAT(counter.err, AllOf(HasSubstr("no counter \"% Procesor Time\""), HasSubstr("WINA"),
                                 HasSubstr("did you mean \"% Processor Time\"")));
}

// Issue 20, case 8. Proves: a multi-instance object whose instance list was empty in every sample
// is said to have had no instances, naming the host.
TEST_F(QueryEndToEndTest, AnObjectWithoutInstancesIsSaidToHaveNone) {
  CommandResult none = Cli({"query", "\\\\SPOOLER\\Print Queue(*)\\Jobs"});
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_THAT(none.err, HasSubstr("\"Print Queue\" on SPOOLER had no instances")) << none.err;
}

// Issue 20, case 8. Proves: a range without samples names the host, the range and the stored
// sample nearest to it (WINA's first, 2026-11-22T10:00:00Z).
TEST_F(QueryEndToEndTest, ARangeWithoutSamplesNamesTheHostAndTheRange) {
  CommandResult empty = Cli({"query", "\\\\WINA\\Processor(*)\\% Processor Time", "--from",
                             "2001-01-01T00:00:00Z", "--to", "2001-01-02T00:00:00Z"});
  EXPECT_EQ(empty.exit_code, 3);
  EXPECT_THAT(empty.err, AllOf(HasSubstr("WINA has no sample"), HasSubstr("2001-01-01T00:00:00Z"),
                               HasSubstr("2001-01-02T00:00:00Z"),
                               HasSubstr("nearest is at 2026-11-22T10:00:00Z")))
      << empty.err;
}

// Issue 20, case 8. Proves: when one host answers, another host's typo is still reported, as a
// warning on stderr after the values (and in JSON's "warnings"), and the answering host is not.
TEST_F(QueryEndToEndTest, OneHostsValuesDoNotHideAnotherHostsTypo) {
  const std::vector<std::string> args = {"query", "\\\\WINA\\Process(svc)\\% Processor Time",
                                         "\\\\WINB\\Process(scv)\\% Processor Time"};
  CommandResult table = Cli(args);
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(LinesWith(table.out, "\\\\WINA\\Process(svc)\\% Processor Time").size(), 8u)
      << table.out;
  EXPECT_THAT(table.out, Not(HasSubstr("WINB")));
  EXPECT_THAT(LinesWith(table.err, "WINB"),
              ElementsAre(AllOf(HasSubstr("\"scv\""), HasSubstr("did you mean \"svc\""))))
      << table.err;
  EXPECT_THAT(table.err, Not(HasSubstr("WINA")));
  nlohmann::json answer = Json(args);
  EXPECT_EQ(answer["series"].size(), 1u);
  ASSERT_EQ(answer["warnings"].size(), 1u) << answer.dump(1);
  EXPECT_THAT(answer["warnings"][0].get<std::string>(), HasSubstr("did you mean \"svc\""));
}

// An answer written to a full disk was lost and the command still exited 0, so a script went on
// with an empty file. Proves: it exits 1 and says why.
TEST_F(QueryEndToEndTest, AnAnswerThatCannotBeWrittenFailsInsteadOfSucceedingWithNothing) {
  auto [exit_code, err] = CliIntoAFullDisk({"query", "\\\\WINA\\Processor(*)\\% Processor Time"},
                                           std::chrono::seconds(60));
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(err, HasSubstr("the answer could not be written to standard output: No space left"));
}

// Proves: watch with its output on a full disk stops at once saying why, instead of writing in
// vain until interrupted.
TEST_F(QueryEndToEndTest, WatchStopsWhenItsOutputCannotBeWritten) {
  auto [exit_code, err] =
      CliIntoAFullDisk({"watch", "\\\\WINA\\Processor(*)\\% Processor Time", "--interval", "100ms"},
                       std::chrono::seconds(10));
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(err, HasSubstr("the answer could not be written to standard output: No space left"));
}

// Proves: the server's address and transport can come from a config file instead of flags, and a
// broken config file is named with its line.
TEST_F(QueryEndToEndTest, TheServerCanBeNamedInAConfigFile) {
  std::string config = *scratch_ / "cli.toml";
  std::ofstream(config) << "server = \"" << server_->address() << "\"\ninsecure = true\n";
  setenv("PERFHIVE_CONFIG", config.c_str(), 1);
  CommandResult hosts = RunCommand(*scratch_, {CliBinary(), "hosts", "--format", "json"});
  std::ofstream(config) << "server = \n";
  CommandResult broken = RunCommand(*scratch_, {CliBinary(), "hosts"});
  unsetenv("PERFHIVE_CONFIG");
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_EQ(nlohmann::json::parse(hosts.out)["hosts"].size(), 4u);
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_THAT(broken.err, HasSubstr(config + ":1:"));
}

// Proves: watch prints new values as the procfs agent's samples arrive, and stops after --count.
TEST(WatchEndToEndTest, WatchShowsNewSamplesAsTheyArrive) {
  ScratchDir scratch("watch");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  ChildProcess agent(
      {AgentBinary(), "run", "--server", server.address(), "--insecure", "--source", "procfs",
       "--host-name", "watched", "--interval", "300ms", "--spool-dir", scratch / "spool"},
      scratch / "agent.out", scratch / "agent.err");
  ASSERT_TRUE(WaitForMatch(server.log_path(), "event=hello", std::chrono::seconds(30)));
  CommandResult watched = RunCommand(
      scratch,
      {CliBinary(), "watch", "\\\\watched\\Memory\\Available Bytes", "--interval", "200ms",
       "--count", "3", "--format", "csv", "--server", server.address(), "--insecure"},
      std::chrono::seconds(60));
  agent.Signal(SIGTERM);
  agent.Wait(std::chrono::seconds(20));
  ASSERT_EQ(watched.exit_code, 0) << watched.err;
  std::istringstream lines(watched.out);
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(lines, line)) rows.push_back(line);
  // One header, then one row per new sample, each a positive number of bytes.
  ASSERT_EQ(rows.size(), 4u) << watched.out;
  EXPECT_THAT(rows[0], StartsWith("\"(PDH-CSV 4.0)"));
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_GT(std::stod(CsvCells(rows[i]).at(1)), 0);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace perfhive::testing
