// Issue 20, case 8 ("a typo reads as an empty time range"): why a path selected nothing on a
// host, said per host and path: an unknown object or counter, an instance part that matches no
// instance, each with the close names the host has, in English or the host's language as the
// path was written; an object without instances; a range without samples. On builder-made hosts,
// a real capture and a real German title database; the expected texts are written out by hand.

#include "query/empty_answers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/lodctr_dump.h"
#include "perfdata/title_database_file.h"
#include "query/series_query.h"
#include "tests/query/query_test_hosts.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::ElementsAre;

// Processors "0" and "1", and processes sqlservr, svchost and svchost#1, over three seconds.
HostSamples WebHost(std::shared_ptr<const TitleDatabase> english = EnglishTitles(),
                    std::shared_ptr<const TitleDatabase> localized = nullptr) {
  HostSamples host{"web01", {}};
  for (int s = 0; s < 3; ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcessors(builder, {0, 0}, {0, 0});
    AddProcesses(builder, s,
                 {{"sqlservr", 100, 1, 0}, {"svchost", 200, 2, 0}, {"svchost", 300, 3, 0}});
    host.samples.push_back(SampleOf(builder, s, english, localized));
  }
  return host;
}

// The explanation of `text` on `host`, its samples whole; counts how often `whole` is asked for.
std::string Explain(const HostSamples& host, const std::string& text, int* whole_asked = nullptr) {
  Result<CounterPath> path = ParseCounterPath(text);
  EXPECT_TRUE(path.ok()) << path.error();
  return ExplainNothingSelected(host.host, host.samples, *path, text, [&]() {
    if (whole_asked != nullptr) ++*whole_asked;
    return &host.samples.back();
  });
}

TEST(EmptyAnswersTest, AnUnknownObjectIsNamedWithTheHostsCloseObjectsBestFirst) {
  HostSamples host = WebHost();
  int asked = 0;
  EXPECT_EQ(Explain(host, "\\\\web01\\Procesor(*)\\% Processor Time", &asked),
            "\\\\web01\\Procesor(*)\\% Processor Time: no object \"Procesor\" on web01; did you "
            "mean \"Processor\" or \"Process\"?");
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(Explain(host, "\\Network Interface(*)\\Bytes Total/sec"),
            "\\Network Interface(*)\\Bytes Total/sec: no object \"Network Interface\" on web01; "
            "`perfhive objects \\\\web01` lists them");
}

TEST(EmptyAnswersTest, ObjectNamesComeFromAWholeSampleWhenTheQueryReadOnlyPartOfThem) {
  // What a partial restore of "\Proces(*)\ID Process" reads: no object of that name, so nothing
  // of these samples; the names come from the whole sample.
  HostSamples read{"web01", {}};
  for (int s = 0; s < 2; ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcessors(builder, {0, 0}, {0, 0});
    read.samples.push_back(SampleOf(builder, s, EnglishTitles()));
  }
  HostSamples whole = WebHost();
  Result<CounterPath> path = ParseCounterPath("\\Proces(*)\\ID Process");
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(ExplainNothingSelected("web01", read.samples, *path, "\\Proces(*)\\ID Process",
                                   [&] { return &whole.samples.back(); }),
            "\\Proces(*)\\ID Process: no object \"Proces\" on web01; did you mean \"Process\" or "
            "\"Processor\"?");
  // Without a whole sample: no suggestion, and where to look.
  EXPECT_EQ(ExplainNothingSelected("web01", read.samples, *path, "\\Proces(*)\\ID Process",
                                   [] { return nullptr; }),
            "\\Proces(*)\\ID Process: no object \"Proces\" on web01; `perfhive objects \\\\web01` "
            "lists them");
}

TEST(EmptyAnswersTest, AnUnknownCounterIsNamedWithTheObjectsCloseCounters) {
  HostSamples host = WebHost();
  int asked = 0;
  EXPECT_EQ(Explain(host, "\\Processor(*)\\% Procesor Time", &asked),
            "\\Processor(*)\\% Procesor Time: no counter \"% Procesor Time\" in \"Processor\" on "
            "web01; did you mean \"% Processor Time\"?");
  EXPECT_EQ(asked, 0);  // the object is in the samples read: no whole sample is loaded
  EXPECT_EQ(Explain(host, "\\Process(*)\\Handle Count"),
            "\\Process(*)\\Handle Count: no counter \"Handle Count\" in \"Process\" on web01; "
            "`perfhive counters \\\\web01\\Process` lists them");
}

TEST(EmptyAnswersTest, AnInstancePartMatchingNoInstanceIsNamedWithTheCloseInstances) {
  HostSamples host = WebHost();
  EXPECT_EQ(Explain(host, "\\Process(sqlserver)\\ID Process"),
            "\\Process(sqlserver)\\ID Process: no instance of \"Process\" on web01 matches "
            "\"sqlserver\"; did you mean \"sqlservr\"?");
  // The #index is part of the name compared.
  EXPECT_EQ(Explain(host, "\\Process(svchost#2)\\ID Process"),
            "\\Process(svchost#2)\\ID Process: no instance of \"Process\" on web01 matches "
            "\"svchost#2\"; did you mean \"svchost#1\" or \"svchost\"?");
  // A wildcard is not a name a typo is made in.
  EXPECT_EQ(Explain(host, "\\Process(java*)\\ID Process"),
            "\\Process(java*)\\ID Process: no instance of \"Process\" on web01 matches \"java*\"; "
            "`perfhive instances \\\\web01\\Process` lists them");
}

TEST(EmptyAnswersTest, AnObjectWhoseInstanceListWasEmptyInEverySampleHadNoInstances) {
  HostSamples host{"web01", {}};
  for (int s = 0; s < 3; ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcesses(builder, s, {});
    host.samples.push_back(SampleOf(builder, s, EnglishTitles()));
  }
  EXPECT_EQ(Explain(host, "\\Process(*)\\ID Process"),
            "\\Process(*)\\ID Process: \"Process\" on web01 had no instances in the range");
  // An instance in an older sample is one the path may have meant.
  SnapshotBuilder older = HostAt(0);
  AddProcesses(older, 0, {{"sqlservr", 100, 1, 0}});
  host.samples[0] = SampleOf(older, 0, EnglishTitles());
  EXPECT_EQ(Explain(host, "\\Process(sqlserver)\\ID Process"),
            "\\Process(sqlserver)\\ID Process: no instance of \"Process\" on web01 matches "
            "\"sqlserver\"; did you mean \"sqlservr\"?");
}

TEST(EmptyAnswersTest, AnInstancePartOnTheWrongKindOfObjectSaysWhichKindItIs) {
  auto titles = std::make_shared<TitleDatabase>(*EnglishTitles());
  titles->AddName(title_index::kMemory, "Memory");
  titles->AddName(title_index::kAvailableBytes, "Available Bytes");
  HostSamples host{"web01", {}};
  SnapshotBuilder builder = HostAt(0);
  AddProcessors(builder, {0, 0}, {0, 0});
  ObjectBuilder& memory = builder.AddObject(title_index::kMemory);
  memory.set_no_instances();
  memory.AddCounter({title_index::kAvailableBytes, winperf::kCounterLargeRawcount});
  host.samples.push_back(SampleOf(builder, 0, titles));
  EXPECT_EQ(Explain(host, "\\Memory(*)\\Available Bytes"),
            "\\Memory(*)\\Available Bytes: \"Memory\" on web01 is an object without instances: "
            "leave out \"(...)\"");
  EXPECT_EQ(Explain(host, "\\Processor\\% Processor Time"),
            "\\Processor\\% Processor Time: \"Processor\" on web01 has instances: add one, e.g. "
            "\"Processor(*)\"");
}

TEST(EmptyAnswersTest, AddHostSeriesTellsWhichPathsSelectedNothingOnTheHost) {
  std::vector<CounterPath> paths;
  for (const char* text :
       {"\\Processor(*)\\% Processor Time", "\\Procesor(*)\\% Processor Time",
        "\\\\db01\\Processor(*)\\% Processor Time", "\\Process(svchost#1)\\ID Process"}) {
    paths.push_back(*ParseCounterPath(text));
  }
  QueryAnswer answer;
  std::vector<bool> selected;
  ASSERT_TRUE(AddHostSeries(WebHost(), paths, {}, answer, &selected).ok());
  // The third names another machine: it selects nothing here and is no business of this host.
  EXPECT_THAT(selected, ElementsAre(true, false, false, true));
  EXPECT_EQ(answer.series.size(), 3u);  // two processors and svchost#1
}

TEST(EmptyAnswersTest, ARangeWithoutSamplesIsNamedWithItsBoundsAndTheNearestSample) {
  EXPECT_EQ(
      NoSampleInRange("web01", kStartNs, kStartNs + 3600 * kSecondNs, kStartNs - 60 * kSecondNs),
      "web01 has no sample from 2026-11-22T10:00:00Z to 2026-11-22T11:00:00Z; the nearest "
      "is at 2026-11-22T09:59:00Z (`perfhive snapshots \\\\web01` lists the stored times)");
  EXPECT_EQ(NoSampleInRange("web01", kStartNs, INT64_MAX, std::nullopt),
            "web01 has no sample since 2026-11-22T10:00:00Z");
  EXPECT_EQ(NoSampleInRange("web01", 0, kStartNs, std::nullopt),
            "web01 has no sample up to 2026-11-22T10:00:00Z");
  EXPECT_EQ(NoSampleInRange("web01", 0, INT64_MAX, std::nullopt), "web01 has no sample stored");
}

// A German host: its real title databases (a lodctr dump of a German Windows), English and German
// ("Prozessor", "Prozess", "Prozessorzeit (%)"); suggestions come in the language the path uses.
TEST(EmptyAnswersTest, SuggestionsComeInTheLanguageThePathIsWrittenIn) {
  const std::filesystem::path fixture = ::perfhive::testing::TitleDumpFixture("apfeltee+tini");
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(fixture);
  Result<LodctrDump> dump = ParseLodctrDump(::perfhive::testing::ReadSharedFixture(fixture));
  ASSERT_TRUE(dump.ok()) << dump.error();
  HostSamples host = WebHost(std::make_shared<const TitleDatabase>(dump->languages.at("009")),
                             std::make_shared<const TitleDatabase>(dump->languages.at("007")));
  EXPECT_EQ(Explain(host, "\\Prozesor(*)\\Prozessorzeit (%)"),
            "\\Prozesor(*)\\Prozessorzeit (%): no object \"Prozesor\" on web01; did you mean "
            "\"Prozessor\" or \"Prozess\"?");
  EXPECT_EQ(Explain(host, "\\Procesor(*)\\% Processor Time"),
            "\\Procesor(*)\\% Processor Time: no object \"Procesor\" on web01; did you mean "
            "\"Processor\" or \"Process\"?");
  EXPECT_EQ(Explain(host, "\\Prozessor(*)\\Prozesorzeit (%)"),
            "\\Prozessor(*)\\Prozesorzeit (%): no counter \"Prozesorzeit (%)\" in \"Prozessor\" on "
            "web01; did you mean \"Prozessorzeit (%)\"?");
}

// A real capture: the Exchange server's "RAS Port" has an instance list that is empty in both
// samples (zenoss-windowsmonitor, s-exch2007-64).
TEST(EmptyAnswersTest, ARealObjectWithAnEmptyInstanceListHadNoInstances) {
  constexpr char kExchangeCapture[] = "realdata/zenoss-windowsmonitor";
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kExchangeCapture);
  auto read = [&](const std::string& name) {
    return std::make_shared<const std::vector<uint8_t>>(
        ::perfhive::testing::ReadSharedFixture(std::filesystem::path(kExchangeCapture) / name));
  };
  Result<TitleDatabase> titles = LoadTitleDatabase(*read("s-exch2007-64.counters"));
  ASSERT_TRUE(titles.ok()) << titles.error();
  auto english = std::make_shared<const TitleDatabase>(std::move(titles).value());
  HostSamples host{"s-exch2007-64",
                   {{kStartNs, read("s-exch2007-64-0.perf"), english, nullptr},
                    {kStartNs + kSecondNs, read("s-exch2007-64-1.perf"), english, nullptr}}};
  const std::vector<CounterPath> paths = {*ParseCounterPath("\\RAS Port(*)\\Bytes Transmitted")};
  Result<QueryAnswer> answer = RunQuery(host, paths);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_TRUE(answer->series.empty());
  EXPECT_EQ(Explain(host, "\\RAS Port(*)\\Bytes Transmitted"),
            "\\RAS Port(*)\\Bytes Transmitted: \"RAS Port\" on s-exch2007-64 had no instances in "
            "the range");
  EXPECT_EQ(Explain(host, "\\RAS Prot(*)\\Bytes Transmitted"),
            "\\RAS Prot(*)\\Bytes Transmitted: no object \"RAS Prot\" on s-exch2007-64; did you "
            "mean \"RAS Port\"?");
}

}  // namespace
}  // namespace perfhive::query
