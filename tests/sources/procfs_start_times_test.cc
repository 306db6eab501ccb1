// Process and thread starts on this machine's real /proc, read by separate readers: sources
// created one after another in this test and perfhive-agent programs run by it. A process's
// start (its raw Elapsed Time) is part of its identity over time (query/instance_identity.h),
// so every reader, in any process and at any time, must write the same value for it: in issue
// 20 (case 4) restarting the agent split the history of 96 of 134 processes, because the boot
// time was measured from two clocks that jitter.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "perfdata/well_known_indexes.h"
#include "sources/procfs/procfs_source.h"
#include "tests/sources/procfs_test_util.h"
#include "tests/support/child_process.h"

namespace perfhive {
namespace {

namespace ti = title_index;
using testing::TakenSnapshot;

// Processes, their threads and the host's boot time: System, Process and Thread.
constexpr char kStartsQuery[] = "2 232";
constexpr int kReaders = 12;

// The starts one snapshot holds, each keyed by what names it: a process by its name and PID
// (Idle and _Total, both PID 0, by their names), a thread by its PID and TID, and the boot
// time (System Up Time) by "System".
using Starts = std::map<std::string, uint64_t>;

void AddStartsOf(const SnapshotReader& snapshot, uint32_t object_index, Starts& starts) {
  std::optional<ObjectView> object = snapshot.FindObject(object_index);
  ASSERT_TRUE(object.has_value()) << "no object " << object_index;
  std::optional<CounterDefinitionView> start = testing::FindCounter(*object, ti::kElapsedTime);
  std::optional<CounterDefinitionView> pid = testing::FindCounter(*object, ti::kIdProcess);
  std::optional<CounterDefinitionView> tid = testing::FindCounter(*object, ti::kIdThread);
  ASSERT_TRUE(start && pid && (object_index == ti::kProcess || tid));
  for (InstanceView instance : object->instances()) {
    CounterBlockView counters = instance.counters();
    std::string key = std::to_string(*counters.Value(*pid));
    key = object_index == ti::kProcess
              ? InstanceName(*object, instance) + " pid " + key
              : "thread " + key + "/" + std::to_string(*counters.Value(*tid));
    starts[key] = *counters.Value(*start);
  }
}

Starts StartsIn(const std::vector<uint8_t>& bytes) {
  Starts starts;
  Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes);
  EXPECT_TRUE(snapshot.ok()) << snapshot.error();
  if (!snapshot.ok()) return starts;
  std::optional<uint64_t> boot = testing::ValueOf(*snapshot, ti::kSystem, "", ti::kSystemUpTime);
  EXPECT_TRUE(boot.has_value());
  starts["System"] = boot.value_or(0);
  AddStartsOf(*snapshot, ti::kProcess, starts);
  AddStartsOf(*snapshot, ti::kThread, starts);
  return starts;
}

// What lived through every reading and was not given one start by all of them, one line each:
// "name pid 123: 5 6".
std::vector<std::string> MovedStarts(const std::vector<Starts>& readings, size_t* compared) {
  std::vector<std::string> moved;
  *compared = 0;
  for (const auto& [key, first] : readings.front()) {
    std::set<uint64_t> seen;
    bool in_every_reading = true;
    for (const Starts& reading : readings) {
      auto it = reading.find(key);
      if (it == reading.end()) {
        in_every_reading = false;
        break;
      }
      seen.insert(it->second);
    }
    if (!in_every_reading) continue;
    ++*compared;
    if (seen.size() == 1) continue;
    std::ostringstream line;
    line << key << ":";
    for (uint64_t start : seen) line << " " << start;
    moved.push_back(line.str());
  }
  return moved;
}

// The count of moved starts and the first few, for a failure message.
std::string Describe(const std::vector<std::string>& moved, size_t compared) {
  std::string text = std::to_string(moved.size()) + " of " + std::to_string(compared) +
                     " starts moved, among them:";
  for (size_t i = 0; i < moved.size() && i < 5; ++i) text += "\n  " + moved[i];
  return text;
}

// Readings a few tens of milliseconds apart, so that each reads the clocks afresh.
void Pause() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }

// Each snapshot by a source of its own, as each run of the agent creates one.
std::vector<Starts> ReadBySeparateSources() {
  std::vector<Starts> readings;
  for (int i = 0; i < kReaders; ++i) {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
    EXPECT_TRUE(source.ok()) << source.error();
    if (!source.ok()) break;
    TakenSnapshot taken(**source, kStartsQuery);
    readings.push_back(StartsIn(taken.bytes()));
    Pause();
  }
  return readings;
}

TEST(ProcfsStartTimesTest, ProcessStartsDoNotMoveBetweenSources) {
  std::vector<Starts> readings = ReadBySeparateSources();
  ASSERT_EQ(readings.size(), static_cast<size_t>(kReaders));
  size_t compared = 0;
  std::vector<std::string> moved = MovedStarts(readings, &compared);
  // This test's own process and its thread lived through all of them.
  EXPECT_GE(compared, 3u);
  EXPECT_TRUE(moved.empty()) << Describe(moved, compared);
}

#ifdef PERFHIVE_AGENT_PATH
// The agent program run again and again, as a restarted agent would be: its snapshots and this
// process's own give every process and thread one start.
TEST(ProcfsStartTimesTest, ProcessStartsDoNotMoveBetweenRuns) {
  std::filesystem::path directory =
      std::filesystem::temp_directory_path() / ("perfhive-starts-" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  std::vector<Starts> readings = ReadBySeparateSources();
  for (int run = 0; run < kReaders; ++run) {
    std::string output = directory / ("run" + std::to_string(run) + ".bin");
    std::string log = directory / "agent.log";
    testing::ChildProcess agent(
        {PERFHIVE_AGENT_PATH, "snapshot", "--query", kStartsQuery, "--output", output}, log, log);
    std::optional<int> exit_code = agent.Wait(std::chrono::seconds(60));
    ASSERT_EQ(exit_code, 0) << testing::ReadWholeFile(log);
    std::string bytes = testing::ReadWholeFile(output);
    readings.push_back(StartsIn(std::vector<uint8_t>(bytes.begin(), bytes.end())));
    Pause();
  }
  std::filesystem::remove_all(directory);
  size_t compared = 0;
  std::vector<std::string> moved = MovedStarts(readings, &compared);
  EXPECT_GE(compared, 3u);
  EXPECT_TRUE(moved.empty()) << Describe(moved, compared);
}
#endif

// The start is exact: the kernel's boot time (btime, whole seconds) and the process's start in
// clock ticks, as a FILETIME, read here from the files themselves.
TEST(ProcfsStartTimesTest, OwnStartIsTheBootTimePlusItsStartTicks) {
  std::ifstream kernel_stat("/proc/stat");
  std::string word;
  uint64_t boot_seconds = 0;
  while (kernel_stat >> word) {
    if (word == "btime") kernel_stat >> boot_seconds;
  }
  ASSERT_NE(boot_seconds, 0u) << "no btime in /proc/stat";
  std::ifstream own_stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(own_stat)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  for (int field = 3; field <= 22; ++field) fields >> word;  // field 22 is starttime
  uint64_t start_ticks = std::stoull(word);
  uint64_t ticks_per_second = static_cast<uint64_t>(sysconf(_SC_CLK_TCK));

  Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
  ASSERT_TRUE(source.ok()) << source.error();
  TakenSnapshot taken(**source, "230");
  constexpr uint64_t kFiletimeOfUnixEpoch = 11'644'473'600ULL * 10'000'000;
  uint64_t boot = kFiletimeOfUnixEpoch + boot_seconds * 10'000'000;
  EXPECT_EQ(testing::ValueWhere(taken.reader(), ti::kProcess, ti::kIdProcess,
                                static_cast<uint64_t>(getpid()), ti::kElapsedTime),
            boot + start_ticks * 10'000'000 / ticks_per_second);
  EXPECT_EQ(testing::ValueOf(taken.reader(), ti::kProcess, "Idle", ti::kElapsedTime), boot);
}

}  // namespace
}  // namespace perfhive
