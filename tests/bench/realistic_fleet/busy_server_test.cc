// The busy-server shape on kinex01 from ../shared/fixtures/realdata: its samples parse, have the
// processes and threads asked for, threads name processes that exist, a sample is a few hundred
// KB, counters move as their types say between consecutive samples, threads share their
// process's CPU time and the system's context switches, the Thread counters are named as every
// real title database names them, and the same seed gives the same bytes. The tests skip when
// ../shared is absent.

#include "tests/bench/realistic_fleet/busy_server.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "perfdata/instance_names.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database_file.h"
#include "perfdata/title_list.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/fleet_test_util.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/bench/realistic_fleet/thread_table.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;
namespace wp = winperf;

constexpr char kRealData[] = "realdata";
constexpr char kTitleDatabases[] = "title-databases";
constexpr int kProcesses = 350;
constexpr int kThreads = 3500;

// Busy servers only, at 10 s, with processes starting and exiting as by default.
FleetGenerator BusyFleet(uint64_t seed, int hosts) {
  return FixtureFleet({.seed = seed, .hosts = hosts, .busy_servers = 1});
}

std::vector<std::vector<uint8_t>> Samples(HostSimulator& host, int count) {
  std::vector<std::vector<uint8_t>> samples;
  for (int k = 0; k < count; ++k) samples.push_back(host.Next().snapshot);
  return samples;
}

// An object's counters by title index (the first definition of each).
std::map<uint32_t, CounterDefinitionView> CountersOf(const ObjectView& object) {
  std::map<uint32_t, CounterDefinitionView> counters;
  for (const CounterDefinitionView& counter : object.counters()) {
    counters.emplace(counter.name_index(), counter);
  }
  return counters;
}

uint64_t ValueOf(const InstanceView& instance, const CounterDefinitionView& counter) {
  return instance.counters().Value(counter).value_or(0);
}

// One thread of a sample, with its values by ThreadCounter position.
struct ThreadSample {
  uint64_t pid = 0;
  std::vector<uint64_t> values;
};
// One process of a sample.
struct ProcessSample {
  uint64_t user = 0, privileged = 0, threads = 0;
};
struct BusySample {
  int64_t clock = 0;  // the Thread object's PerfTime
  size_t process_instances = 0, thread_instances = 0;
  std::map<uint64_t, ProcessSample> processes;                    // by PID, _Total apart
  std::map<std::pair<uint64_t, uint64_t>, ThreadSample> threads;  // by PID and thread ID
  uint64_t system_threads = 0, system_switches = 0;
};

BusySample Read(const std::vector<uint8_t>& bytes) {
  BusySample sample;
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  EXPECT_TRUE(reader.ok()) << reader.error();
  if (!reader.ok()) return sample;
  std::optional<ObjectView> process = reader->FindObject(ti::kProcess);
  std::optional<ObjectView> thread = reader->FindObject(ti::kThread);
  std::optional<ObjectView> system = reader->FindObject(ti::kSystem);
  EXPECT_TRUE(process.has_value() && thread.has_value() && system.has_value());
  if (!process.has_value() || !thread.has_value() || !system.has_value()) return sample;
  std::map<uint32_t, CounterDefinitionView> p = CountersOf(*process);
  sample.process_instances = process->num_instances();
  std::vector<InstancePathName> process_names = NameInstances(*reader, *process);
  size_t at = 0;
  for (const InstanceView& instance : process->instances()) {
    if (process_names[at++].name == "_Total") continue;
    sample.processes[ValueOf(instance, p.at(ti::kIdProcess))] = {
        .user = ValueOf(instance, p.at(ti::kPercentUserTime)),
        .privileged = ValueOf(instance, p.at(ti::kPercentPrivilegedTime)),
        .threads = ValueOf(instance, p.at(ti::kThreadCount))};
  }
  sample.clock = thread->perf_time();
  sample.thread_instances = thread->num_instances();
  std::vector<CounterDefinitionView> definitions(thread->counters().begin(),
                                                 thread->counters().end());
  EXPECT_EQ(definitions.size(), static_cast<size_t>(kThreadCounterCount));
  // The _Total thread's parent is the _Total process, the last.
  const uint32_t total_parent = static_cast<uint32_t>(process->num_instances() - 1);
  for (const InstanceView& instance : thread->instances()) {
    ThreadSample one;
    for (const CounterDefinitionView& counter : definitions) {
      one.values.push_back(ValueOf(instance, counter));
    }
    one.pid = one.values[kThreadIdProcess];
    if (instance.parent_instance() == total_parent) continue;
    sample.threads[{one.pid, one.values[kThreadIdThread]}] = one;
  }
  std::map<uint32_t, CounterDefinitionView> s = CountersOf(*system);
  const InstanceView totals = *system->instances().begin();
  sample.system_threads = ValueOf(totals, s.at(ti::kThreads));
  sample.system_switches = ValueOf(totals, s.at(ti::kContextSwitchesPerSec));
  return sample;
}

TEST(BusyServerTest, SamplesParseWithTheProcessesAndThreadsAskedFor) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = BusyFleet(3, 2);
  EXPECT_EQ(fleet.layout_of(0).name, "busy-kinex01");
  HostSimulator host = fleet.StartHost(0);
  EXPECT_EQ(host.profile().name, "BUSY-KIN-000000");
  const std::vector<std::vector<uint8_t>> samples = Samples(host, 40);
  const BusySample first = Read(samples.front());
  // The processes and threads asked for, and _Total in each object.
  EXPECT_EQ(first.process_instances, static_cast<size_t>(kProcesses + 1));
  EXPECT_EQ(first.processes.size(), static_cast<size_t>(kProcesses));
  EXPECT_EQ(first.thread_instances, static_cast<size_t>(kThreads + 1));
  for (const std::vector<uint8_t>& bytes : samples) {
    // Processes start and exit; their threads with them, and System counts them.
    const BusySample sample = Read(bytes);
    uint64_t counted = 0;
    for (const auto& [pid, process] : sample.processes) counted += process.threads;
    EXPECT_EQ(sample.threads.size(), counted);
    EXPECT_EQ(sample.thread_instances, counted + 1);
    EXPECT_EQ(sample.system_threads, counted);
    EXPECT_GT(sample.processes.size(), static_cast<size_t>(kProcesses * 9 / 10));
    EXPECT_LT(sample.processes.size(), static_cast<size_t>(kProcesses * 11 / 10));
  }
}

TEST(BusyServerTest, ThreadsNameTheirProcessAsParent) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = BusyFleet(5, 1);
  HostSimulator host = fleet.StartHost(0);
  for (const std::vector<uint8_t>& bytes : Samples(host, 20)) {
    Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
    ASSERT_TRUE(reader.ok()) << reader.error();
    const ObjectView process = *reader->FindObject(ti::kProcess);
    const ObjectView thread = *reader->FindObject(ti::kThread);
    const CounterDefinitionView process_pid = CountersOf(process).at(ti::kIdProcess);
    const CounterDefinitionView thread_pid = CountersOf(thread).at(ti::kIdProcess);
    const CounterDefinitionView thread_id = CountersOf(thread).at(ti::kIdThread);
    const std::vector<InstanceView> processes(process.instances().begin(),
                                              process.instances().end());
    const std::vector<InstancePathName> process_names = NameInstances(*reader, process);
    const std::vector<InstancePathName> thread_names = NameInstances(*reader, thread);
    std::set<uint64_t> ids;
    std::map<uint64_t, uint32_t> next_number;  // by parent: threads are numbered from 0
    size_t at = 0;
    for (const InstanceView& instance : thread.instances()) {
      const InstancePathName& name = thread_names[at++];
      EXPECT_EQ(instance.parent_object_index(), ti::kProcess);
      ASSERT_LT(instance.parent_instance(), processes.size());
      const InstanceView& parent = processes[instance.parent_instance()];
      // The parent named is the thread's process, and PDH names the thread after its program
      // ("svchost/3", a second svchost's "svchost/3#1").
      EXPECT_EQ(ValueOf(instance, thread_pid), ValueOf(parent, process_pid));
      EXPECT_EQ(name.parent, process_names[instance.parent_instance()].name);
      if (name.name == "_Total") {
        EXPECT_EQ(name.parent, "_Total");
        EXPECT_EQ(at, thread_names.size()) << "_Total is the last thread";
        continue;
      }
      EXPECT_EQ(name.name, std::to_string(next_number[instance.parent_instance()]++));
      // Thread IDs are unique, multiples of 4 and no process's ID; the Idle process's are 0.
      const uint64_t id = ValueOf(instance, thread_id);
      if (ValueOf(instance, thread_pid) == 0) {
        EXPECT_EQ(id, 0u);
        continue;
      }
      EXPECT_TRUE(ids.insert(id).second) << id;
      EXPECT_EQ(id % 4, 0u);
    }
    for (const InstanceView& instance : processes) {
      EXPECT_FALSE(ids.contains(ValueOf(instance, process_pid)));
    }
    // Every process has its threads.
    for (uint32_t p = 0; p + 1 < processes.size(); ++p) EXPECT_GT(next_number[p], 0u);
  }
}

TEST(BusyServerTest, ASampleIsAFewHundredKilobytes) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = BusyFleet(7, 3);
  for (int h = 0; h < fleet.hosts(); ++h) {
    HostSimulator host = fleet.StartHost(h);
    for (const std::vector<uint8_t>& bytes : Samples(host, 5)) {
      EXPECT_GT(bytes.size(), 300'000u);
      EXPECT_LT(bytes.size(), 800'000u);
    }
  }
}

TEST(BusyServerTest, CountersMoveAsTheirTypesSay) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  // A busy host (activity 3) and a quiet one: timers near their limit and far from it.
  for (double activity : {3.0, 0.25}) {
    const FleetGenerator fleet =
        FixtureFleet({.seed = 11, .hosts = 1, .activity = activity, .busy_servers = 1});
    HostSimulator host = fleet.StartHost(0);
    const std::vector<std::vector<uint8_t>> samples = Samples(host, 30);
    uint64_t busy_threads = 0, switching_threads = 0;
    for (size_t k = 1; k < samples.size(); ++k) {
      const BusySample before = Read(samples[k - 1]), after = Read(samples[k]);
      const int64_t advance = after.clock - before.clock;
      ASSERT_GT(advance, 0);
      std::map<uint64_t, ProcessSample> shared;  // what each process's threads ran this step
      uint32_t switches = 0;
      for (const auto& [key, now] : after.threads) {
        auto then = before.threads.find(key);
        if (then == before.threads.end()) continue;  // its process started in this step
        const std::vector<uint64_t>& a = then->second.values;
        const std::vector<uint64_t>& b = now.values;
        // Timers: never back, never more than the clock advanced; user and privileged time
        // make the processor time.
        for (uint32_t c : {kThreadProcessorTime, kThreadUserTime, kThreadPrivilegedTime}) {
          ASSERT_GE(b[c], a[c]) << "counter " << c;
          EXPECT_LE(b[c] - a[c], static_cast<uint64_t>(advance)) << "counter " << c;
        }
        EXPECT_EQ(b[kThreadProcessorTime], b[kThreadUserTime] + b[kThreadPrivilegedTime]);
        // A 4-byte count that wraps still moves forward.
        const uint32_t moved =
            static_cast<uint32_t>(b[kThreadContextSwitches] - a[kThreadContextSwitches]);
        EXPECT_LT(moved, 1u << 31);
        switches += moved;
        // What a thread is stays: its start, IDs, base priority and start address.
        for (uint32_t c : {kThreadElapsedTime, kThreadPriorityBase, kThreadStartAddress,
                           kThreadIdProcess, kThreadIdThread}) {
          EXPECT_EQ(b[c], a[c]) << "counter " << c;
        }
        EXPECT_LE(b[kThreadElapsedTime], static_cast<uint64_t>(after.clock));
        EXPECT_GE(b[kThreadPriorityCurrent], b[kThreadPriorityBase]);
        EXPECT_LE(b[kThreadPriorityCurrent], std::max<uint64_t>(b[kThreadPriorityBase], 15));
        EXPECT_LE(b[kThreadState], 7u);
        EXPECT_LE(b[kThreadWaitReason], 19u);
        ProcessSample& ran = shared[now.pid];
        ran.user += b[kThreadUserTime] - a[kThreadUserTime];
        ran.privileged += b[kThreadPrivilegedTime] - a[kThreadPrivilegedTime];
        busy_threads += b[kThreadProcessorTime] != a[kThreadProcessorTime];
        switching_threads += moved != 0;
      }
      // A process's threads ran what the process ran; all threads switched as often as the
      // system did (exited processes' threads aside).
      for (const auto& [pid, ran] : shared) {
        auto then = before.processes.find(pid);
        auto now = after.processes.find(pid);
        ASSERT_TRUE(then != before.processes.end() && now != after.processes.end()) << pid;
        EXPECT_EQ(ran.user, now->second.user - then->second.user) << "process " << pid;
        EXPECT_LE(ran.privileged, now->second.privileged - then->second.privileged)
            << "process " << pid;
      }
      const uint32_t system = static_cast<uint32_t>(after.system_switches - before.system_switches);
      EXPECT_LE(switches, system);
      EXPECT_GT(switches, system / 2);
    }
    // Some threads work and most switch now and then; not all of them, not none.
    EXPECT_GT(busy_threads, 0u);
    EXPECT_GT(switching_threads, busy_threads);
    EXPECT_LT(busy_threads, 29u * kThreads);
  }
}

TEST(BusyServerTest, TheSameSeedGivesTheSameBytes) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  HostSimulator a = BusyFleet(42, 2).StartHost(1), b = BusyFleet(42, 2).StartHost(1);
  HostSimulator c = BusyFleet(43, 2).StartHost(1);
  bool differs = false;
  for (int k = 0; k < 8; ++k) {
    const std::vector<uint8_t> from_a = a.Next().snapshot, from_c = c.Next().snapshot;
    ASSERT_EQ(from_a, b.Next().snapshot) << "sample " << k;
    differs = differs || from_a != from_c;
  }
  EXPECT_TRUE(differs);
}

TEST(BusyServerTest, OtherHostsStayAsTheyWere) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  // Every other host is a busy server; the rest are the hosts of a fleet without them.
  const FleetGenerator mixed = FixtureFleet({.seed = 8, .hosts = 6, .busy_servers = 0.5});
  const FleetGenerator plain = FixtureFleet({.seed = 8, .hosts = 6});
  for (int h = 0; h < 6; ++h) {
    const bool busy = h % 2 == 1;
    EXPECT_EQ(mixed.layout_of(h).name == "busy-kinex01", busy) << h;
    if (busy) continue;
    EXPECT_EQ(mixed.layout_of(h).name, plain.layout_of(h).name);
    HostSimulator one = mixed.StartHost(h), two = plain.StartHost(h);
    for (int k = 0; k < 5; ++k) ASSERT_EQ(one.Next().snapshot, two.Next().snapshot);
  }
}

TEST(BusyServerTest, ThreadCountersAreNamedAsEveryRealDatabaseNamesThem) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kTitleDatabases);
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const std::vector<std::string> expected = {
      "% Processor Time", "% User Time",        "% Privileged Time", "Context Switches/sec",
      "Elapsed Time",     "Priority Current",   "Priority Base",     "Start Address",
      "Thread State",     "Thread Wait Reason", "ID Process",        "ID Thread"};
  const std::vector<CounterSpec> specs = ThreadCounterSpecs();
  ASSERT_EQ(specs.size(), expected.size());
  // The host's own database (kinex01's "Counter 009"), and every `lodctr /S` dump.
  std::vector<std::pair<std::string, TitleDatabase>> databases;
  const FleetGenerator fleet = BusyFleet(1, 1);
  TitleDatabase host;
  ASSERT_TRUE(ParseTitleList(*fleet.layout_of(0).titles, false, host).ok());
  databases.emplace_back("kinex01.counters", std::move(host));
  for (const auto& file :
       std::filesystem::directory_iterator(::perfhive::testing::SharedFixture(kTitleDatabases))) {
    const std::vector<uint8_t> bytes = ::perfhive::testing::ReadSharedFixture(
        std::filesystem::path(kTitleDatabases) / file.path().filename());
    Result<TitleDatabase> loaded = LoadTitleDatabase(bytes);
    ASSERT_TRUE(loaded.ok()) << file.path() << ": " << loaded.error();
    databases.emplace_back(file.path().filename().string(), std::move(loaded).value());
  }
  EXPECT_GE(databases.size(), 6u);
  for (const auto& [source, titles] : databases) {
    EXPECT_EQ(titles.Name(ti::kThread).value_or(""), "Thread") << source;
    for (size_t c = 0; c < specs.size(); ++c) {
      EXPECT_EQ(titles.Name(specs[c].name_index).value_or(""), expected[c]) << source;
      // Where the dump has explain texts, the definition's explain index has this counter's.
      if (std::optional<std::string_view> help = titles.Help(specs[c].help_index)) {
        EXPECT_FALSE(help->empty()) << source << " " << expected[c];
      }
    }
  }
  // The types Windows gives them.
  EXPECT_EQ(specs[kThreadProcessorTime].type, wp::k100NsecTimer);
  EXPECT_EQ(specs[kThreadUserTime].type, wp::k100NsecTimer);
  EXPECT_EQ(specs[kThreadPrivilegedTime].type, wp::k100NsecTimer);
  EXPECT_EQ(specs[kThreadContextSwitches].type, wp::kCounterCounter);
  EXPECT_EQ(specs[kThreadElapsedTime].type, wp::kElapsedTime);
  EXPECT_EQ(specs[kThreadStartAddress].type, wp::kCounterLargeRawcountHex);
  for (ThreadCounter c : {kThreadPriorityCurrent, kThreadPriorityBase, kThreadState,
                          kThreadWaitReason, kThreadIdProcess, kThreadIdThread}) {
    EXPECT_EQ(specs[c].type, wp::kCounterRawcount) << expected[c];
  }
}

TEST(BusyServerTest, ShapesOutOfRangeAreRefused) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  EXPECT_FALSE(FleetGenerator::Create(FixtureLayouts(), {.busy_servers = 1.5}).ok());
  EXPECT_FALSE(
      FleetGenerator::Create(FixtureLayouts(), {.busy_servers = 1, .busy_processes = 10}).ok());
  EXPECT_FALSE(
      FleetGenerator::Create(FixtureLayouts(), {.busy_servers = 1, .busy_threads = 100'000}).ok());
  // Without kinex01 there is no busy server to make.
  std::vector<MachineLayout> others;
  for (const MachineLayout& layout : *FixtureLayouts()) {
    if (layout.name != kBusyServerBase) others.push_back(layout);
  }
  EXPECT_FALSE(FleetGenerator::Create(std::make_shared<const std::vector<MachineLayout>>(others),
                                      {.busy_servers = 1})
                   .ok());
}

}  // namespace
}  // namespace perfhive::fleet
