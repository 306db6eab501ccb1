// The query engine over a SampleReader that holds builder-made hosts in memory: which hosts a
// read loads, what it answers and explains, and that a read over the limits loads nothing.

#include "query/read_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "tests/query/memory_sample_reader.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// `host`'s processors at `seconds` seconds, idle 75% (CPU 0) and 50% (CPU 1) of each second.
void AddProcessorHost(MemorySampleReader& reader, const std::string& host, int seconds) {
  for (int s = 0; s < seconds; ++s) {
    SnapshotBuilder builder = HostAt(s);
    const uint64_t second = static_cast<uint64_t>(s) * kTicksPerSecond;
    AddProcessors(builder, {second * 3 / 4, second / 2}, {0, 0});
    HostSample sample = SampleOf(builder, s, EnglishTitles());
    sample.query = "Global";
    reader.Add(host, std::move(sample));
  }
}

// A read of `paths` over everything stored, the other fields as each test sets them.
ReadRequest Read(std::vector<std::string> paths) {
  ReadRequest request;
  request.paths = std::move(paths);
  return request;
}

// The values of the points whose status is a success, in order.
std::vector<double> ValidValues(const Series& series) {
  std::vector<double> values;
  for (const Point& point : series.points) {
    if (IsSuccess(point.value.status)) values.push_back(point.value.value);
  }
  return values;
}

TEST(ReadEngineTest, AMachineWildcardReadsTheHostsItMatchesAndNoOther) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 4);
  AddProcessorHost(reader, "WEB02", 4);
  AddProcessorHost(reader, "DB01", 4);
  ReadEngine engine(reader);
  Result<QueryAnswer> answer = engine.Read(Read({"\\\\web*\\Processor(*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(reader.loaded(), (std::set<std::string>{"WEB01", "WEB02"}));
  ASSERT_EQ(answer->series.size(), 4u);
  for (const Series& series : answer->series) {
    // Three intervals; CPU 0 idle 75% is 25% busy, CPU 1 50%.
    EXPECT_EQ(ValidValues(series), std::vector<double>(3, series.instance == "0" ? 25 : 50))
        << series.path();
  }
  EXPECT_THAT(answer->warnings, IsEmpty());
}

TEST(ReadEngineTest, AHostSelectorReadsOnlyTheHostsWhoseLabelsItSelects) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 3);
  AddProcessorHost(reader, "WEB02", 3);
  AddProcessorHost(reader, "DB01", 3);
  ReadEngine engine(reader);
  std::map<std::string, HostLabels> labels = {{"WEB01", {{"role", "web"}, {"site", "ams"}}},
                                              {"WEB02", {{"role", "web"}, {"site", "fra"}}},
                                              {"DB01", {{"role", "sql"}, {"site", "ams"}}}};
  engine.set_host_labels([&](const std::string& host) { return labels[host]; });
  ReadRequest request = Read({"\\\\*\\Processor(0)\\% Processor Time"});
  request.hosts = *HostSelector::Parse("site=ams");
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(reader.loaded(), (std::set<std::string>{"WEB01", "DB01"}));
  ASSERT_EQ(answer->series.size(), 2u);

  request.hosts = *HostSelector::Parse("site=nowhere");
  answer = engine.Read(request);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(answer.error(), HasSubstr("none of the 3 hosts"));
  EXPECT_THAT(answer.error(), HasSubstr("site=nowhere"));
}

TEST(ReadEngineTest, NoMatchingHostIsNotFoundNamingTheKnownHosts) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 2);
  ReadEngine engine(reader);
  Result<QueryAnswer> answer = engine.Read(Read({"\\\\DB*\\Processor(*)\\% Processor Time"}));
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(answer.error(), HasSubstr("known hosts: WEB01"));
  EXPECT_THAT(reader.loaded(), IsEmpty());
}

TEST(ReadEngineTest, PointsOutsideTheRangeAreTrimmedAndStatisticsCountOnlyTheRange) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 6);
  ReadEngine engine(reader);
  // Seconds 2 to 4: the sample at 1 is the first interval's older end, not a point.
  ReadRequest request = Read({"\\Processor(0)\\% Processor Time"});
  request.from_ns = kStartNs + 2 * kSecondNs;
  request.to_ns = kStartNs + 4 * kSecondNs;
  request.statistics = true;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  const Series& series = answer->series[0];
  std::vector<int64_t> times;
  for (const Point& point : series.points) times.push_back((point.time_ns - kStartNs) / kSecondNs);
  EXPECT_THAT(times, ElementsAre(2, 3, 4));
  EXPECT_EQ(ValidValues(series), std::vector<double>(3, 25));
  ASSERT_TRUE(series.stats);
  EXPECT_EQ(series.stats->summary.count, 3u);
  EXPECT_DOUBLE_EQ(series.stats->summary.mean, 25);
}

TEST(ReadEngineTest, APathThatSelectsNothingIsExplainedAndTheOthersAnswered) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 3);
  ReadEngine engine(reader);
  Result<QueryAnswer> answer =
      engine.Read(Read({"\\Processor(0)\\% Processor Time", "\\Processr(*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(answer->series.size(), 1u);
  ASSERT_EQ(answer->warnings.size(), 1u);
  EXPECT_THAT(answer->warnings[0], HasSubstr("Processr"));
  EXPECT_THAT(answer->warnings[0], HasSubstr("Processor"));  // the close name suggested
}

// A fleet read of an object most hosts lack restored a whole sample of each such host to suggest
// close names, 30% of the read's CPU on the side-by-side fleet. Across more hosts than
// kMostHostsSuggestedFor it names the object and the host only; a small read still suggests.
TEST(ReadEngineTest, AFleetReadDoesNotRestoreAWholeSampleOfEveryHostLackingTheObject) {
  MemorySampleReader reader;
  for (size_t h = 0; h <= ReadEngine::kMostHostsSuggestedFor; ++h) {
    AddProcessorHost(reader, "WEB" + std::to_string(10 + h), 3);
  }
  ReadEngine engine(reader);
  Result<QueryAnswer> answer = engine.Read(Read({"\\\\*\\Processr(*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->warnings.size(), ReadEngine::kMostHostsSuggestedFor + 1);
  EXPECT_THAT(answer->warnings[0], HasSubstr("no object \"Processr\" on WEB10"));
  EXPECT_THAT(answer->warnings[0], Not(HasSubstr("did you mean")));
  EXPECT_EQ(reader.whole_samples_read(), 0u);

  Result<QueryAnswer> few = engine.Read(Read({"\\\\WEB10\\Processr(*)\\% Processor Time"}));
  ASSERT_TRUE(few.ok()) << few.error();
  ASSERT_FALSE(few->warnings.empty());
  EXPECT_THAT(few->warnings[0], HasSubstr("did you mean \"Processor\""));
}

TEST(ReadEngineTest, AHostWithoutSamplesInTheRangeIsAWarningWithTheNearestTime) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 3);
  ReadEngine engine(reader);
  ReadRequest request = Read({"\\Processor(0)\\% Processor Time"});
  request.from_ns = kStartNs + 100 * kSecondNs;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_THAT(answer->series, IsEmpty());
  ASSERT_EQ(answer->warnings.size(), 1u);
  EXPECT_THAT(answer->warnings[0], HasSubstr("WEB01 has no sample since 2026-11-22T10:01:40Z"));
  EXPECT_THAT(answer->warnings[0], HasSubstr("the nearest is at 2026-11-22T10:00:02Z"));
}

TEST(ReadEngineTest, AReadOverTheByteLimitIsRefusedBeforeAnyHostIsLoaded) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 50);
  AddProcessorHost(reader, "WEB02", 50);
  ReadEngine engine(reader);
  engine.set_max_bytes(1000);  // fewer than the samples restore
  Result<QueryAnswer> answer = engine.Read(Read({"\\Processor(*)\\% Processor Time"}));
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(reader.loaded(), IsEmpty());
}

// A read with a step restored each query's newest sample of every host to estimate its bytes,
// reading the same block again to answer (13% of a fleet read). Its samples' whole sizes bound
// it without restoring; only a read past that bound probes, and one past the limit is refused.
TEST(ReadEngineTest, AReadWithAStepWithinItsSamplesWholeSizeRestoresNoProbe) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 50);
  AddProcessorHost(reader, "WEB02", 50);
  ReadEngine engine(reader);
  ReadRequest request = Read({"\\Processor(*)\\% Processor Time"});
  request.step_ns = 10 * kSecondNs;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(answer->series.size(), 4u);
  EXPECT_EQ(reader.probes_restored(), 0u);

  engine.set_max_bytes(1000);  // fewer than the samples restore
  answer = engine.Read(request);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(reader.probes_restored(), 2u);  // the newest of each host, past the bound
}

TEST(ReadEngineTest, LatestGivesTheNewestPointOfEachSeries) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 5);
  ReadEngine engine(reader);
  ReadRequest request = Read({"\\Processor(*)\\% Processor Time"});
  request.latest_only = true;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 2u);
  for (const Series& series : answer->series) {
    ASSERT_EQ(series.points.size(), 1u);
    EXPECT_EQ(series.points[0].time_ns, kStartNs + 4 * kSecondNs);
  }
}

TEST(ReadEngineTest, ABadPathOrRangeIsAnInvalidArgumentNamingIt) {
  MemorySampleReader reader;
  AddProcessorHost(reader, "WEB01", 2);
  ReadEngine engine(reader);
  EXPECT_EQ(engine.Read(Read({})).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(engine.Read(Read({"Processor"})).status().code(), StatusCode::kInvalidArgument);
  ReadRequest backwards_request = Read({"\\Processor(*)\\% Processor Time"});
  backwards_request.from_ns = 10;
  backwards_request.to_ns = 5;
  Result<QueryAnswer> backwards = engine.Read(backwards_request);
  EXPECT_THAT(backwards.error(), HasSubstr("the range ends before it begins"));
}

}  // namespace
}  // namespace perfhive::query
