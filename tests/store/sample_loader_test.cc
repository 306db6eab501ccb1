// SampleLoader over a real store: the samples of a range with the title databases in force at
// each, English and the host's display language, so paths may name counters in either.

#include "store/sample_loader.h"

#include <gtest/gtest.h>

#include "perfdata/path_expander.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/well_known_indexes.h"
#include "query/series_query.h"
#include "tests/store/store_test_util.h"

namespace perfhive::testing {
namespace {

// `names`: (index, name) of one language's database, stored and put in force for web01.
void PutTitles(Store& store, const std::string& language,
               const std::vector<std::pair<uint32_t, std::string>>& names) {
  TitleDatabase titles;
  for (const auto& [index, name] : names) titles.AddName(index, name);
  Result<Sha256Digest> digest =
      store.catalog().PutTitleDatabase(language, titles.EncodeNames(), {});
  ASSERT_TRUE(digest.ok()) << digest.error();
  ASSERT_TRUE(store.catalog().SetTitlesInForce("web01", language, *digest, SampleNs(0)).ok());
}

std::vector<CounterPath> Paths(const char* text) { return {ParseCounterPath(text).value()}; }

TEST(SampleLoaderTest, PathsMayNameCountersInTheHostsDisplayLanguage) {
  TempDir dir;
  std::unique_ptr<Store> store = std::move(Store::Open(dir.path()).value());
  for (int s = 0; s < 3; ++s) {
    ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", s + 1, SmallSnapshot(s, s))).ok());
  }
  // As a German Windows names them (its lodctr dump, ../shared/fixtures/title-databases).
  PutTitles(*store, "009", {{230, "Process"}, {6, "% Processor Time"}});
  PutTitles(*store, "CurrentLanguage", {{230, "Prozess"}, {6, "Prozessorzeit (%)"}});

  SampleLoader loader(*store);
  Result<query::HostSamples> samples = loader.LoadRange("web01", 0, INT64_MAX, nullptr);
  ASSERT_TRUE(samples.ok()) << samples.error();
  ASSERT_EQ(samples->samples.size(), 3u);
  for (const char* path :
       {"\\Process(proc3)\\% Processor Time", "\\Prozess(proc3)\\Prozessorzeit (%)",
        "\\Process(proc3)\\Prozessorzeit (%)"}) {
    Result<query::QueryAnswer> answer = query::RunQuery(*samples, Paths(path));
    ASSERT_TRUE(answer.ok()) << answer.error();
    ASSERT_EQ(answer->series.size(), 1u) << path;
    const query::Series& series = answer->series[0];
    // Shown in English whatever the path's language.
    EXPECT_EQ(series.path(), "\\\\web01\\Process(proc3)\\% Processor Time") << path;
    // SmallSnapshot's value: seed · 1000 + process · 10 + counter position.
    ASSERT_EQ(series.points.size(), 3u);
    EXPECT_EQ(series.points[2].value.value, 2030.0) << path;
  }
}

TEST(SampleLoaderTest, AHostWithOnlyItsDisplayLanguageIsNamedByIt) {
  TempDir dir;
  std::unique_ptr<Store> store = std::move(Store::Open(dir.path()).value());
  ASSERT_TRUE(store->Append(MakeAppend("web01", "boot-1", 1, SmallSnapshot(0, 4))).ok());
  PutTitles(*store, "CurrentLanguage", {{230, "Prozess"}, {6, "Prozessorzeit (%)"}});

  SampleLoader loader(*store);
  Result<query::HostSamples> samples = loader.LoadLatest("web01", nullptr);
  ASSERT_TRUE(samples.ok()) << samples.error();
  Result<query::QueryAnswer> answer =
      query::RunQuery(*samples, Paths("\\Prozess(proc1)\\Prozessorzeit (%)"));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].points[0].value.value, 4010.0);
}

// Two processors and 200 processes, at `second`.
std::vector<uint8_t> ProcessorsAndProcesses(int second) {
  namespace ti = title_index;
  SnapshotBuilder builder;
  int64_t ticks = int64_t{10'000'000} * (100 + second);
  builder.set_system_name("web01")
      .set_system_time({2025, 3, 6, 1, 10, 0, static_cast<uint16_t>(second), 0})
      .set_perf_freq(10'000'000)
      .set_perf_time(ticks)
      .set_perf_time_100ns(ticks);
  ObjectBuilder& cpu = builder.AddObject(ti::kProcessor);
  cpu.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
  for (int n = 0; n < 2; ++n) {
    // Idle for a quarter (CPU 0) and a half (CPU 1) of every second.
    cpu.SetValue(cpu.AddInstance(std::to_string(n)), 0,
                 static_cast<uint64_t>(second) * 2'500'000 * (n + 1));
  }
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  process.AddCounter({.name_index = ti::kIdProcess, .type = winperf::kCounterRawcount});
  for (int p = 0; p < 200; ++p) {
    process.SetValue(process.AddInstance("proc" + std::to_string(p)), 0, 100 + p);
  }
  return builder.Build();
}

TEST(SampleLoaderTest, ReadingOnlyThePathsObjectsGivesTheSameAnswerFromLessBytes) {
  TempDir dir;
  std::unique_ptr<Store> store = std::move(Store::Open(dir.path()).value());
  for (int s = 0; s < 4; ++s) {
    ASSERT_TRUE(
        store->Append(MakeAppend("web01", "boot-1", s + 1, ProcessorsAndProcesses(s))).ok());
  }
  PutTitles(*store, "009",
            {{title_index::kProcessor, "Processor"},
             {title_index::kProcess, "Process"},
             {title_index::kPercentProcessorTime, "% Processor Time"}});
  SampleLoader loader(*store);
  std::vector<CounterPath> paths = Paths(R"(\Processor(*)\% Processor Time)");
  ObjectNameFilter objects(paths);
  Result<query::HostSamples> whole = loader.LoadRange("web01", 0, INT64_MAX, nullptr);
  Result<query::HostSamples> part = loader.LoadRange("web01", 0, INT64_MAX, &objects);
  ASSERT_TRUE(whole.ok() && part.ok());
  ASSERT_EQ(part->samples.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_LT(part->samples[i].bytes->size() * 4, whole->samples[i].bytes->size());
  }
  Result<query::QueryAnswer> from_whole = query::RunQuery(*whole, paths);
  Result<query::QueryAnswer> from_part = query::RunQuery(*part, paths);
  ASSERT_TRUE(from_whole.ok() && from_part.ok());
  ASSERT_EQ(from_part->series.size(), 2u);
  for (size_t s = 0; s < 2; ++s) {
    EXPECT_EQ(from_part->series[s].path(), from_whole->series[s].path());
    // The first sample has no interval before it; then busy for three quarters (CPU 0) and a
    // half (CPU 1) of each second.
    ASSERT_EQ(from_part->series[s].points.size(), 4u);
    EXPECT_NE(from_part->series[s].points[0].value.status, PdhStatus::kValidData);
    for (size_t k = 0; k < 4; ++k) {
      const query::Point& point = from_part->series[s].points[k];
      EXPECT_EQ(point.value.status, from_whole->series[s].points[k].value.status);
      EXPECT_EQ(point.time_ns, from_whole->series[s].points[k].time_ns);
      if (k > 0) {
        EXPECT_DOUBLE_EQ(point.value.value, s == 0 ? 75.0 : 50.0);
      }
    }
  }
}

}  // namespace
}  // namespace perfhive::testing
