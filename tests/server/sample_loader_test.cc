// SampleLoader over a real store: the samples of a range with the title databases in force at
// each, English and the host's display language, so paths may name counters in either.

#include "server/sample_loader.h"

#include <gtest/gtest.h>

#include "perfdata/title_database.h"
#include "query/series_query.h"
#include "tests/store/store_test_util.h"

namespace perfhive::testing {
namespace {

// `names`: (index, name) of one language's database, stored and put in force for web01.
void PutTitles(Store& store, const std::string& language,
               const std::vector<std::pair<uint32_t, std::string>>& names) {
  TitleDatabase titles;
  for (const auto& [index, name] : names) titles.AddName(index, name);
  Result<Sha256Digest> digest = store.PutTitleDatabase(language, titles.EncodeNames(), {});
  ASSERT_TRUE(digest.ok()) << digest.error();
  ASSERT_TRUE(store.SetTitlesInForce("web01", language, *digest, SampleNs(0)).ok());
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
  Result<query::HostSamples> samples = loader.LoadRange("web01", 0, INT64_MAX);
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
  Result<query::HostSamples> samples = loader.LoadLatest("web01");
  ASSERT_TRUE(samples.ok()) << samples.error();
  Result<query::QueryAnswer> answer =
      query::RunQuery(*samples, Paths("\\Prozess(proc1)\\Prozessorzeit (%)"));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->series.size(), 1u);
  EXPECT_EQ(answer->series[0].points[0].value.value, 4010.0);
}

}  // namespace
}  // namespace perfhive::testing
