// DecodedSnapshot over a real capture (zenoss-windowsmonitor's kinex01, two samples 0.166 s
// apart, and its "Counter 009" list): selection, raw values, the values worked out by hand in
// tests/perfdata/realdata_test.cc, and both renderers. tests/cli runs perfhive decode over built
// snapshots.

#include "query/decoded_snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "perfdata/pdh_status.h"
#include "perfdata/title_database_file.h"
#include "perfdata/winperf.h"
#include "query/decoded_snapshot_renderers.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::query {
namespace {

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";

class DecodedKinex01Test : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
    older_bytes_ = Read("kinex01-0.perf");
    newer_bytes_ = Read("kinex01-1.perf");
    Result<TitleDatabase> titles = LoadTitleDatabase(Read("kinex01.counters"));
    ASSERT_TRUE(titles.ok()) << titles.error();
    titles_ = std::move(titles).value();
    older_.emplace(*SnapshotReader::Open(older_bytes_));
    newer_.emplace(*SnapshotReader::Open(newer_bytes_));
  }

  static std::vector<uint8_t> Read(const std::string& name) {
    return perfhive::testing::ReadSharedFixture(std::filesystem::path(kZenoss) / name);
  }

  // The newer sample against the older, keeping what `paths` select.
  DecodedSnapshot Decode(const std::vector<std::string>& paths, bool with_values = true) {
    DecodeRequest request;
    request.previous = with_values ? &*older_ : nullptr;
    request.titles = &titles_;
    for (const std::string& path : paths) request.paths.push_back(*ParseCounterPath(path));
    return DecodeSnapshot(*newer_, request);
  }

  std::vector<uint8_t> older_bytes_, newer_bytes_;
  TitleDatabase titles_;
  std::optional<SnapshotReader> older_, newer_;
};

TEST_F(DecodedKinex01Test, SelectedCountersHaveTheHandWorkedValues) {
  DecodedSnapshot decoded =
      Decode({"\\Processor(0)\\% Processor Time", "\\Processor(0)\\% User Time"});
  EXPECT_EQ(decoded.system, "KINEX01");
  EXPECT_EQ(decoded.perf_time, 5002337833153328);
  EXPECT_EQ(decoded.perf_freq, 1995000000);
  EXPECT_EQ(decoded.perf_time_100ns, 128760056102944544);
  EXPECT_TRUE(decoded.has_values);
  ASSERT_EQ(decoded.objects.size(), 1u);
  const DecodedObject& processor = decoded.objects[0];
  EXPECT_EQ(processor.index, 238u);
  EXPECT_EQ(processor.name, "Processor");
  ASSERT_EQ(processor.instances.size(), 1u);
  const DecodedInstance& cpu0 = processor.instances[0];
  EXPECT_EQ(cpu0.pdh_name, "0");
  // Snapshot order: % Processor Time (6) comes before % User Time (142) in kinex01's Processor.
  ASSERT_EQ(cpu0.counters.size(), 2u);
  const DecodedCounter& processor_time = cpu0.counters[0];
  EXPECT_EQ(processor.counters[processor_time.definition].index, 6u);
  EXPECT_EQ(processor.counters[processor_time.definition].type, "PERF_100NSEC_TIMER_INV");
  EXPECT_EQ(processor_time.path, "\\\\KINEX01\\Processor(0)\\% Processor Time");
  EXPECT_EQ(std::get<uint64_t>(processor_time.raw), 23962783593750u);
  ASSERT_TRUE(processor_time.value.has_value());
  EXPECT_EQ(processor_time.value->status, PdhStatus::kValidData);
  // 100 · (1 − 937,500 / 1,562,560), 100ns units of both samples.
  EXPECT_NEAR(processor_time.value->value, 40.0023039, 1e-6);
  const DecodedCounter& user_time = cpu0.counters[1];
  EXPECT_EQ(std::get<uint64_t>(user_time.raw), 520306718750u);
  // 100 · 468,750 / 1,562,560.
  EXPECT_NEAR(user_time.value->value, 29.998848, 1e-6);
}

TEST_F(DecodedKinex01Test, AnObjectWithoutInstancesHasOneUnnamedInstance) {
  DecodedSnapshot decoded = Decode({"\\Memory\\Available Bytes"}, /*with_values=*/false);
  EXPECT_FALSE(decoded.has_values);
  ASSERT_EQ(decoded.objects.size(), 1u);
  EXPECT_EQ(decoded.objects[0].num_instances, winperf::kNoInstances);
  ASSERT_EQ(decoded.objects[0].instances.size(), 1u);
  const DecodedInstance& memory = decoded.objects[0].instances[0];
  EXPECT_FALSE(memory.has_definition);
  ASSERT_EQ(memory.counters.size(), 1u);
  EXPECT_EQ(std::get<uint64_t>(memory.counters[0].raw), 215597056u);
  EXPECT_FALSE(memory.counters[0].value.has_value());
  EXPECT_EQ(memory.counters[0].path, "\\\\KINEX01\\Memory\\Available Bytes");
}

TEST_F(DecodedKinex01Test, WithoutPathsEveryObjectIsKept) {
  DecodedSnapshot decoded = Decode({});
  EXPECT_EQ(decoded.objects.size(), static_cast<size_t>(newer_->num_objects()));
}

TEST_F(DecodedKinex01Test, TableHasOneAlignedRowPerCounterWithValues) {
  std::ostringstream out;
  RenderDecodedTable(
      Decode({"\\Processor(0)\\% Processor Time", "\\Processor(_Total)\\Interrupts/sec"}), out);
  // 128,760,056,102,944,544 × 100 ns after 1601 is 2009-01-09 20:13:30.294 UTC. The object's
  // 15 counters and 2 instances (0 and _Total) are its NumCounters and NumInstances fields.
  // Raw values and values are those of realdata_test.cc: 100 · (1 − 937,500 / 1,562,560) and
  // 55 interrupts in 331,631,046 ticks of 1.995 GHz.
  EXPECT_EQ(out.str(),
            "System KINEX01  2009-01-09T20:13:30.294Z  PerfTime 5002337833153328  "
            "PerfFreq 1995000000  PerfTime100nSec 128760056102944544\n"
            "\n"
            "Processor (object 238): 15 counters, 2 instances\n"
            "  INSTANCE  COUNTER           INDEX  TYPE                    SIZE  RAW             "
            "VALUE    STATUS\n"
            "  0         % Processor Time  6      PERF_100NSEC_TIMER_INV  8     23962783593750  "
            "40.002   PDH_CSTATUS_VALID_DATA\n"
            "  _Total    Interrupts/sec    148    PERF_COUNTER_COUNTER    4     917563074       "
            "330.865  PDH_CSTATUS_VALID_DATA\n");
}

TEST_F(DecodedKinex01Test, JsonNamesWhatTheTitlesLackAsNull) {
  std::ostringstream out;
  RenderDecodedJson(Decode({"\\Processor(_Total)\\Interrupts/sec"}), out);
  nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["system_time"], "2009-01-09T20:13:30.294Z");
  const nlohmann::json& processor = doc["objects"][0];
  EXPECT_EQ(processor["num_instances"], 2);
  ASSERT_EQ(processor["counters"].size(), 15u);  // every definition, selected or not
  EXPECT_EQ(processor["counters"][3]["default_scale"], -2);
  const nlohmann::json& instance = processor["instances"][0];
  EXPECT_EQ(instance["pdh_name"], "_Total");
  EXPECT_TRUE(instance["parent"].is_null());
  ASSERT_EQ(instance["counters"].size(), 1u);
  EXPECT_EQ(instance["counters"][0]["raw"], 917563074u);
  EXPECT_EQ(instance["counters"][0]["status"], "PDH_CSTATUS_VALID_DATA");
  EXPECT_NEAR(instance["counters"][0]["value"].get<double>(), 330.86468, 1e-5);
}

}  // namespace
}  // namespace perfhive::query
