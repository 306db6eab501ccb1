// Conditions held over time: the parser, the runs of a series built by hand (invalid points,
// one- and two-sample types, steps), and reads of hosts whose load crosses a threshold at known
// seconds, checked against the intervals that load puts it over, including a host that missed
// samples and a group's aggregate.

#include "query/held_condition.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "perfdata/winperf.h"
#include "query/read_engine.h"
#include "tests/query/memory_sample_reader.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::HasSubstr;

TEST(HeldConditionTest, ParsesAComparisonAThresholdAndADuration) {
  Result<HeldCondition> above = ParseHeldCondition(" > 90 for 5m ");
  ASSERT_TRUE(above.ok()) << above.error();
  EXPECT_EQ(above->comparison, HeldCondition::Comparison::kAbove);
  EXPECT_EQ(above->threshold, 90);
  EXPECT_EQ(above->for_ns, 300 * kSecondNs);
  EXPECT_EQ(above->text, "> 90 for 5m");

  Result<HeldCondition> at_most = ParseHeldCondition("<=-0.5e-1");
  ASSERT_TRUE(at_most.ok()) << at_most.error();
  EXPECT_EQ(at_most->comparison, HeldCondition::Comparison::kAtMost);
  EXPECT_DOUBLE_EQ(at_most->threshold, -0.05);
  EXPECT_EQ(at_most->for_ns, 0);
  EXPECT_TRUE(at_most->Meets(-0.05));
  EXPECT_FALSE(at_most->Meets(0));

  EXPECT_TRUE(ParseHeldCondition(">=0.02 for 10s")->Meets(0.02));
  EXPECT_FALSE(ParseHeldCondition("> 0.02")->Meets(0.02));
  EXPECT_TRUE(ParseHeldCondition("< 5 for 1h")->Meets(4.9));
}

TEST(HeldConditionTest, RefusesWhatIsNotAConditionSayingWhatToGive) {
  for (const char* bad : {"", "90 for 5m", "= 90", "> ", "> ninety", "> 90 during 5m", "> 90 for",
                          "> 90 for five", "> nan"}) {
    Result<HeldCondition> condition = ParseHeldCondition(bad);
    ASSERT_FALSE(condition.ok()) << bad;
    EXPECT_EQ(condition.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(condition.error(), HasSubstr("e.g. \"> 90 for 5m\"")) << bad;
  }
  EXPECT_THAT(ParseHeldCondition("> 90 for five").error(), HasSubstr("\"five\" is not a span"));
}

// A series of `type` with a point every 10 s from second 10; NaN makes a point invalid.
Series SeriesOf(uint32_t type, const std::vector<double>& values) {
  Series series;
  series.counter_type = type;
  for (size_t k = 0; k < values.size(); ++k) {
    Point point;
    point.time_ns = static_cast<int64_t>(10 * (k + 1)) * kSecondNs;
    if (values[k] == values[k]) {
      point.value.status = PdhStatus::kValidData;
      point.value.value = values[k];
    }
    series.points.push_back(point);
  }
  return series;
}

TEST(HeldConditionTest, ARunEndsAtAnInvalidPointOrOneBelowAndLastsFromItsFirstIntervalsStart) {
  const double nan = std::nan("");
  // Points at 10..100 s.
  Series rate = SeriesOf(winperf::k100NsecTimer, {95, 96, 50, 97, 98, 99, nan, 91, 92, 93});
  HeldCondition condition = *ParseHeldCondition("> 90 for 20s");
  std::vector<HeldInterval> held = HeldIntervals(rate, condition, std::nullopt);
  // 10-20 s is too short (its first point has no point before it in the read: from its own
  // time); 40-60 s holds from 30 s, where the value at 40 s was measured from; the invalid point
  // at 70 s ends it; 80-100 s holds from 70 s and is ongoing.
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].from_ns, 30 * kSecondNs);
  EXPECT_EQ(held[0].to_ns, 60 * kSecondNs);
  EXPECT_FALSE(held[0].ongoing);
  EXPECT_EQ(held[0].extreme, 99);
  EXPECT_EQ(held[1].from_ns, 70 * kSecondNs);
  EXPECT_EQ(held[1].to_ns, 100 * kSecondNs);
  EXPECT_TRUE(held[1].ongoing);
  EXPECT_EQ(held[1].extreme, 93);

  // A gauge is known at its samples only: held from its first point's own time.
  Series gauge = SeriesOf(winperf::kCounterRawcount, {95, 96, 50, 97, 98, 99, nan, 91, 92, 93});
  held = HeldIntervals(gauge, condition, std::nullopt);
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].from_ns, 40 * kSecondNs);
  EXPECT_EQ(held[1].from_ns, 80 * kSecondNs);

  // With a step, a rate's point was measured over the step before it.
  held = HeldIntervals(rate, *ParseHeldCondition("> 90"), 5 * kSecondNs);
  ASSERT_EQ(held.size(), 3u);
  EXPECT_EQ(held[0].from_ns, 5 * kSecondNs);
  EXPECT_EQ(held[1].from_ns, 35 * kSecondNs);

  // Below a threshold: the extreme is the lowest value.
  held = HeldIntervals(rate, *ParseHeldCondition("< 60"), std::nullopt);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].extreme, 50);
  EXPECT_EQ(held[0].from_ns, 20 * kSecondNs);
  EXPECT_EQ(held[0].to_ns, 30 * kSecondNs);
}

// `host` with one processor as busy as `busy` says during each second (second-1 to second),
// sampled at the seconds `taken`.
void AddHostBusyAsSaid(MemorySampleReader& reader, const std::string& host, int seconds,
                       const std::function<double(int)>& busy,
                       const std::function<bool(int)>& taken) {
  uint64_t idle = 0;
  for (int s = 0; s < seconds; ++s) {
    if (s > 0) {
      idle += static_cast<uint64_t>(
          std::llround((100 - busy(s)) / 100.0 * static_cast<double>(kTicksPerSecond)));
    }
    if (!taken(s)) continue;
    SnapshotBuilder builder = HostAt(s);
    AddProcessors(builder, {idle}, {0});
    HostSample sample = SampleOf(builder, s, EnglishTitles());
    sample.query = "Global";
    reader.Add(host, std::move(sample));
  }
}

// Busy above 50% during seconds 4 to 8 (from 3 s to 8 s), idle-ish before and after.
double BusyFromThreeToEight(int second) { return second >= 4 && second <= 8 ? 80 : 20; }
// Busy above 50% from 9 s to the end.
double BusyFromNine(int second) { return second >= 10 ? 70 : 10; }

TEST(HeldConditionTest, AReadKeepsTheHostsThatHeldWithTheIntervalsTheirLoadPutsThemOver) {
  MemorySampleReader reader;
  AddHostBusyAsSaid(reader, "BUSY", 13, BusyFromThreeToEight, [](int) { return true; });
  // Down from 5 s to 7 s: its sample at 8 s measures 4 s to 8 s, all of it busy.
  AddHostBusyAsSaid(reader, "GAPPY", 13, BusyFromThreeToEight,
                    [](int s) { return s < 5 || s > 7; });
  AddHostBusyAsSaid(reader, "LATE", 13, BusyFromNine, [](int) { return true; });
  AddHostBusyAsSaid(
      reader, "CALM", 13, [](int) { return 10.0; }, [](int) { return true; });
  ReadEngine engine(reader);
  ReadRequest request;
  request.paths = {"\\\\*\\Processor(0)\\% Processor Time"};
  request.from_ns = kStartNs + kSecondNs;
  request.condition = *ParseHeldCondition("> 50 for 3s");
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(answer->held_checked, 4u);
  std::map<std::string, std::vector<HeldInterval>> held;
  for (const Series& series : answer->series) held[series.host] = series.held;
  ASSERT_EQ(held.size(), 3u);  // CALM never held it
  for (const std::string host : {"BUSY", "GAPPY"}) {
    ASSERT_EQ(held[host].size(), 1u) << host;
    EXPECT_EQ(held[host][0].from_ns, kStartNs + 3 * kSecondNs) << host;
    EXPECT_EQ(held[host][0].to_ns, kStartNs + 8 * kSecondNs) << host;
    EXPECT_FALSE(held[host][0].ongoing) << host;
    EXPECT_NEAR(held[host][0].extreme, 80, 1e-9) << host;
  }
  ASSERT_EQ(held["LATE"].size(), 1u);
  EXPECT_EQ(held["LATE"][0].from_ns, kStartNs + 9 * kSecondNs);
  EXPECT_EQ(held["LATE"][0].to_ns, kStartNs + 12 * kSecondNs);
  EXPECT_TRUE(held["LATE"][0].ongoing);

  // Longer than any run: nothing held, and the read says how many series were checked.
  request.condition = *ParseHeldCondition("> 50 for 6s");
  answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_TRUE(answer->series.empty());
  EXPECT_EQ(answer->held_checked, 4u);
}

TEST(HeldConditionTest, AGroupsAggregateHoldsWhereItsStepValuesMeetIt) {
  MemorySampleReader reader;
  AddHostBusyAsSaid(reader, "BUSY", 13, BusyFromThreeToEight, [](int) { return true; });
  AddHostBusyAsSaid(
      reader, "CALM", 13, [](int) { return 10.0; }, [](int) { return true; });
  ReadEngine engine(reader);
  ReadRequest request;
  request.paths = {"\\\\*\\Processor(0)\\% Processor Time"};
  request.from_ns = kStartNs + kSecondNs;
  request.step_ns = kSecondNs;
  request.aggregation = Aggregation{*ParseGroupBy("counter"), *ParseAggregateFunctions("avg,max")};
  request.condition = *ParseHeldCondition(">= 45");
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  // avg is (80 + 10) / 2 = 45 and max is 80 over the same steps, 4 s to 8 s, from 3 s.
  ASSERT_EQ(answer->series.size(), 2u);
  for (const Series& series : answer->series) {
    ASSERT_EQ(series.held.size(), 1u) << series.path();
    EXPECT_EQ(series.held[0].from_ns, kStartNs + 3 * kSecondNs) << series.path();
    EXPECT_EQ(series.held[0].to_ns, kStartNs + 8 * kSecondNs) << series.path();
  }
}

TEST(HeldConditionTest, TheLatestValuesAreNotARangeToHoldOver) {
  MemorySampleReader reader;
  AddHostBusyAsSaid(reader, "BUSY", 3, BusyFromThreeToEight, [](int) { return true; });
  ReadEngine engine(reader);
  ReadRequest request;
  request.paths = {"\\\\*\\Processor(0)\\% Processor Time"};
  request.latest_only = true;
  request.condition = *ParseHeldCondition("> 50");
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_FALSE(answer.ok());
  EXPECT_THAT(answer.error(), HasSubstr("needs a range"));
}

}  // namespace
}  // namespace perfhive::query
