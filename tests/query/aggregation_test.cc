// Aggregates and rankings across hosts, checked against an independent computation from the same
// read's per-series answer: hosts with labels and different loads, a host that misses steps, a
// host sampled at another interval, processes grouped by name across hosts.

#include "query/aggregation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "query/read_engine.h"
#include "query/series_statistics.h"
#include "tests/query/memory_sample_reader.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Busy percent of CPU `cpu` during second `second` (from second-1 to second).
using BusyPercent = std::function<double(int second, int cpu)>;

// `host` with two processors whose busy share follows `busy`, sampled at the seconds `taken`.
void AddLoadedHost(MemorySampleReader& reader, const std::string& host, int seconds,
                   const BusyPercent& busy, const std::function<bool(int)>& taken) {
  uint64_t idle[2] = {0, 0};
  for (int s = 0; s < seconds; ++s) {
    for (int cpu = 0; cpu < 2; ++cpu) {
      if (s > 0) {
        idle[cpu] += static_cast<uint64_t>(
            std::llround((100 - busy(s, cpu)) / 100.0 * static_cast<double>(kTicksPerSecond)));
      }
    }
    if (!taken(s)) continue;
    SnapshotBuilder builder = HostAt(s);
    AddProcessors(builder, {idle[0], idle[1]}, {0, 0});
    HostSample sample = SampleOf(builder, s, EnglishTitles());
    sample.query = "Global";
    reader.Add(host, std::move(sample));
  }
}

bool EverySecond(int) { return true; }

// Four hosts: two web servers in ams and fra, a sql server, and a web server that was down for
// seconds 5 to 7; each with its own load that changes every second.
struct Fleet {
  MemorySampleReader reader;
  std::map<std::string, HostLabels> labels = {
      {"WEB01", {{"role", "web"}, {"site", "ams"}}},
      {"WEB02", {{"role", "web"}, {"site", "fra"}}},
      {"WEB03", {{"role", "web"}, {"site", "ams"}}},
      {"SQL01", {{"role", "sql"}, {"site", "ams"}}},
  };
  Fleet() {
    AddLoadedHost(
        reader, "WEB01", 12, [](int s, int cpu) { return 10 + s + 5 * cpu; }, EverySecond);
    AddLoadedHost(
        reader, "WEB02", 12, [](int s, int cpu) { return 50 - 2 * s + cpu; }, EverySecond);
    AddLoadedHost(
        reader, "WEB03", 12, [](int s, int) { return 30.0 + (s % 3) * 10; },
        [](int s) { return s < 5 || s > 7; });
    AddLoadedHost(
        reader, "SQL01", 12, [](int s, int) { return 90.0 - s; }, EverySecond);
  }
  ReadEngine Engine() {
    ReadEngine engine(reader);
    engine.set_host_labels([this](const std::string& host) { return labels[host]; });
    return engine;
  }
};

ReadRequest FleetRead(const std::string& path) {
  ReadRequest request;
  request.paths = {path};
  request.from_ns = kStartNs + 2 * kSecondNs;
  request.to_ns = kStartNs + 11 * kSecondNs;
  request.step_ns = kSecondNs;
  return request;
}

// The groups' member values at each step, from a read's per-series answer: the independent side.
std::map<std::string, std::map<int64_t, std::vector<double>>> GroupsByHand(
    const QueryAnswer& answer, const std::function<std::string(const Series&)>& group_of) {
  std::map<std::string, std::map<int64_t, std::vector<double>>> groups;
  for (const Series& series : answer.series) {
    auto& group = groups[group_of(series)];
    for (const Point& point : series.points) {
      if (IsSuccess(point.value.status)) group[point.time_ns].push_back(point.value.value);
    }
  }
  return groups;
}

double Mean(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

const Series* Find(const QueryAnswer& answer, const std::string& function,
                   const std::string& group) {
  for (const Series& series : answer.series) {
    if (series.aggregate && series.aggregate->function == function &&
        series.aggregate->group == group) {
      return &series;
    }
  }
  return nullptr;
}

TEST(AggregationTest, AGroupsStepsAreItsMembersValuesCombinedAndSayHowManyThereWere) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  const std::string path = "\\\\*\\Processor(*)\\% Processor Time";
  Result<QueryAnswer> members = engine.Read(FleetRead(path));
  ASSERT_TRUE(members.ok()) << members.error();
  auto by_hand =
      GroupsByHand(*members, [&](const Series& s) { return fleet.labels[s.host]["role"]; });

  ReadRequest request = FleetRead(path);
  request.aggregation =
      Aggregation{*ParseGroupBy("role"), *ParseAggregateFunctions("avg,sum,min,max,count,p50,p95")};
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 2u * 7u);  // sql and web, seven functions each
  for (const std::string role : {"web", "sql"}) {
    const Series* avg = Find(*answer, "avg", role);
    ASSERT_NE(avg, nullptr) << role;
    EXPECT_EQ(avg->path(), "avg(\\\\role=" + role + "\\Processor(*)\\% Processor Time)");
    EXPECT_EQ(avg->aggregate->members, role == "web" ? 6u : 2u);  // two CPUs a host
    const auto& steps = by_hand[role];
    ASSERT_EQ(avg->points.size(), steps.size());
    for (const std::string function : {"avg", "sum", "min", "max", "count", "p50", "p95"}) {
      const Series* series = Find(*answer, function, role);
      ASSERT_NE(series, nullptr);
      size_t k = 0;
      for (const auto& [time, unsorted] : steps) {
        std::vector<double> values = unsorted;
        std::sort(values.begin(), values.end());
        const Point& point = series->points[k];
        EXPECT_EQ(point.time_ns, time);
        EXPECT_EQ(series->aggregate->contributors[k], values.size());
        double expected =
            function == "avg"   ? Mean(values)
            : function == "sum" ? Mean(values) * static_cast<double>(values.size())
            : function == "min" ? values.front()
            : function == "max" ? values.back()
            : function == "count"
                ? static_cast<double>(values.size())
                : values[static_cast<size_t>(std::ceil((function == "p50" ? 0.5 : 0.95) *
                                                       static_cast<double>(values.size()))) -
                         1];
        EXPECT_NEAR(point.value.value, expected, 1e-9) << function << " " << role << " step " << k;
        ++k;
      }
    }
  }
  // Spot values by hand: the first step is second 3 (the interval from the range's start, 2, to
  // 3), where web01 is 13% and 18%, web02 44% and 45%, web03 30% on both CPUs.
  const Series* web_avg = Find(*answer, "avg", "web");
  EXPECT_EQ(web_avg->points[0].time_ns, kStartNs + 3 * kSecondNs);
  EXPECT_NEAR(web_avg->points[0].value.value, (13 + 18 + 44 + 45 + 30 + 30) / 6.0, 1e-6);
}

TEST(AggregationTest, AHostMissingStepsIsCountedMissingNotZero) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\web*\\Processor(0)\\% Processor Time");
  request.aggregation =
      Aggregation{GroupBy{}, {AggregateFunction::kMin, AggregateFunction::kCount}};
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  const Series* count = Find(*answer, "count", "");
  const Series* min = Find(*answer, "min", "");
  ASSERT_NE(count, nullptr);
  ASSERT_NE(min, nullptr);
  std::vector<uint32_t> contributors = count->aggregate->contributors;
  // Steps 3 to 11. WEB03 took no sample at 5, 6, 7: no value at those steps; at 8 its value is
  // the one over the interval from its sample at 4 to the one at 8.
  EXPECT_THAT(contributors, ElementsAre(3, 3, 2, 2, 2, 3, 3, 3, 3));
  for (size_t k = 0; k < count->points.size(); ++k) {
    EXPECT_EQ(count->points[k].value.value, contributors[k]);
    EXPECT_GT(min->points[k].value.value, 0) << "a missing host is not a zero";
  }
}

TEST(AggregationTest, ProcessorsGroupedByInstanceAcrossHosts) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\*\\Processor(*)\\% Processor Time");
  request.hosts = *HostSelector::Parse("site=ams");
  request.aggregation = Aggregation{*ParseGroupBy("instance"), {AggregateFunction::kMax}};
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 2u);
  const Series* cpu1 = Find(*answer, "max", "1");
  ASSERT_NE(cpu1, nullptr);
  EXPECT_EQ(cpu1->path(), "max(\\\\*\\Processor(1)\\% Processor Time)");
  EXPECT_EQ(cpu1->aggregate->members, 3u);  // WEB01, WEB03, SQL01
  // At second 3: WEB01 CPU 1 18%, WEB03 30%, SQL01 87%.
  EXPECT_NEAR(cpu1->points[0].value.value, 87, 1e-6);
}

TEST(AggregationTest, ProcessesAreGroupedByNameAcrossHosts) {
  MemorySampleReader reader;
  // Two hosts, each with two svchost processes (svchost, svchost#1) and one sqlservr.
  for (const std::string host : {"APP01", "APP02"}) {
    const uint64_t scale = host == "APP01" ? 1 : 2;
    for (int s = 0; s < 4; ++s) {
      SnapshotBuilder builder = HostAt(s);
      const uint64_t t = static_cast<uint64_t>(s) * kTicksPerSecond;
      AddProcesses(builder, s,
                   {{"svchost", 100, 1, t / 10 * scale},
                    {"svchost", 200, 2, t / 20 * scale},
                    {"sqlservr", 300, 3, t / 2 * scale}});
      HostSample sample = SampleOf(builder, s, EnglishTitles());
      sample.query = "Global";
      reader.Add(host, std::move(sample));
    }
  }
  ReadEngine engine(reader);
  ReadRequest request;
  request.paths = {"\\\\*\\Process(*)\\% Processor Time"};
  request.from_ns = kStartNs + kSecondNs;
  request.step_ns = kSecondNs;
  request.aggregation = Aggregation{*ParseGroupBy("process"), {AggregateFunction::kSum}};
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  const Series* svchost = Find(*answer, "sum", "svchost");
  const Series* sql = Find(*answer, "sum", "sqlservr");
  ASSERT_NE(svchost, nullptr);
  ASSERT_NE(sql, nullptr);
  EXPECT_EQ(svchost->aggregate->members, 4u);
  EXPECT_EQ(svchost->path(), "sum(\\\\*\\Process(svchost)\\% Processor Time)");
  ASSERT_FALSE(svchost->points.empty());
  // 10% + 5% on APP01, 20% + 10% on APP02.
  EXPECT_NEAR(svchost->points.back().value.value, 45, 1e-6);
  EXPECT_NEAR(sql->points.back().value.value, 150, 1e-6);
}

TEST(AggregationTest, RankingKeepsTheTopOrBottomHostsByAStatistic) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\*\\Processor(0)\\% Processor Time");
  Result<QueryAnswer> all = engine.Read([&] {
    ReadRequest with_stats = request;
    with_stats.statistics = true;
    return with_stats;
  }());
  ASSERT_TRUE(all.ok()) << all.error();
  // By hand: the hosts in order of their p95 over the range.
  std::vector<std::pair<double, std::string>> by_p95;
  for (const Series& series : all->series) by_p95.emplace_back(series.stats->p95, series.host);
  std::sort(by_p95.rbegin(), by_p95.rend());

  request.ranking = Ranking{RankStatistic::kP95, 2, true};
  Result<QueryAnswer> top = engine.Read(request);
  ASSERT_TRUE(top.ok()) << top.error();
  ASSERT_EQ(top->series.size(), 2u);
  EXPECT_EQ(top->series[0].host, by_p95[0].second);
  EXPECT_EQ(top->series[1].host, by_p95[1].second);
  EXPECT_FALSE(top->series[0].stats) << "statistics only when asked for";

  request.ranking = Ranking{RankStatistic::kMean, 1, false};
  Result<QueryAnswer> bottom = engine.Read(request);
  ASSERT_TRUE(bottom.ok()) << bottom.error();
  ASSERT_EQ(bottom->series.size(), 1u);
  EXPECT_EQ(bottom->series[0].host, "WEB01");  // 10% + s, the least busy CPU 0
}

TEST(AggregationTest, GroupsAreRankedByTheirAggregatesStatistics) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\*\\Processor(*)\\% Processor Time");
  request.aggregation = Aggregation{*ParseGroupBy("host"), {AggregateFunction::kAvg}};
  request.ranking = Ranking{RankStatistic::kMax, 1, true};
  request.statistics = true;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].host, "SQL01");
  ASSERT_TRUE(answer->series[0].stats);
  // SQL01 is 90 - s on both CPUs: its busiest step is the first, second 3: 87%.
  EXPECT_NEAR(answer->series[0].stats->summary.max, 87, 1e-6);
}

TEST(AggregationTest, AComparisonSetsEachSeriesBesideTheSameWindowEarlier) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\WEB01\\Processor(0)\\% Processor Time");
  request.from_ns = kStartNs + 6 * kSecondNs;
  request.compare_ns = 4 * kSecondNs;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  const Series& series = answer->series[0];
  ASSERT_TRUE(series.baseline);
  EXPECT_FALSE(series.stats) << "statistics only when asked for";

  // The independent side: the earlier window read on its own, 2 to 7.
  ReadRequest earlier = FleetRead("\\\\WEB01\\Processor(0)\\% Processor Time");
  earlier.from_ns = kStartNs + 2 * kSecondNs;
  earlier.to_ns = kStartNs + 7 * kSecondNs;
  earlier.statistics = true;
  Result<QueryAnswer> then = engine.Read(earlier);
  ASSERT_TRUE(then.ok()) << then.error();
  const SeriesBaseline& baseline = *series.baseline;
  ASSERT_EQ(baseline.points.size(), then->series[0].points.size());
  for (size_t k = 0; k < baseline.points.size(); ++k) {
    EXPECT_EQ(baseline.points[k].time_ns, then->series[0].points[k].time_ns + 4 * kSecondNs);
    EXPECT_EQ(baseline.points[k].value.value, then->series[0].points[k].value.value);
  }
  EXPECT_DOUBLE_EQ(*baseline.mean, then->series[0].stats->summary.mean);
  // By hand: CPU 0 of WEB01 is 10 + s busy during second s: the intervals ending at 6 to 11
  // average 18.5, those ending at 2 to 7 average 14.5.
  EXPECT_NEAR(*baseline.current_mean, 18.5, 1e-6);
  EXPECT_NEAR(*baseline.mean, 14.5, 1e-6);
  EXPECT_NEAR(*baseline.difference(), 4, 1e-6);
  EXPECT_NEAR(*baseline.ratio(), 18.5 / 14.5, 1e-9);
}

TEST(AggregationTest, AGroupIsComparedByItsStepValues) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\*\\Processor(*)\\% Processor Time");
  request.from_ns = kStartNs + 7 * kSecondNs;
  request.compare_ns = 5 * kSecondNs;
  request.aggregation = Aggregation{*ParseGroupBy("role"), {AggregateFunction::kAvg}};
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  const Series* sql = Find(*answer, "avg", "sql");
  ASSERT_NE(sql, nullptr);
  ASSERT_TRUE(sql->baseline);
  // SQL01 is 90 - s: steps 8 to 11 average 80.5 busy; steps 3 to 6 (the window 2 to 6), 85.5.
  EXPECT_NEAR(*sql->baseline->current_mean, 80.5, 1e-6);
  EXPECT_NEAR(*sql->baseline->mean, 85.5, 1e-6);
  EXPECT_NEAR(*sql->baseline->difference(), -5, 1e-6);
}

TEST(AggregationTest, AComparisonWithNothingEarlierSaysSoAndAnswersTheWindow) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\WEB01\\Processor(0)\\% Processor Time");
  request.compare_ns = 7 * 86400 * kSecondNs;
  Result<QueryAnswer> answer = engine.Read(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_FALSE(answer->series[0].baseline);
  ASSERT_FALSE(answer->warnings.empty());
  // The earlier window's read says why it has nothing: the week before the range.
  EXPECT_THAT(answer->warnings.back(), HasSubstr("WEB01 has no sample from 2026-11-15T10:00:02Z"));
}

TEST(AggregationTest, AggregatesWithoutAStepOrAStartSayWhatToGive) {
  Fleet fleet;
  ReadEngine engine = fleet.Engine();
  ReadRequest request = FleetRead("\\\\*\\Processor(*)\\% Processor Time");
  request.aggregation = Aggregation{GroupBy{}, {AggregateFunction::kAvg}};
  request.step_ns.reset();
  EXPECT_THAT(engine.Read(request).error(), HasSubstr("give a step"));
  request.step_ns = kSecondNs;
  request.from_ns = 0;
  EXPECT_THAT(engine.Read(request).error(), HasSubstr("--since"));
}

TEST(AggregationTest, ParsersNameWhatIsWrong) {
  EXPECT_THAT(ParseAggregateFunctions("avg,p97").status().message(), HasSubstr("\"p97\""));
  EXPECT_THAT(ParseAggregateFunctions("").status().message(), HasSubstr("no aggregate"));
  EXPECT_THAT(*ParseAggregateFunctions("p95,avg,p95"),
              ElementsAre(AggregateFunction::kP95, AggregateFunction::kAvg));
  EXPECT_EQ(ParseGroupBy("label:host")->kind, GroupBy::Kind::kLabel);
  EXPECT_EQ(ParseGroupBy("host")->kind, GroupBy::Kind::kHost);
  EXPECT_THAT(ParseGroupBy("9role").status().message(), HasSubstr("cannot group by"));
  EXPECT_THAT(ParseRankStatistic("median").status().message(), HasSubstr("p50"));
}

}  // namespace
}  // namespace perfhive::query
