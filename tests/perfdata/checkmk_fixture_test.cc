// Real raw values from a Windows Server 2019 host (the Checkmk agent's winperf sections in
// ../shared/fixtures/checkmk), turned into snapshots with the builder; a second sample adds
// known increments, and the computed values are checked against values computed by hand.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/counter_type.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/winperf.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

namespace wp = winperf;

struct FixtureCounter {
  uint32_t index;
  uint32_t type;
  std::vector<uint64_t> values;  // per instance (one for objects without instances)
};
struct FixtureObject {
  uint32_t index;
  int64_t freq;
  std::vector<std::string> instances;  // empty: no instances
  std::vector<FixtureCounter> counters;
};

uint32_t TypeOf(const std::string& name) {
  static const std::map<std::string, uint32_t> kNames = {
      {"rawcount", wp::kCounterRawcount},         {"large_rawcount", wp::kCounterLargeRawcount},
      {"counter", wp::kCounterCounter},           {"bulk_count", wp::kCounterBulkCount},
      {"average_timer", wp::kAverageTimer},       {"average_base", wp::kAverageBase},
      {"average_bulk", wp::kAverageBulk},         {"100nsec_timer", wp::k100NsecTimer},
      {"100nsec_timer_inv", wp::k100NsecTimerInv}};
  if (name.starts_with("type(")) return static_cast<uint32_t>(std::stoul(name.substr(5)));
  auto it = kNames.find(name);
  return it == kNames.end() ? 0 : it->second;
}

// Parses the <<<winperf_*>>> sections: "<time> <object index> <freq>", optionally
// "<n> instances: <names>", then "<index − object index> <value per instance> <type>".
std::map<uint32_t, FixtureObject> ParseFixture(std::istream& in) {
  std::map<uint32_t, FixtureObject> objects;
  FixtureObject* current = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("<<<")) {
      current = nullptr;
      if (line.starts_with("<<<winperf_")) {
        std::getline(in, line);
        std::istringstream header(line);
        double time;
        FixtureObject object;
        header >> time >> object.index >> object.freq;
        current = &(objects[object.index] = object);
      }
      continue;
    }
    if (current == nullptr || line.empty()) continue;
    std::istringstream fields(line);
    if (line.find(" instances:") != std::string::npos) {
      std::string count, word;
      fields >> count >> word;
      for (std::string name; fields >> name;) {
        std::replace(name.begin(), name.end(), '_', ' ');
        current->instances.push_back(name == " Total" ? "_Total" : name);
      }
      continue;
    }
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    uint32_t type = TypeOf(words.back());
    if (type == 0) continue;  // text
    FixtureCounter counter{static_cast<uint32_t>(current->index + std::stol(words[0])), type, {}};
    for (size_t i = 1; i + 1 < words.size(); ++i) counter.values.push_back(std::stoull(words[i]));
    current->counters.push_back(counter);
  }
  return objects;
}

// Known increments for the second sample, by (counter index, type), for every instance.
using Increments = std::map<std::pair<uint32_t, uint32_t>, uint64_t>;

std::vector<uint8_t> Build(const std::map<uint32_t, FixtureObject>& objects, int sample,
                           const Increments& increments) {
  constexpr int64_t kPerfTime = 35'307'054'165'451;  // Timestamp_PerfTime from the same agent run
  constexpr int64_t kFiletime = 133'692'341'756'361'838;
  SnapshotBuilder builder;
  builder.set_system_name("windows_host")
      .set_perf_freq(10'000'000)
      .set_perf_time(kPerfTime + sample * 10'000'000)
      .set_perf_time_100ns(kFiletime + sample * 10'000'000);
  for (const auto& [index, fixture] : objects) {
    ObjectBuilder& object = builder.AddObject(index);
    for (const FixtureCounter& c : fixture.counters) {
      object.AddCounter({.name_index = c.index, .type = c.type});
    }
    if (fixture.instances.empty()) {
      object.set_no_instances();
    } else {
      for (const std::string& name : fixture.instances) object.AddInstance(name);
    }
    for (uint32_t c = 0; c < fixture.counters.size(); ++c) {
      const FixtureCounter& counter = fixture.counters[c];
      auto inc = increments.find({counter.index, counter.type});
      uint64_t add = sample == 1 && inc != increments.end() ? inc->second : 0;
      for (uint32_t i = 0; i < counter.values.size(); ++i) {
        object.SetValue(i, c, counter.values[i] + add);
      }
    }
  }
  return builder.Build();
}

class CheckmkFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char kExcerpt[] = "checkmk/windows-2.3.0p10.winperf_excerpt.txt";
    PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kExcerpt);
    std::ifstream in(testing::SharedFixture(kExcerpt));
    objects_ = ParseFixture(in);
  }

  // Values by "object/instance/counter index/type" of the second sample against the first, or
  // of the first alone (`first_only`, as PDH after its first collection).
  std::map<std::string, CounterValue> Compute(const Increments& increments,
                                              bool first_only = false) {
    bytes0_ = Build(objects_, 0, increments);
    bytes1_ = Build(objects_, 1, increments);
    Result<SnapshotReader> s0 = SnapshotReader::Open(bytes0_);
    Result<SnapshotReader> s1 = SnapshotReader::Open(bytes1_);
    if (!s0.ok() || !s1.ok()) {
      ADD_FAILURE() << "the builder's snapshot does not open: " << s0.error() << s1.error();
      return {};
    }
    std::map<std::string, CounterValue> values;
    ComputeSnapshotValues(
        first_only ? nullptr : &*s0, first_only ? *s0 : *s1, {}, [&](const ComputedValue& v) {
          std::string name = InstanceName(v.object, v.instance);
          values[std::to_string(v.object.name_index()) + "/" + name + "/" +
                 std::to_string(v.counter.name_index()) + "/" + CounterTypeName(v.counter.type())] =
              v.value;
        });
    return values;
  }

  // The valid value under `key`, or a failure naming what is missing or invalid.
  static double ValueOf(const std::map<std::string, CounterValue>& values, const std::string& key) {
    auto it = values.find(key);
    EXPECT_NE(it, values.end()) << key;
    if (it == values.end()) return -1;
    EXPECT_EQ(it->second.status, PdhStatus::kValidData)
        << key << ": " << DescribePdhStatus(it->second.status);
    return it->second.value;
  }

  std::map<uint32_t, FixtureObject> objects_;
  std::vector<uint8_t> bytes0_, bytes1_;
};

TEST_F(CheckmkFixtureTest, TheFileHasWhatItsReadmeDescribes) {
  ASSERT_EQ(objects_.size(), 5u);
  const FixtureObject& disk = objects_.at(234);
  EXPECT_EQ(disk.instances, (std::vector<std::string>{"0 C:", "_Total"}));
  EXPECT_EQ(disk.counters[1].type, wp::kPrecision100NsTimer);
  EXPECT_EQ(disk.counters[2].type, wp::kPrecisionTimestamp);
  EXPECT_EQ(disk.counters[2].values[0], 133'692'341'756'361'838u);
  EXPECT_EQ(objects_.at(238).instances.size(), 3u);
  EXPECT_TRUE(objects_.at(638).instances.empty());
}

TEST_F(CheckmkFixtureTest, ValuesFromRealRawCounters) {
  Increments increments = {
      {{200, wp::kPrecision100NsTimer}, 2'000'000},    // % Disk Time busy time
      {{200, wp::kPrecisionTimestamp}, 10'000'000},    // its FILETIME base: 1 s later
      {{1400, wp::kCounter100NsQueueLen}, 5'000'000},  // Avg. Disk Queue Length
      {{208, wp::kAverageTimer}, 100'000},             // Avg. Disk sec/Read: ticks
      {{208, wp::kAverageBase}, 10},                   // ... over 10 reads
      {{214, wp::kCounterCounter}, 50},                // Disk Reads/sec
      {{226, wp::kAverageBulk}, 40'960},               // Avg. Disk Bytes/Read (offset −8)
      {{226, wp::kAverageBase}, 10},
      {{388, wp::kCounterBulkCount}, 1'250'000},      // Bytes Total/sec
      {{6, wp::k100NsecTimerInv}, 7'500'000},         // Processor idle
      {{148, wp::kCounterCounter}, 1'000},            // Interrupts/sec
      {{202, wp::kPrecision100NsTimer}, 1'500'000},   // % Disk Read Time busy time
      {{202, wp::kPrecisionTimestamp}, 10'000'000},   // its own FILETIME base
      {{1482, wp::kPrecision100NsTimer}, 8'000'000},  // % Idle Time
      {{1482, wp::kPrecisionTimestamp}, 10'000'000},
      {{218, wp::kCounterBulkCount}, 4'096'000},  // Disk Bytes/sec
      {{142, wp::k100NsecTimer}, 1'500'000},      // % User Time
      {{144, wp::k100NsecTimer}, 1'000'000},      // % Privileged Time
      {{264, wp::kCounterBulkCount}, 1'000'000},  // Bytes Received/sec
      {{506, wp::kCounterBulkCount}, 250'000},    // Bytes Sent/sec
  };
  std::map<std::string, CounterValue> v = Compute(increments);
  auto value = [&](const std::string& key) { return ValueOf(v, key); };
  // % Disk Time: 2,000,000 busy of 10,000,000 FILETIME units → 20%.
  EXPECT_DOUBLE_EQ(value("234/0 C:/200/PERF_PRECISION_100NS_TIMER"), 20);
  // Avg. Disk Queue Length: 5,000,000 over 10,000,000 100 ns units → 0.5.
  EXPECT_DOUBLE_EQ(value("234/_Total/1400/PERF_COUNTER_100NS_QUEUELEN_TYPE"), 0.5);
  // Avg. Disk sec/Read: (100,000 ticks / 10 MHz) / 10 reads → 1 ms.
  EXPECT_DOUBLE_EQ(value("234/0 C:/208/PERF_AVERAGE_TIMER"), 0.001);
  // Disk Reads/sec: 50 in 1 s.
  EXPECT_DOUBLE_EQ(value("234/0 C:/214/PERF_COUNTER_COUNTER"), 50);
  // Avg. Disk Bytes/Read: 40,960 bytes over 10 reads → 4,096.
  EXPECT_DOUBLE_EQ(value("234/0 C:/226/PERF_AVERAGE_BULK"), 4096);
  // Network Interface Bytes Total/sec: 1,250,000 in 1 s.
  EXPECT_DOUBLE_EQ(value("510/Amazon Elastic Network Adapter/388/PERF_COUNTER_BULK_COUNT"),
                   1'250'000);
  // Processor 0 % Processor Time: idle 7,500,000 of 10,000,000 → 25%.
  EXPECT_DOUBLE_EQ(value("238/0/6/PERF_100NSEC_TIMER_INV"), 25);
  // Interrupts/sec: 1,000 in 1 s.
  EXPECT_DOUBLE_EQ(value("238/_Total/148/PERF_COUNTER_COUNTER"), 1000);
  // Raw counts are the real values themselves: TCPv4 Connections Established (638 + 4) = 1.
  EXPECT_DOUBLE_EQ(value("638//642/PERF_COUNTER_RAWCOUNT"), 1);
  // Unchanged counters in an interval (index 238 + 1516): 0 per second, not an error.
  EXPECT_DOUBLE_EQ(value("238/1/1754/PERF_COUNTER_BULK_COUNT"), 0);
  // % Disk Read Time: 1,500,000 of 10,000,000 → 15%; % Idle Time: 8,000,000 of 10,000,000 → 80%,
  // each against the FILETIME of the base definition right after it.
  EXPECT_DOUBLE_EQ(value("234/_Total/202/PERF_PRECISION_100NS_TIMER"), 15);
  EXPECT_DOUBLE_EQ(value("234/0 C:/1482/PERF_PRECISION_100NS_TIMER"), 80);
  // Disk Bytes/sec: 4,096,000 in 1 s.
  EXPECT_DOUBLE_EQ(value("234/0 C:/218/PERF_COUNTER_BULK_COUNT"), 4'096'000);
  // % User Time 1,500,000 and % Privileged Time 1,000,000 of 10,000,000 100 ns units: 15% and
  // 10%, which add up to the 25% of % Processor Time above.
  EXPECT_DOUBLE_EQ(value("238/_Total/142/PERF_100NSEC_TIMER"), 15);
  EXPECT_DOUBLE_EQ(value("238/_Total/144/PERF_100NSEC_TIMER"), 10);
  // Bytes Received/sec 1,000,000 and Bytes Sent/sec 250,000: together Bytes Total/sec.
  EXPECT_DOUBLE_EQ(value("510/Amazon Elastic Network Adapter/264/PERF_COUNTER_BULK_COUNT"),
                   1'000'000);
  EXPECT_DOUBLE_EQ(value("510/Amazon Elastic Network Adapter/506/PERF_COUNTER_BULK_COUNT"),
                   250'000);
  // Current Bandwidth is the real raw value: 25,000,000,000 bits/s (a 25 Gbit/s adapter).
  EXPECT_DOUBLE_EQ(value("510/Amazon Elastic Network Adapter/520/PERF_COUNTER_LARGE_RAWCOUNT"),
                   25e9);
}

TEST_F(CheckmkFixtureTest, TheFirstSampleHasValuesOnlyForOneSampleTypes) {
  std::map<std::string, CounterValue> v = Compute({}, /*first_only=*/true);
  auto status = [&](const std::string& key) {
    auto it = v.find(key);
    EXPECT_NE(it, v.end()) << key;
    return it == v.end() ? PdhStatus::kValidData : it->second.status;
  };
  // Rates, timers and averages need a second sample: PDH_CSTATUS_INVALID_DATA, no number.
  EXPECT_EQ(status("234/0 C:/200/PERF_PRECISION_100NS_TIMER"), PdhStatus::kInvalidData);
  EXPECT_EQ(status("234/0 C:/208/PERF_AVERAGE_TIMER"), PdhStatus::kInvalidData);
  EXPECT_EQ(status("238/_Total/148/PERF_COUNTER_COUNTER"), PdhStatus::kInvalidData);
  EXPECT_EQ(status("238/0/6/PERF_100NSEC_TIMER_INV"), PdhStatus::kInvalidData);
  // Bases have no value of their own.
  EXPECT_EQ(status("234/0 C:/200/PERF_LARGE_RAW_BASE"), PdhStatus::kNoData);
  EXPECT_EQ(status("234/0 C:/208/PERF_AVERAGE_BASE"), PdhStatus::kNoData);
  // Raw counts are their real values: Current Disk Queue Length 0, Connections Established 1.
  EXPECT_DOUBLE_EQ(ValueOf(v, "234/0 C:/198/PERF_COUNTER_RAWCOUNT"), 0);
  EXPECT_DOUBLE_EQ(ValueOf(v, "638//642/PERF_COUNTER_RAWCOUNT"), 1);
}

TEST_F(CheckmkFixtureTest, ARealThirtyTwoBitCounterWrapsInItsWidth) {
  // Processor(_Total) Interrupts/sec is a 4-byte PERF_COUNTER_COUNTER at 2,585,521,356 after 40
  // days. Adding 1,709,446,940 gives 4,294,968,296 = 2^32 + 1,000: the second sample reads
  // 1,000. In its width the difference is 1,000 − 2,585,521,356 + 2^32 = 1,709,446,940 (in 1 s,
  // far faster than this host ever counted, but the arithmetic is the point); in 64 bits it would
  // be negative. Processor 0 (1,367,767,251 → 3,077,214,191) does not wrap and agrees.
  std::map<std::string, CounterValue> v = Compute({{{148, wp::kCounterCounter}, 1'709'446'940}});
  EXPECT_DOUBLE_EQ(ValueOf(v, "238/_Total/148/PERF_COUNTER_COUNTER"), 1'709'446'940);
  EXPECT_DOUBLE_EQ(ValueOf(v, "238/0/148/PERF_COUNTER_COUNTER"), 1'709'446'940);
}

}  // namespace
}  // namespace perfhive
