// ThreadTable on hand-made processes: threads share their process's CPU time to the tick and the
// system's context switches to the switch, none runs longer than the clock advanced, they are
// written under their process with _Total last, and their IDs return to the pool when their
// process exits.

#include "tests/bench/realistic_fleet/thread_table.h"

#include <gtest/gtest.h>

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;

constexpr uint64_t kTick = 156'250;  // 15.625 ms in 100 ns
constexpr int64_t kSecond = 10'000'000;
constexpr int64_t kNow = 134'000'000'000'000'000;

// Writes `table` as a snapshot's Thread object under a Process object of `pids` (and _Total).
std::vector<uint8_t> Snapshot(const ThreadTable& table, const std::vector<uint64_t>& pids) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST");
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  process.AddCounter({.name_index = ti::kIdProcess});
  std::unordered_map<uint64_t, uint32_t> positions;
  for (uint64_t pid : pids) {
    positions[pid] = process.AddInstance("program");
    process.SetValue(positions[pid], 0, pid);
  }
  const uint32_t total = process.AddInstance("_Total");
  ObjectBuilder& thread = builder.AddObject(ti::kThread);
  for (const CounterSpec& spec : ThreadCounterSpecs()) thread.AddCounter(spec);
  table.Write(thread, positions, total, kNow);
  return builder.Build();
}

// Each thread's values by ThreadCounter position, _Total last.
std::vector<std::vector<uint64_t>> Threads(const std::vector<uint8_t>& bytes) {
  std::vector<std::vector<uint64_t>> threads;
  SnapshotReader reader = SnapshotReader::Open(bytes).value();
  const ObjectView object = *reader.FindObject(ti::kThread);
  for (const InstanceView& instance : object.instances()) {
    std::vector<uint64_t>& values = threads.emplace_back();
    for (const CounterDefinitionView& counter : object.counters()) {
      values.push_back(instance.counters().Value(counter).value_or(0));
    }
  }
  return threads;
}

TEST(ThreadTableTest, ThreadsShareTheirProcessesTimeAndTheSystemsSwitches) {
  FleetRandom random(1);
  std::unordered_set<uint64_t> ids = {100, 200};
  ThreadTable table;
  table.AddProcess({.pid = 100,
                    .threads = 6,
                    .priority_base = 8,
                    .created = kNow - 3600 * kSecond,
                    .user_time = 400 * kTick,
                    .privileged_time = 100 * kTick,
                    .tick = kTick},
                   kNow, 50, random, ids);
  table.AddProcess({.pid = 200,
                    .threads = 3,
                    .priority_base = 13,
                    .created = kNow - 60 * kSecond,
                    .tick = kTick},
                   kNow, 50, random, ids);
  EXPECT_EQ(table.threads(), 9u);
  EXPECT_EQ(ids.size(), 2u + 9u);

  std::vector<std::vector<uint64_t>> before = Threads(Snapshot(table, {100, 200}));
  ASSERT_EQ(before.size(), 10u);
  uint64_t user = 0, privileged = 0;
  for (size_t t = 0; t < 6; ++t) {
    user += before[t][kThreadUserTime];
    privileged += before[t][kThreadPrivilegedTime];
    EXPECT_EQ(before[t][kThreadUserTime] % kTick, 0u) << "whole ticks";
  }
  EXPECT_EQ(user, 400 * kTick);
  EXPECT_EQ(privileged, 100 * kTick);

  // 10 s: process 100 ran 500 ticks of user and 400 of privileged time, more than one thread
  // can run in 10 s (640 ticks): a thread that gets most of it stops at the limit.
  const int64_t advance = 10 * kSecond;
  const std::vector<ProcessStep> steps = {
      {.pid = 100, .user_time = 500 * kTick, .privileged_time = 400 * kTick, .tick = kTick},
      {.pid = 200, .user_time = 7 * kTick, .tick = kTick}};
  table.Advance(steps, 12'345, advance, random);
  std::vector<std::vector<uint64_t>> after = Threads(Snapshot(table, {100, 200}));
  uint64_t ran_user = 0, ran_200 = 0, switched = 0;
  int running = 0;
  for (size_t t = 0; t < 9; ++t) {
    const uint64_t ran = after[t][kThreadProcessorTime] - before[t][kThreadProcessorTime];
    EXPECT_LE(ran, static_cast<uint64_t>(advance));
    EXPECT_EQ(after[t][kThreadProcessorTime],
              after[t][kThreadUserTime] + after[t][kThreadPrivilegedTime]);
    (t < 6 ? ran_user : ran_200) += after[t][kThreadUserTime] - before[t][kThreadUserTime];
    switched += after[t][kThreadContextSwitches] - before[t][kThreadContextSwitches];
    running += after[t][kThreadState] == kThreadRunning;
  }
  EXPECT_EQ(ran_user, 500 * kTick);
  EXPECT_EQ(ran_200, 7 * kTick);
  EXPECT_EQ(switched, 12'345u);
  EXPECT_EQ(running, 1);

  // _Total sums the threads, and its elapsed time reads 0.
  const std::vector<uint64_t>& total = after.back();
  uint64_t sum = 0;
  for (size_t t = 0; t < 9; ++t) sum += after[t][kThreadProcessorTime];
  EXPECT_EQ(total[kThreadProcessorTime], sum);
  EXPECT_EQ(total[kThreadElapsedTime], static_cast<uint64_t>(kNow));
  EXPECT_EQ(total[kThreadIdThread], 0u);
}

TEST(ThreadTableTest, ThreadsAreWrittenUnderTheirProcess) {
  FleetRandom random(2);
  std::unordered_set<uint64_t> ids = {0, 4, 500};
  ThreadTable table;
  table.AddProcess({.pid = 0, .threads = 2, .created = kNow - kSecond}, kNow, 0, random, ids);
  table.AddProcess({.pid = 500, .threads = 3, .priority_base = 8, .created = kNow - kSecond}, kNow,
                   0, random, ids);
  const std::vector<uint8_t> bytes = Snapshot(table, {0, 500});
  SnapshotReader reader = SnapshotReader::Open(bytes).value();
  const ObjectView thread = *reader.FindObject(ti::kThread);
  std::vector<std::pair<uint32_t, std::string>> parents;
  for (const InstanceView& instance : thread.instances()) {
    std::span<const uint8_t> raw = instance.raw_name();
    std::string name;
    for (size_t i = 0; i + 1 < raw.size(); i += 2) {
      if (raw[i] != 0) name += static_cast<char>(raw[i]);
    }
    EXPECT_EQ(instance.parent_object_index(), ti::kProcess);
    parents.emplace_back(instance.parent_instance(), name);
  }
  const std::vector<std::pair<uint32_t, std::string>> expected = {
      {0, "0"}, {0, "1"}, {1, "0"}, {1, "1"}, {1, "2"}, {2, "_Total"}};
  EXPECT_EQ(parents, expected);
  // The Idle process's threads have ID 0 and priority 0; the others draw theirs.
  const std::vector<std::vector<uint64_t>> values = Threads(bytes);
  EXPECT_EQ(values[0][kThreadIdThread], 0u);
  EXPECT_EQ(values[1][kThreadPriorityBase], 0u);
  EXPECT_NE(values[2][kThreadIdThread], 0u);
  EXPECT_GE(values[2][kThreadPriorityBase], 6u);

  table.RemoveProcess(500, ids);
  EXPECT_EQ(table.threads(), 2u);
  EXPECT_EQ(ids, (std::unordered_set<uint64_t>{0, 4, 500}));
}

}  // namespace
}  // namespace perfhive::fleet
