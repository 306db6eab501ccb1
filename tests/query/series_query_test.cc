// RunQuery on builder-made hosts: selection, values, identity over time, resampling,
// statistics and the answer-size limit, each against numbers worked out by hand below.

#include "query/series_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perfdata/pdh_status.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<CounterPath> Paths(std::initializer_list<const char*> texts) {
  std::vector<CounterPath> paths;
  for (const char* text : texts) {
    Result<CounterPath> path = ParseCounterPath(text);
    EXPECT_TRUE(path.ok()) << path.error();
    paths.push_back(*path);
  }
  return paths;
}

// Processors 0 and 1 over five seconds. CPU 0's idle time grows by 9, 5, 10 and 8 million
// 100 ns units a second (busy 10%, 50%, 0%, 20%); CPU 1 is idle throughout. Interrupts of
// CPU 0 grow by 100 a second.
HostSamples ProcessorHost() {
  const uint64_t idle0[] = {0, 9'000'000, 14'000'000, 24'000'000, 32'000'000};
  HostSamples host{"web01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < 5; ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcessors(builder, {idle0[s], static_cast<uint64_t>(s) * 10'000'000},
                  {static_cast<uint64_t>(s) * 100, 0});
    host.samples.push_back(SampleOf(builder, s, english));
  }
  return host;
}

// The points' values to 1e-9 (the formulas' doubles are off in the last bits), −1 where the
// status is not valid.
std::vector<double> Values(const Series& series) {
  std::vector<double> values;
  for (const Point& point : series.points) {
    values.push_back(IsSuccess(point.value.status) ? std::round(point.value.value * 1e9) / 1e9
                                                   : -1);
  }
  return values;
}

TEST(SeriesQueryTest, ValuesAreTheCalculatorsAtTheLaterSamplesTimes) {
  Result<QueryAnswer> answer =
      RunQuery(ProcessorHost(), Paths({"\\Processor(*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 2u);
  const Series& cpu0 = answer->series[0];
  EXPECT_EQ(cpu0.path(), "\\\\web01\\Processor(0)\\% Processor Time");
  EXPECT_EQ(cpu0.instance, "0");
  EXPECT_EQ(cpu0.object, "Processor");
  EXPECT_EQ(cpu0.counter, "% Processor Time");
  ASSERT_EQ(cpu0.points.size(), 5u);
  EXPECT_EQ(cpu0.points[0].value.status, PdhStatus::kInvalidData);  // no older sample
  EXPECT_THAT(Values(cpu0), ElementsAre(-1, 10, 50, 0, 20));
  EXPECT_EQ(cpu0.points[3].time_ns, kStartNs + 3 * kSecondNs);
  EXPECT_THAT(Values(answer->series[1]), ElementsAre(-1, 0, 0, 0, 0));
  EXPECT_EQ(cpu0.raw[2].raw.value, 14'000'000u);
}

TEST(SeriesQueryTest, MachinePatternIsMatchedAgainstTheHostName) {
  EXPECT_EQ(
      RunQuery(ProcessorHost(), Paths({"\\\\db*\\Processor(*)\\% Processor Time"}))->series.size(),
      0u);
  Result<QueryAnswer> answer =
      RunQuery(ProcessorHost(), Paths({"\\\\WEB*\\Processor(1)\\% Processor Time"}));
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].host, "web01");
  EXPECT_EQ(answer->series[0].path(), "\\\\web01\\Processor(1)\\% Processor Time");
}

TEST(SeriesQueryTest, LocalizedNamesSelectTheSameCounters) {
  HostSamples host = ProcessorHost();
  auto german = std::make_shared<TitleDatabase>();
  german->AddName(title_index::kProcessor, "Prozessor");
  german->AddName(title_index::kPercentProcessorTime, "Prozessorzeit (%)");
  for (HostSample& sample : host.samples) sample.localized = german;
  Result<QueryAnswer> answer = RunQuery(host, Paths({"\\Prozessor(0)\\Prozessorzeit (%)"}));
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].path(), "\\\\web01\\Processor(0)\\% Processor Time");
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 10, 50, 0, 20));
}

TEST(SeriesQueryTest, ResamplingIsExactFromTheRawValuesAtTheStepsEnds) {
  QueryOptions options;
  options.step_ns = 2 * kSecondNs;
  Result<QueryAnswer> answer = RunQuery(ProcessorHost(), Paths({"\\Processor(0)\\*"}), options);
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 2u);
  // Boundaries at 0, 2 and 4 s. From sample 0 to 2: 14M idle in 20M → 30% busy (the average
  // of 10% and 50%); from 2 to 4: 18M idle in 20M → 10%.
  const Series& cpu = answer->series[0];
  EXPECT_THAT(Values(cpu), ElementsAre(30, 10));
  EXPECT_EQ(cpu.points[0].time_ns, kStartNs + 2 * kSecondNs);
  EXPECT_EQ(cpu.points[1].time_ns, kStartNs + 4 * kSecondNs);
  // 200 interrupts in 2 s.
  EXPECT_THAT(Values(answer->series[1]), ElementsAre(100, 100));
}

TEST(SeriesQueryTest, ResamplingTakesTheLastSampleAtOrBeforeEachBoundary) {
  QueryOptions options;
  options.step_ns = 3 * kSecondNs;
  options.first_boundary_ns = kStartNs - kSecondNs / 2;  // boundaries at −0.5, 2.5, 5.5 s
  Result<QueryAnswer> answer =
      RunQuery(ProcessorHost(), Paths({"\\Processor(0)\\% Processor Time"}), options);
  ASSERT_TRUE(answer.ok()) << answer.error();
  // −0.5 s has no sample: no point at 2.5. At 5.5 the last is sample 4, at 2.5 sample 2:
  // 18M idle in 20M → 10%.
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(10));
  EXPECT_EQ(answer->series[0].points[0].time_ns, kStartNs + 5 * kSecondNs + kSecondNs / 2);
}

TEST(SeriesQueryTest, StatisticsAndPercentiles) {
  QueryOptions options;
  options.statistics = true;
  Result<QueryAnswer> answer =
      RunQuery(ProcessorHost(), Paths({"\\Processor(0)\\% Processor Time"}), options);
  ASSERT_TRUE(answer->series[0].stats.has_value());
  const SeriesStatistics& stats = *answer->series[0].stats;
  EXPECT_EQ(stats.summary.count, 4u);
  EXPECT_DOUBLE_EQ(stats.summary.min, 0);
  EXPECT_DOUBLE_EQ(stats.summary.max, 50);
  // Whole run: 32M idle in 40M → 20% (the mean of the four values is 20 too, by chance not).
  EXPECT_DOUBLE_EQ(stats.summary.mean, 20);
  // Sorted 0, 10, 20, 50: ranks ceil(2) = 2, ceil(3.6) = 4, ceil(3.8) = 4, ceil(3.96) = 4.
  EXPECT_DOUBLE_EQ(stats.p50, 10);
  EXPECT_DOUBLE_EQ(stats.p90, 50);
  EXPECT_DOUBLE_EQ(stats.p95, 50);
  EXPECT_DOUBLE_EQ(stats.p99, 50);
}

TEST(SeriesQueryTest, TheSizeLimitSaysHowToNarrowTheQuery) {
  QueryOptions options;
  options.max_points = 6;
  Result<QueryAnswer> answer =
      RunQuery(ProcessorHost(), Paths({"\\Processor(*)\\% Processor Time"}), options);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(answer.error(), HasSubstr("more than 6 points"));
  EXPECT_THAT(answer.error(), HasSubstr("narrow the query"));
  options.step_ns = 2 * kSecondNs;  // 2 series × 2 points fit
  EXPECT_TRUE(RunQuery(ProcessorHost(), Paths({"\\Processor(*)\\% Processor Time"}), options).ok());
}

// A one-host read skips the walk that counts its points when this bound is under the limit: it
// must never be below what the walk counts.
TEST(SeriesQueryTest, PointsAtMostBoundsTheEstimateWithoutAWalk) {
  const HostSamples host = ProcessorHost();
  const std::vector<ProbeSample> probes = {{host.samples.back(), 4}};
  for (const char* path : {"\\Processor(*)\\*", "\\*(*)\\*", "\\Processor(1)\\% User Time"}) {
    const size_t walked = EstimatePoints(host.host, probes, Paths({path}), {});
    EXPECT_GE(PointsAtMost(probes), walked) << path;
  }
  const size_t everything = EstimatePoints(host.host, probes, Paths({"\\*(*)\\*"}), {});
  EXPECT_GT(everything, 0u);
  const std::vector<ProbeSample> one_sample = {{host.samples.back(), 1}};
  EXPECT_EQ(PointsAtMost(probes), 4 * PointsAtMost(one_sample));
  HostSamples broken = host;
  broken.samples.back().bytes = std::make_shared<const std::vector<uint8_t>>(10, 0);
  EXPECT_EQ(PointsAtMost(std::vector<ProbeSample>{{broken.samples.back(), 4}}), SIZE_MAX);
}

TEST(SeriesQueryTest, MalformedSampleIsAWarningAndBreaksThePairing) {
  HostSamples host = ProcessorHost();
  host.samples[2].bytes = std::make_shared<const std::vector<uint8_t>>(10, 0);
  Result<QueryAnswer> answer = RunQuery(host, Paths({"\\Processor(0)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok());
  ASSERT_EQ(answer->warnings.size(), 1u);
  EXPECT_THAT(answer->warnings[0], HasSubstr("web01 at 2026-11-22T10:00:02Z: sample skipped"));
  // Sample 3 is computed against sample 1, the same instance's last sample: 15M idle in 20M.
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 10, 25, 20));
}

// java pid 100 and java pid 200 run; pid 100 exits after sample 1, so pid 200 becomes plain
// "java"; at sample 3 a new java, pid 300, starts; at sample 4 pid 300 is gone and a new
// process reuses PID 300 (another start, a second later).
constexpr uint64_t kReusedStart = 3 + kTicksPerSecond;
HostSamples JavaHost() {
  const std::vector<std::vector<TestProcess>> samples = {
      {{"java", 100, 1, 0}, {"java", 200, 2, 0}},
      {{"java", 100, 1, 2'500'000}, {"java", 200, 2, 5'000'000}},
      {{"java", 200, 2, 10'000'000}},
      {{"java", 200, 2, 12'000'000}, {"java", 300, 3, 1'000'000}},
      {{"java", 200, 2, 13'000'000}, {"java", 300, kReusedStart, 9'000'000}},
  };
  HostSamples host{"app01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < static_cast<int>(samples.size()); ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcesses(builder, s, samples[s]);
    host.samples.push_back(SampleOf(builder, s, english));
  }
  return host;
}

const Series* WithPidAndStart(const QueryAnswer& answer, uint64_t pid, uint64_t start) {
  for (const Series& series : answer.series) {
    if (series.identity.pid == pid && series.identity.start == start) return &series;
  }
  return nullptr;
}

TEST(SeriesQueryTest, SeriesFollowProcessesNotPositions) {
  Result<QueryAnswer> answer = RunQuery(JavaHost(), Paths({"\\Process(java*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 4u);
  const Series* first = WithPidAndStart(*answer, 100, 1);
  const Series* second = WithPidAndStart(*answer, 200, 2);
  const Series* third = WithPidAndStart(*answer, 300, 3);
  const Series* reused = WithPidAndStart(*answer, 300, kReusedStart);
  ASSERT_TRUE(first && second && third && reused);
  // pid 100: 2.5M in 1 s = 25%, and nothing after it exits.
  EXPECT_THAT(Values(*first), ElementsAre(-1, 25));
  EXPECT_EQ(first->path(), "\\\\app01\\Process(java)\\% Processor Time");
  // pid 200 keeps its history through the rename: 50%, 50% (not 75%, pid 100's 2.5M to pid
  // 200's 10M, which pairing by position would give), 20%, 10%.
  EXPECT_THAT(Values(*second), ElementsAre(-1, 50, 50, 20, 10));
  EXPECT_THAT(second->paths, ElementsAre("\\\\app01\\Process(java#1)\\% Processor Time",
                                         "\\\\app01\\Process(java)\\% Processor Time"));
  EXPECT_EQ(second->points[1].path, 0u);
  EXPECT_EQ(second->points[2].path, 1u);
  ASSERT_EQ(second->path_instances.size(), 2u);
  EXPECT_EQ(second->path_instances[0].ToString(), "java#1");
  EXPECT_EQ(second->path_instances[1].ToString(), "java");
  EXPECT_EQ(second->instance, "java");
  // The new process has no older sample; neither has the one reusing its PID.
  EXPECT_THAT(Values(*third), ElementsAre(-1));
  EXPECT_THAT(Values(*reused), ElementsAre(-1));
  EXPECT_EQ(reused->path(), "\\\\app01\\Process(java#1)\\% Processor Time");
}

// Regression: the Linux source's _Total "starts" with its oldest process, so its Elapsed Time
// moves when that process exits; _Total and Idle (PID 0) must stay one series each, not split
// into interleaved series whenever the start moves.
TEST(SeriesQueryTest, TotalAndIdleKeepOneSeriesWhileTheirStartMoves) {
  const std::vector<std::vector<TestProcess>> samples = {
      {{"Idle", 0, 0, 0}, {"_Total", 0, 5, 0}},
      {{"Idle", 0, 0, 4'000'000}, {"_Total", 0, 7, 3'000'000}},
      {{"Idle", 0, 0, 9'000'000}, {"_Total", 0, 5, 4'000'000}},
  };
  HostSamples host{"app01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < static_cast<int>(samples.size()); ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcesses(builder, s, samples[s]);
    host.samples.push_back(SampleOf(builder, s, english));
  }
  Result<QueryAnswer> answer = RunQuery(host, Paths({"\\Process(*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 2u);
  EXPECT_EQ(answer->series[0].instance, "Idle");
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 40, 50));
  EXPECT_EQ(answer->series[1].instance, "_Total");
  EXPECT_THAT(Values(answer->series[1]), ElementsAre(-1, 30, 10));
}

// "java" (PID 100) in samples a second apart with the starts given, busy 10% throughout. The
// Process object's times count `perf_freq` units a second (FILETIMEs on Windows: 10 MHz).
HostSamples JavaStartingAt(const std::vector<uint64_t>& starts,
                           int64_t perf_freq = kTicksPerSecond) {
  HostSamples host{"app01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < static_cast<int>(starts.size()); ++s) {
    SnapshotBuilder builder = HostAt(s);
    ObjectBuilder& object = builder.AddObject(title_index::kProcess);
    object.set_perf_time((1000 + s) * perf_freq).set_perf_freq(perf_freq);
    uint32_t cpu = object.AddCounter({title_index::kPercentProcessorTime, winperf::k100NsecTimer});
    uint32_t elapsed = object.AddCounter({title_index::kElapsedTime, winperf::kElapsedTime});
    uint32_t pid = object.AddCounter({title_index::kIdProcess, winperf::kCounterRawcount});
    uint32_t java = object.AddInstance("java");
    object.SetValue(java, cpu, static_cast<uint64_t>(s) * 1'000'000);
    object.SetValue(java, elapsed, starts[s]);
    object.SetValue(java, pid, 100);
    host.samples.push_back(SampleOf(builder, s, english));
  }
  return host;
}

// Regression (issue 20, case 4): the Linux source measured its boot time from two clocks, and
// in one sample every process's start came one unit early. Still the same process: one series,
// every point after the first valid, known by the start seen first.
TEST(SeriesQueryTest, AStartOneUnitOffIsTheSameProcess) {
  const uint64_t start = 990 * kTicksPerSecond;
  Result<QueryAnswer> answer = RunQuery(JavaStartingAt({start, start, start - 1, start, start + 1}),
                                        Paths({"\\Process(*)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 10, 10, 10, 10));
  EXPECT_EQ(answer->series[0].identity.start, start);
}

// Starts apart by up to one Linux clock tick (10 ms, the coarsest resolution a source writes
// them in) are one process; further apart, the PID was reused. The tick is counted in the
// Process object's own units (its PerfFreq a second).
TEST(SeriesQueryTest, StartsWithinATickOfTheObjectsTimeBaseAreOneProcess) {
  struct Case {
    int64_t perf_freq;
    uint64_t apart;
    size_t series;
  };
  const Case cases[] = {{kTicksPerSecond, 100'000, 1},
                        {kTicksPerSecond, 100'001, 2},
                        {kTicksPerSecond, kTicksPerSecond, 2},
                        {1000, 10, 1},
                        {1000, 11, 2}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.apart) + " apart at " + std::to_string(c.perf_freq) + " Hz");
    const uint64_t start = 990 * static_cast<uint64_t>(c.perf_freq);
    Result<QueryAnswer> answer =
        RunQuery(JavaStartingAt({start, start, start + c.apart, start + c.apart}, c.perf_freq),
                 Paths({"\\Process(*)\\% Processor Time"}));
    ASSERT_TRUE(answer.ok()) << answer.error();
    ASSERT_EQ(answer->series.size(), c.series);
    if (c.series == 1) {
      EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 10, 10, 10));
    } else {
      // The new process has no older sample of its own.
      EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 10));
      EXPECT_THAT(Values(answer->series[1]), ElementsAre(-1, 10));
      EXPECT_EQ(answer->series[1].identity.start, start + c.apart);
    }
  }
}

TEST(SeriesQueryTest, AnInstanceSelectedLateIsComputedAgainstItsOwnPreviousSample) {
  // "java" without a wildcard is the first java: pid 100, then pid 200 from sample 2.
  Result<QueryAnswer> answer = RunQuery(JavaHost(), Paths({"\\Process(java)\\% Processor Time"}));
  ASSERT_EQ(answer->series.size(), 2u);
  EXPECT_EQ(answer->series[0].identity.pid, 100u);
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 25));
  EXPECT_EQ(answer->series[1].identity.pid, 200u);
  // Sample 2 against pid 200's sample 1 (then java#1): 5M in 1 s.
  EXPECT_THAT(Values(answer->series[1]), ElementsAre(50, 20, 10));
  EXPECT_FALSE(answer->series[1].raw[0].selected);
}

// Without raw output a series keeps only the raw samples its next point needs; the points are
// the same, gaps, renames and late selections included.
TEST(SeriesQueryTest, SeriesThatKeepNoRawSamplesHaveTheSamePoints) {
  struct Case {
    HostSamples host;
    const char* path;
  };
  HostSamples broken = ProcessorHost();
  broken.samples[2].bytes = std::make_shared<const std::vector<uint8_t>>(10, 0);
  const Case cases[] = {{ProcessorHost(), R"(\Processor(*)\% Processor Time)"},
                        {broken, R"(\Processor(0)\% Processor Time)"},
                        {JavaHost(), R"(\Process(java*)\% Processor Time)"},
                        {JavaHost(), R"(\Process(java)\% Processor Time)"}};
  for (const Case& c : cases) {
    QueryOptions lean;
    lean.keep_raw = false;
    Result<QueryAnswer> kept = RunQuery(c.host, Paths({c.path}));
    Result<QueryAnswer> dropped = RunQuery(c.host, Paths({c.path}), lean);
    ASSERT_TRUE(kept.ok() && dropped.ok());
    ASSERT_EQ(dropped->series.size(), kept->series.size()) << c.path;
    for (size_t i = 0; i < kept->series.size(); ++i) {
      const Series& a = kept->series[i];
      const Series& b = dropped->series[i];
      EXPECT_THAT(Values(b), ::testing::ElementsAreArray(Values(a))) << c.path;
      ASSERT_EQ(b.points.size(), a.points.size());
      for (size_t k = 0; k < a.points.size(); ++k) {
        EXPECT_EQ(b.points[k].time_ns, a.points[k].time_ns);
        EXPECT_EQ(b.points[k].value.status, a.points[k].value.status);
        EXPECT_EQ(b.points[k].path, a.points[k].path);
      }
      EXPECT_LE(b.raw.size(), 2u) << c.path;
    }
  }
}

TEST(SeriesQueryTest, EveryHostAddsToOneAnswerAndTheLimitCountsThemAll) {
  QueryAnswer answer;
  std::vector<CounterPath> paths = Paths({"\\*(*)\\% Processor Time"});
  ASSERT_TRUE(AddHostSeries(ProcessorHost(), paths, {}, answer).ok());
  ASSERT_TRUE(AddHostSeries(JavaHost(), paths, {}, answer).ok());
  EXPECT_EQ(answer.series.size(), 6u);
  EXPECT_EQ(answer.num_points(), 10u + 9u);
  QueryOptions options;
  options.max_points = 20;
  EXPECT_EQ(AddHostSeries(ProcessorHost(), paths, options, answer).code(),
            StatusCode::kResourceExhausted);
}

TEST(SeriesQueryTest, AnswersComputedApartJoinInOrderAndTheLimitCountsThemAll) {
  std::vector<CounterPath> paths = Paths({"\\*(*)\\% Processor Time"});
  QueryAnswer processor, java, answer;
  ASSERT_TRUE(AddHostSeries(ProcessorHost(), paths, {}, processor).ok());
  ASSERT_TRUE(AddHostSeries(JavaHost(), paths, {}, java).ok());
  ASSERT_TRUE(AppendAnswer(std::move(processor), {}, answer).ok());
  ASSERT_TRUE(AppendAnswer(std::move(java), {}, answer).ok());
  EXPECT_EQ(answer.series.size(), 6u);
  EXPECT_EQ(answer.num_points(), 10u + 9u);
  EXPECT_EQ(answer.series.front().host, "web01");
  EXPECT_EQ(answer.series.back().host, "app01");

  QueryAnswer again;
  ASSERT_TRUE(AddHostSeries(ProcessorHost(), paths, {}, again).ok());
  QueryOptions options;
  options.max_points = 20;
  Status status = AppendAnswer(std::move(again), options, answer);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("narrow the query"));
}

TEST(SeriesQueryTest, AnInstanceThatAppearsWithoutMovingAByteIsSelected) {
  // PID 7 is "jawa", then "java": the same length, so every offset stays.
  HostSamples host{"web01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < 3; ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcesses(builder, s, {{s < 2 ? "jawa" : "java", 7, 1, 1000}});
    host.samples.push_back(SampleOf(builder, s, english));
  }
  Result<QueryAnswer> answer = RunQuery(host, Paths({"\\Process(java)\\ID Process"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].points.size(), 1u);
  EXPECT_EQ(answer->series[0].points[0].time_ns, kStartNs + 2 * kSecondNs);
  EXPECT_EQ(answer->series[0].points[0].value.value, 7.0);
}

TEST(SeriesQueryTest, ANonPositiveStepIsRejected) {
  QueryOptions options;
  options.step_ns = 0;
  EXPECT_EQ(RunQuery(ProcessorHost(), Paths({"\\Processor(*)\\*"}), options).status().code(),
            StatusCode::kInvalidArgument);
}

// A host whose agent takes Global and Costly each second, the Costly sample 3 ms after the
// Global one (as the agent's schedules do when their ticks coincide): Process is in both.
// Its % Processor Time advanced one scheduler tick (15.625 ms) between the two, which over
// 3 ms reads 520%: the console's process view showed such values until each query's samples
// were computed apart.
TEST(SeriesQueryTest, GlobalAndCostlyTakenMillisecondsApartAreNotComputedAcrossTheGap) {
  constexpr uint64_t kThreeMs = 30'000;   // 100 ns units
  constexpr uint64_t kOneTick = 156'250;  // 15.625 ms
  constexpr uint64_t kHalfSecond = 5'000'000;
  HostSamples host{"web01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < 4; ++s) {
    uint64_t cpu = static_cast<uint64_t>(s) * kHalfSecond;  // 50% busy
    SnapshotBuilder global = HostAt(s);
    AddProcessors(global, {static_cast<uint64_t>(s) * kHalfSecond, 0}, {0, 0});
    AddProcesses(global, s, {{"app", 1000, 1, cpu}});
    host.samples.push_back(SampleOf(global, s, english));
    host.samples.back().query = "Global";
    SnapshotBuilder costly = HostAt(s);
    const int64_t ticks = (1000 + s) * kTicksPerSecond + static_cast<int64_t>(kThreeMs);
    costly.set_perf_time(ticks).set_perf_time_100ns(ticks);
    AddProcesses(costly, s, {{"app", 1000, 1, cpu + kOneTick}});
    host.samples.push_back(SampleOf(costly, s, english));
    host.samples.back().time_ns += 3'000'000;
    host.samples.back().query = "Costly";
  }
  Result<QueryAnswer> answer = RunQuery(host, Paths({"\\\\*\\Process(app)\\% Processor Time"}));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  // Global's and Costly's series have four points each; on the tie the newer one (Costly's)
  // is kept, each point over a whole second of its own query.
  EXPECT_THAT(Values(answer->series[0]), ElementsAre(-1, 50, 50, 50));
  for (const Point& point : answer->series[0].points) {
    EXPECT_EQ((point.time_ns - kStartNs) % kSecondNs, 3'000'000);
  }
}

// A latest read (watch, the console's process view) of a host that took Global every second
// and Costly only in its last second: Global's series has more points, but the newest value is
// Costly's. The console listed only the processes whose last point was the newest sample's, so
// a process followed through Global's series went missing from its process view.
TEST(SeriesQueryTest, ALatestReadKeepsTheSeriesWithTheNewestPoint) {
  HostSamples host{"web01", {}};
  auto english = EnglishTitles();
  for (int s = 0; s < 3; ++s) {
    SnapshotBuilder global = HostAt(s);
    AddProcesses(global, s, {{"app", 1000, 1, static_cast<uint64_t>(s) * 5'000'000}});
    host.samples.push_back(SampleOf(global, s, english));
    host.samples.back().query = "Global";
  }
  for (int s = 1; s < 3; ++s) {
    SnapshotBuilder costly = HostAt(s);
    const int64_t ticks = (1000 + s) * kTicksPerSecond + 30'000;
    costly.set_perf_time(ticks).set_perf_time_100ns(ticks);
    AddProcesses(costly, s, {{"app", 1000, 1, static_cast<uint64_t>(s) * 2'500'000}});
    host.samples.push_back(SampleOf(costly, s, english));
    host.samples.back().time_ns += 3'000'000;
    host.samples.back().query = "Costly";
  }
  std::sort(host.samples.begin(), host.samples.end(),
            [](const HostSample& a, const HostSample& b) { return a.time_ns < b.time_ns; });
  const auto paths = Paths({"\\Process(app)\\% Processor Time"});
  QueryOptions over_time;
  Result<QueryAnswer> range = RunQuery(host, paths, over_time);
  ASSERT_TRUE(range.ok()) << range.error();
  ASSERT_EQ(range->series.size(), 1u);
  EXPECT_THAT(Values(range->series[0]), ElementsAre(-1, 50, 50));  // Global's three
  QueryOptions latest;
  latest.newest_series = true;
  Result<QueryAnswer> newest = RunQuery(host, paths, latest);
  ASSERT_TRUE(newest.ok()) << newest.error();
  ASSERT_EQ(newest->series.size(), 1u);
  EXPECT_THAT(Values(newest->series[0]), ElementsAre(-1, 25));  // Costly's two
  EXPECT_EQ(newest->series[0].points.back().time_ns, kStartNs + 2 * kSecondNs + 3'000'000);
}

}  // namespace
}  // namespace perfhive::query
