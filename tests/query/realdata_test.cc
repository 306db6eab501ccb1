// A real capture (zenoss-windowsmonitor: two samples of a Windows 2003 host and its "Counter
// 009" list): selection and values end to end, checked against perfdata's snapshot pairing.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/path_expander.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/title_database_file.h"
#include "perfdata/well_known_indexes.h"
#include "query/series_query.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::query {
namespace {

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";

std::shared_ptr<const std::vector<uint8_t>> ReadFixture(const std::string& name) {
  return std::make_shared<const std::vector<uint8_t>>(
      perfhive::testing::ReadSharedFixture(std::filesystem::path(kZenoss) / name));
}

TEST(RealDataTest, ProcessorTimeOfARealHostIsTheCalculatorsValue) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  auto first = ReadFixture("win2003-0.perf"), second = ReadFixture("win2003-1.perf");
  auto counters = ReadFixture("win2003.counters");
  Result<TitleDatabase> titles = LoadTitleDatabase(*counters);
  ASSERT_TRUE(titles.ok()) << titles.error();
  auto english = std::make_shared<const TitleDatabase>(std::move(titles).value());
  HostSamples host{
      "win2003",
      {{1'000'000'000, first, english, nullptr}, {2'000'000'000, second, english, nullptr}}};
  std::vector<CounterPath> paths = {*ParseCounterPath("\\Processor(*)\\% Processor Time")};
  Result<QueryAnswer> answer = RunQuery(host, paths);
  ASSERT_TRUE(answer.ok()) << answer.error();

  // The same values through ComputeSnapshotValues, by instance name.
  SnapshotReader older = *SnapshotReader::Open(*first), newer = *SnapshotReader::Open(*second);
  std::map<std::string, CounterValue> expected;
  ComputeSnapshotValues(&older, newer, {}, [&](const ComputedValue& v) {
    if (v.object.name_index() == title_index::kProcessor &&
        v.counter.name_index() == title_index::kPercentProcessorTime) {
      expected[InstanceName(v.object, v.instance)] = v.value;
    }
  });
  ASSERT_FALSE(expected.empty());
  ASSERT_EQ(answer->series.size(), expected.size());
  for (const Series& series : answer->series) {
    SCOPED_TRACE(series.path());
    EXPECT_EQ(series.path(), "\\\\win2003\\Processor(" + series.instance + ")\\% Processor Time");
    ASSERT_EQ(series.points.size(), 2u);
    const CounterValue& want = expected.at(series.instance);
    EXPECT_EQ(series.points[1].value.status, want.status);
    EXPECT_EQ(series.points[1].value.value, want.value);
    EXPECT_EQ(series.points[1].time_ns, 2'000'000'000);
  }
}

}  // namespace
}  // namespace perfhive::query
