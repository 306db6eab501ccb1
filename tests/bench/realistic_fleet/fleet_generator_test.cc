// The fleet generator on the real machines of ../shared/fixtures/realdata: its samples parse,
// the values PDH's formulas compute from them are sane, the same seed gives the same bytes,
// processes come and go, and consecutive samples change as much as the real pairs do. The tests
// skip when ../shared is absent.

#include "tests/bench/realistic_fleet/fleet_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "tests/bench/realistic_fleet/compressibility.h"
#include "tests/bench/realistic_fleet/fleet_test_util.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;
namespace wp = winperf;

constexpr char kRealData[] = "realdata";

std::vector<std::vector<uint8_t>> Samples(HostSimulator& host, int count) {
  std::vector<std::vector<uint8_t>> samples;
  for (int k = 0; k < count; ++k) samples.push_back(host.Next().snapshot);
  return samples;
}

TEST(FleetGeneratorTest, EveryMachineIsLoaded) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  std::set<std::string> names;
  for (const MachineLayout& layout : *FixtureLayouts()) names.insert(layout.name);
  EXPECT_EQ(names, (std::set<std::string>{"kinex01", "s-exch2007-64", "win2003", "wprepw01",
                                          "wrxxcrpisax01", "getaway"}));
  for (const MachineLayout& layout : *FixtureLayouts()) {
    EXPECT_FALSE(layout.objects.empty()) << layout.name;
    EXPECT_EQ(layout.pair_seconds > 0, layout.name != "getaway") << layout.name;
  }
}

TEST(FleetGeneratorTest, SamplesParseWithTheHostsOwnNameAndClocks) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = FixtureFleet({.seed = 3, .hosts = 12});
  std::set<std::string> names;
  std::set<int64_t> perf_time_starts;
  for (int h = 0; h < fleet.hosts(); ++h) {
    HostSimulator host = fleet.StartHost(h);
    EXPECT_EQ(host.profile().layout, h % 6);
    names.insert(host.profile().name);
    int64_t perf_time = 0, perf_time_100ns = 0;
    for (const std::vector<uint8_t>& sample : Samples(host, 20)) {
      Result<SnapshotReader> reader = SnapshotReader::Open(sample);
      ASSERT_TRUE(reader.ok()) << host.profile().name << ": " << reader.error();
      EXPECT_EQ(reader->system_name(), host.profile().name);
      EXPECT_EQ(reader->perf_freq(), fleet.layout_of(h).perf_freq);
      EXPECT_EQ(reader->num_objects(), fleet.layout_of(h).objects.size());
      if (perf_time == 0) {
        perf_time_starts.insert(reader->perf_time());
      } else {
        // 10 s apart, give or take the agent's timer.
        const double seconds = static_cast<double>(reader->perf_time() - perf_time) /
                               static_cast<double>(reader->perf_freq());
        EXPECT_NEAR(seconds, 10, 0.003);
        EXPECT_NEAR(static_cast<double>(reader->perf_time_100ns() - perf_time_100ns) / 1e7, seconds,
                    1e-6);
      }
      perf_time = reader->perf_time();
      perf_time_100ns = reader->perf_time_100ns();
    }
  }
  EXPECT_EQ(names.size(), 12u);
  EXPECT_EQ(perf_time_starts.size(), 12u);
}

TEST(FleetGeneratorTest, ValuesComputedFromConsecutiveSamplesAreSane) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  // Busy hosts too: the busiest is where a percentage could pass 100%. Without process
  // churn: ComputeSnapshotValues pairs processes by PDH name, as PDH does, so a process that
  // starts or exits gives values of no instance or of another process (as on Windows).
  for (double activity : {0.0, 3.0}) {
    const FleetGenerator fleet = FixtureFleet(
        {.seed = 11, .hosts = 12, .process_starts_per_minute = 0, .activity = activity});
    for (int h = 0; h < fleet.hosts(); ++h) {
      HostSimulator host = fleet.StartHost(h);
      std::vector<std::vector<uint8_t>> samples = Samples(host, 30);
      int processor_values = 0;
      for (size_t k = 1; k < samples.size(); ++k) {
        Result<SnapshotReader> older = SnapshotReader::Open(samples[k - 1]);
        Result<SnapshotReader> newer = SnapshotReader::Open(samples[k]);
        ASSERT_TRUE(older.ok() && newer.ok());
        ComputeSnapshotValues(&*older, *newer, {}, [&](const ComputedValue& computed) {
          const uint32_t type = computed.raw.type;
          if (!IsSuccess(computed.value.status)) {
            // Bases and text have no value of their own; everything else has one.
            EXPECT_TRUE(IsBaseType(type) || (type & wp::kSizeMask) == wp::kSizeZero ||
                        !computed.raw.has_value)
                << host.profile().name << " object " << computed.object.name_index() << " counter "
                << computed.counter.name_index() << ": " << PdhStatusName(computed.value.status);
            return;
          }
          const double value = computed.value.value;
          EXPECT_TRUE(std::isfinite(value));
          if ((type & wp::kDisplayMask) == wp::kDisplayPercent) {
            EXPECT_GE(value, 0) << host.profile().name << " counter "
                                << computed.counter.name_index();
            EXPECT_LE(value, 100 + 1e-9)
                << host.profile().name << " object " << computed.object.name_index() << " counter "
                << computed.counter.name_index();
          }
          if (computed.object.name_index() == ti::kProcessor &&
              computed.counter.name_index() == ti::kPercentProcessorTime) {
            ++processor_values;
          }
        });
      }
      if (fleet.layout_of(h).name != "s-exch2007-64") {
        EXPECT_GT(processor_values, 0) << host.profile().name;
      }
    }
  }
}

TEST(FleetGeneratorTest, ProcessorTimeIsAsComputedFromItsRawValues) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = FixtureFleet({.seed = 5, .hosts = 1, .layouts = {"wprepw01"}});
  HostSimulator host = fleet.StartHost(0);
  std::vector<std::vector<uint8_t>> samples = Samples(host, 50);
  double busiest = 0, quietest = 100;
  for (size_t k = 1; k < samples.size(); ++k) {
    Result<SnapshotReader> older = SnapshotReader::Open(samples[k - 1]);
    Result<SnapshotReader> newer = SnapshotReader::Open(samples[k]);
    ASSERT_TRUE(older.ok() && newer.ok());
    std::optional<ObjectView> before = older->FindObject(ti::kProcessor);
    std::optional<ObjectView> after = newer->FindObject(ti::kProcessor);
    ASSERT_TRUE(before.has_value() && after.has_value());
    auto then = before->instances().begin();
    for (const InstanceView& instance : after->instances()) {
      const InstanceView earlier = *then++;
      for (auto counter = after->counters().begin(); counter != after->counters().end();
           ++counter) {
        if ((*counter).name_index() != ti::kPercentProcessorTime) continue;
        auto counter_before = before->counters().begin();
        while ((*counter_before).name_index() != ti::kPercentProcessorTime) ++counter_before;
        const RawCounter now = ReadRawCounter(*newer, *after, counter, instance);
        const RawCounter past = ReadRawCounter(*older, *before, counter_before, earlier);
        const CounterValue value = ComputeCounterValue(now, &past);
        ASSERT_TRUE(IsSuccess(value.status));
        EXPECT_GE(value.value, 0);
        EXPECT_LE(value.value, 100);
        busiest = std::max(busiest, value.value);
        quietest = std::min(quietest, value.value);
      }
    }
  }
  // It moves, as a real processor's does.
  EXPECT_GT(busiest, quietest);
}

TEST(FleetGeneratorTest, TheSameSeedGivesTheSameBytes) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetOptions options{.seed = 42, .hosts = 7, .title_change_probability = 0.05};
  const FleetGenerator one = FixtureFleet(options), two = FixtureFleet(options);
  FleetOptions other_seed = options;
  other_seed.seed = 43;
  const FleetGenerator three = FixtureFleet(other_seed);
  for (int h = 0; h < options.hosts; ++h) {
    HostSimulator a = one.StartHost(h), b = two.StartHost(h), c = three.StartHost(h);
    bool differs = false;
    for (int k = 0; k < 25; ++k) {
      GeneratedSample from_a = a.Next(), from_b = b.Next(), from_c = c.Next();
      ASSERT_EQ(from_a.snapshot, from_b.snapshot) << "host " << h << " sample " << k;
      ASSERT_EQ(from_a.titles_changed, from_b.titles_changed);
      ASSERT_EQ(a.titles(), b.titles());
      differs = differs || from_a.snapshot != from_c.snapshot;
    }
    EXPECT_TRUE(differs) << "host " << h;
  }
  // Host 3 is the same in a fleet of 4 as in a fleet of 7.
  FleetOptions smaller = options;
  smaller.hosts = 4;
  HostSimulator alone = FixtureFleet(smaller).StartHost(3), among = one.StartHost(3);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(alone.Next().snapshot, among.Next().snapshot);
}

// The PIDs of a sample's processes, and System's Processes counter.
struct ProcessList {
  std::set<uint64_t> pids;
  size_t instances = 0;
  uint64_t system_processes = 0;
};
ProcessList ProcessesOf(const std::vector<uint8_t>& sample) {
  ProcessList list;
  Result<SnapshotReader> reader = SnapshotReader::Open(sample);
  EXPECT_TRUE(reader.ok());
  if (!reader.ok()) return list;
  if (std::optional<ObjectView> process = reader->FindObject(ti::kProcess)) {
    for (const CounterDefinitionView& counter : process->counters()) {
      if (counter.name_index() != ti::kIdProcess) continue;
      for (const InstanceView& instance : process->instances()) {
        list.pids.insert(*instance.counters().Value(counter));
        ++list.instances;
      }
    }
  }
  if (std::optional<ObjectView> system = reader->FindObject(ti::kSystem)) {
    for (const CounterDefinitionView& counter : system->counters()) {
      if (counter.name_index() != ti::kProcesses) continue;
      list.system_processes = *(*system->instances().begin()).counters().Value(counter);
    }
  }
  return list;
}

TEST(FleetGeneratorTest, ProcessesStartAndExit) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = FixtureFleet({.seed = 9, .hosts = 1, .layouts = {"kinex01"}});
  HostSimulator host = fleet.StartHost(0);
  std::vector<std::vector<uint8_t>> samples = Samples(host, 101);
  const ProcessList first = ProcessesOf(samples.front());
  EXPECT_EQ(first.instances, 66u);
  std::set<uint64_t> appeared, disappeared;
  for (const std::vector<uint8_t>& sample : samples) {
    const ProcessList now = ProcessesOf(sample);
    for (uint64_t pid : now.pids) {
      if (!first.pids.contains(pid)) appeared.insert(pid);
      EXPECT_EQ(pid % 4, 0u) << "Windows PIDs are multiples of 4";
    }
    for (uint64_t pid : first.pids) {
      if (!now.pids.contains(pid)) disappeared.insert(pid);
    }
    // System's Processes follows the process list.
    EXPECT_EQ(static_cast<int64_t>(now.system_processes) - static_cast<int64_t>(now.instances),
              static_cast<int64_t>(first.system_processes) - static_cast<int64_t>(first.instances));
  }
  EXPECT_FALSE(appeared.empty());
  EXPECT_FALSE(disappeared.empty());
  // Started processes are named as real ones, so a second svchost reads svchost#n in a path.
  Result<SnapshotReader> last = SnapshotReader::Open(samples.back());
  ASSERT_TRUE(last.ok());
  std::set<std::string> real_names;
  for (const ObjectLayout& object : fleet.layout_of(0).objects) {
    if (object.name_index != ti::kProcess) continue;
    for (const InstanceLayout& instance : object.instances) real_names.insert(instance.name);
  }
  std::optional<ObjectView> process = last->FindObject(ti::kProcess);
  ASSERT_TRUE(process.has_value());
  for (const InstanceView& instance : process->instances()) {
    EXPECT_TRUE(real_names.contains(InstanceName(*process, instance)));
  }
}

TEST(FleetGeneratorTest, CountersThatDidNotMoveInTheRealPairStayPut) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  const FleetGenerator fleet = FixtureFleet({.seed = 2, .hosts = 5, .title_change_probability = 0});
  for (int h = 0; h < 5; ++h) {
    HostSimulator host = fleet.StartHost(h);
    std::vector<std::vector<uint8_t>> samples = Samples(host, 30);
    Result<PairFigures> figures = MeasurePair(samples[1], samples.back());
    ASSERT_TRUE(figures.ok()) << figures.error();
    Result<PairFigures> real =
        MeasurePair(fleet.layout_of(h).real_older, fleet.layout_of(h).real_newer);
    ASSERT_TRUE(real.ok()) << real.error();
    // Most values stay where they are over almost five minutes, as most did in the real pair.
    EXPECT_GT(1 - figures->changed_share(), 0.5) << fleet.layout_of(h).name;
    EXPECT_LT(figures->changed_share(), 2 * real->changed_share()) << fleet.layout_of(h).name;
  }
}

TEST(FleetGeneratorTest, ChangeShareIsWithinAFactorOfTwoOfTheRealPairs) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  for (size_t m = 0; m < FixtureLayouts()->size(); ++m) {
    if ((*FixtureLayouts())[m].real_older.empty()) continue;
    Result<MachineComparison> row = CompareWithRealPair(FixtureLayouts(), m, 1, 10);
    ASSERT_TRUE(row.ok()) << row.error();
    const double real = row->real.changed_share(), generated = row->generated.changed_share();
    EXPECT_GT(real, 0) << row->machine;
    EXPECT_GE(generated, real / 2) << row->machine;
    EXPECT_LE(generated, real * 2) << row->machine;
  }
}

TEST(FleetGeneratorTest, TitleDatabasesChangeNowAndThen) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  // wrxxcrpisax01's ISA Server objects are extensible: registered again, they move to new
  // indexes that the new database names. win2003 has none: a provider is installed instead.
  const FleetGenerator fleet = FixtureFleet(
      {.seed = 4, .hosts = 1, .layouts = {"wrxxcrpisax01"}, .title_change_probability = 0.2});
  HostSimulator host = fleet.StartHost(0);
  // What each object and counter is called before any change (the real database names most,
  // not all, of the provider's indexes).
  const auto names_in = [](const std::vector<uint8_t>& sample, const std::vector<uint8_t>& list) {
    TitleDatabase titles;
    EXPECT_TRUE(ParseTitleList(list, false, titles).ok());
    std::vector<std::string> names;
    Result<SnapshotReader> reader = SnapshotReader::Open(sample);
    EXPECT_TRUE(reader.ok());
    if (!reader.ok()) return names;
    for (const ObjectView& object : reader->objects()) {
      names.emplace_back(titles.Name(object.name_index()).value_or("?"));
      for (const CounterDefinitionView& counter : object.counters()) {
        names.emplace_back(titles.Name(counter.name_index()).value_or("?"));
      }
    }
    return names;
  };
  const std::vector<std::string> before = names_in(host.Next().snapshot, host.titles());
  int changes = 0;
  for (int k = 0; k < 20; ++k) {
    GeneratedSample sample = host.Next();
    changes += sample.titles_changed;
    const std::vector<std::string> after = names_in(sample.snapshot, host.titles());
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) {
      EXPECT_EQ(after[i], before[i]) << "sample " << k + 1 << ", name " << i;
    }
  }
  EXPECT_GT(changes, 0);
  EXPECT_NE(host.titles(), *fleet.layout_of(0).titles);

  const FleetGenerator plain = FixtureFleet(
      {.seed = 4, .hosts = 1, .layouts = {"win2003"}, .title_change_probability = 0.5});
  HostSimulator other = plain.StartHost(0);
  const std::vector<uint8_t> first = other.Next().snapshot;
  bool changed = false;
  for (int k = 0; k < 10; ++k) changed = other.Next().titles_changed || changed;
  EXPECT_TRUE(changed);
  EXPECT_GT(other.titles().size(), plain.layout_of(0).titles->size());
}

TEST(FleetGeneratorTest, UnknownMachinesAndEmptyFleetsAreRefused) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kRealData);
  Result<FleetGenerator> unknown =
      FleetGenerator::Create(FixtureLayouts(), {.layouts = {"nosuch"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("nosuch"), std::string::npos);
  EXPECT_FALSE(FleetGenerator::Create(FixtureLayouts(), {.hosts = 0}).ok());
  EXPECT_FALSE(FleetGenerator::Create(FixtureLayouts(), {.interval_ns = 0}).ok());
}

TEST(FleetGeneratorTest, MissingFixturesAreNamed) {
  Result<std::vector<MachineLayout>> loaded = LoadMachineLayouts("/nonexistent/fixtures");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().find("/nonexistent/fixtures/realdata/zenoss-windowsmonitor/"
                                "kinex01-0.perf"),
            std::string::npos)
      << loaded.error();
}

}  // namespace
}  // namespace perfhive::fleet
