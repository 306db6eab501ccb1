// HkpdReader through the registry seam, with builder-made blobs, the lists of real title
// databases and scripted failures: buffer growth, busy, truncation, ceilings, malformed replies,
// and where the title database is found.

#include "sources/hkpd/hkpd_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/byte_order.h"
#include "perfdata/title_list.h"
#include "perfdata/winperf.h"
#include "tests/sources/fake_registry.h"
#include "tests/sources/hkpd_test_util.h"
#include "tests/support/fake_clock_env.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

using ::testing::ElementsAre;
using testing::FakeRegistry;
using ::testing::HasSubstr;
using testing::HelpList;
using testing::kPerflib;
using testing::NameList;
using testing::SnapshotOfAbout;
using testing::TestReaderOptions;

HkpdReader LocalReader(FakeRegistry& registry, Env& env,
                       HkpdReaderOptions options = TestReaderOptions()) {
  return HkpdReader(registry, env, FakeRegistry::kPerformanceData, FakeRegistry::kLocalMachine, "",
                    std::move(options));
}

TEST(HkpdReaderTest, GrowsGeometricallyWithoutTrustingTheReportedSize) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(5000)};
  registry.more_data_size = 0;  // as Wine reports it
  HkpdReader reader = LocalReader(registry, env);
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(*bytes, (registry.values[{"HKPD", "Global"}].bytes));
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(1024, 2048, 4096, 8192));
  // The next read starts from the size that worked.
  registry.query_buffer_sizes.clear();
  ASSERT_TRUE(reader.ReadSnapshot("Global").ok());
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(8192));
}

TEST(HkpdReaderTest, GrowsWhenATruncatedReplyFillsTheBuffer) {
  // Samba answers "Global" with success and a block cut to the buffer's size.
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(3000)};
  registry.truncated_replies = {"Global"};
  HkpdReader reader = LocalReader(registry, env);
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(*bytes, (registry.values[{"HKPD", "Global"}].bytes));
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(1024, 2048, 4096));
}

TEST(HkpdReaderTest, StopsAtTheCeilingWithAClearError) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(70 * 1024)};
  registry.more_data_size = 1'000'000'000;  // a lie: never trusted
  HkpdReaderOptions options = TestReaderOptions();
  options.max_buffer_bytes = 64 * 1024;
  HkpdReader reader = LocalReader(registry, env, options);
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "HKEY_PERFORMANCE_DATA \"Global\": the reply needs more than 65536 bytes, the buffer "
            "ceiling");
  EXPECT_THAT(registry.query_buffer_sizes,
              ElementsAre(1024, 2048, 4096, 8192, 16384, 32768, 65536));
}

TEST(HkpdReaderTest, ATruncatedReplyAtTheCeilingIsAnErrorNotASnapshot) {
  // Cut to 64 KiB, the block would still be handed on if the reader trusted a full buffer.
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(70 * 1024)};
  registry.truncated_replies = {"Global"};
  HkpdReaderOptions options = TestReaderOptions();
  options.max_buffer_bytes = 64 * 1024;
  HkpdReader reader = LocalReader(registry, env, options);
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(bytes.error(), HasSubstr("needs more than 65536 bytes, the buffer ceiling"));
}

TEST(HkpdReaderTest, RetriesBusyABoundedNumberOfTimes) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "230"}] = {SnapshotOfAbout(500)};
  registry.scripted_errors["230"] = {win_error::kBusy, win_error::kBusy};
  HkpdReader reader = LocalReader(registry, env);
  ASSERT_TRUE(reader.ReadSnapshot("230").ok());
  EXPECT_THAT(env.sleeps(),
              ElementsAre(std::chrono::milliseconds(50), std::chrono::milliseconds(50)));

  registry.scripted_errors["230"] = {170, 170, 170, 170, 170};
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("230");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "HKEY_PERFORMANCE_DATA \"230\": still busy after 3 retries (170 "
            "(ERROR_BUSY: the requested resource is in use))");
  EXPECT_EQ(reader.last_error_code(), 170);
  EXPECT_EQ(registry.scripted_errors["230"].size(), 1u);  // 1 try + 3 retries
}

TEST(HkpdReaderTest, ReportsOtherErrorsWithTheirMeaning) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.scripted_errors["Global"] = {win_error::kAccessDenied};
  HkpdReader reader(registry, env, FakeRegistry::kPerformanceData, std::nullopt, "\\\\winhost",
                    TestReaderOptions());
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "\\\\winhost\\HKEY_PERFORMANCE_DATA \"Global\": RegQueryValueExW failed with 5 "
            "(ERROR_ACCESS_DENIED: access is denied)");
  EXPECT_EQ(reader.last_error_code(), 5);
  EXPECT_EQ(reader.ReadSnapshot("").error(),
            "\\\\winhost\\HKEY_PERFORMANCE_DATA: empty query (use \"Global\")");
}

TEST(HkpdReaderTest, RejectsAMalformedBlockBeforeHandingItOn) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  std::vector<uint8_t> bytes = SnapshotOfAbout(500);
  StoreU32(&bytes[winperf::data_block::kHeaderLength], 4);
  registry.values[{"HKPD", "Global"}] = {bytes};
  HkpdReader reader = LocalReader(registry, env);
  Result<std::vector<uint8_t>> got = reader.ReadSnapshot("Global");
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.error(), HasSubstr("\"Global\" returned a malformed block: data block at byte "
                                     "0: HeaderLength 4 is smaller than PERF_DATA_BLOCK"));
  EXPECT_EQ(reader.last_error_code(), 0);
}

TEST(HkpdReaderTest, AcceptsSambasBlockWhoseTotalLengthLeavesOutTheHeader) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  std::vector<uint8_t> bytes = SnapshotOfAbout(500);
  uint32_t header = LoadU32(&bytes[winperf::data_block::kHeaderLength]);
  StoreU32(&bytes[winperf::data_block::kTotalByteLength],
           static_cast<uint32_t>(bytes.size()) - header);
  registry.values[{"HKPD", "Global"}] = {bytes};
  HkpdReader reader = LocalReader(registry, env);
  Result<std::vector<uint8_t>> got = reader.ReadSnapshot("Global");
  ASSERT_TRUE(got.ok()) << got.error();
  EXPECT_EQ(*got, bytes);
}

TEST(HkpdReaderTest, ReadsARealHostsTitleListsThroughTheGrowLoop) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> dump = testing::RealTitleDump("rosenste+github-upload");
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& english = dump->languages.at("009");
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Counter 009"}] = {english.EncodeNames(), kRegMultiSz};
  registry.values[{"HKPD", "Help 009"}] = {english.EncodeHelps(), kRegMultiSz};
  HkpdReader reader = LocalReader(registry, env);
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_EQ(titles->language, "009");
  EXPECT_EQ(titles->counters, english.EncodeNames());
  EXPECT_EQ(titles->helps, english.EncodeHelps());
  // Each query doubled the buffer from 1 KiB until the list fitted, never trusting a size.
  std::vector<uint32_t> sizes = registry.query_buffer_sizes;
  ASSERT_GE(sizes.size(), 3u);
  EXPECT_EQ(sizes.front(), 1024u);
  for (size_t i = 1; i < sizes.size(); ++i) {
    EXPECT_TRUE(sizes[i] == 2 * sizes[i - 1] || sizes[i] == sizes[i - 1]) << i;
  }
  EXPECT_GE(sizes.back(), titles->helps.size());
  EXPECT_LT(sizes.back() / 2, titles->helps.size());
  // The next read starts where the last one ended: one call per list.
  registry.query_buffer_sizes.clear();
  ASSERT_TRUE(reader.ReadTitles().ok());
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(sizes.back(), sizes.back()));
}

TEST(HkpdReaderTest, ReadsHelpTextsAsExplainWhenHelpIsUnknown) {
  // Samba answers "Counter 009" and "Explain 009", as REG_BINARY.
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Counter 009"}] = {NameList({{1, "1847"}, {2, "System"}})};
  registry.values[{"HKPD", "Explain 009"}] = {HelpList({{3, "The System object"}})};
  HkpdReader reader = LocalReader(registry, env);
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_EQ(titles->helps, HelpList({{3, "The System object"}}));
  EXPECT_THAT(registry.calls, ElementsAre("query HKPD Counter 009", "query HKPD Help 009",
                                          "query HKPD Explain 009"));
}

TEST(HkpdReaderTest, ADataBlockAnsweredForATitleNameIsNotTakenForTitles) {
  // Wine answers a value name it does not know ("Explain 009") as a data query.
  FakeRegistry registry;
  testing::FakeClockEnv env;
  registry.values[{"HKPD", "Counter 009"}] = {NameList({{2, "System"}})};
  registry.values[{"HKPD", "Explain 009"}] = {SnapshotOfAbout(500)};
  HkpdReader reader(registry, env, FakeRegistry::kPerformanceData, std::nullopt, "",
                    TestReaderOptions());
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_FALSE(titles.ok());
  EXPECT_EQ(titles.error(),
            "no title database: HKEY_PERFORMANCE_DATA \"Help 009\": RegQueryValueExW failed with 2 "
            "(ERROR_FILE_NOT_FOUND: no such value or key); HKEY_PERFORMANCE_DATA \"Explain 009\": "
            "returned performance data, not a title list");
}

TEST(HkpdReaderTest, AReplyThatIsNotATitleListIsRejected) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  std::vector<uint8_t> junk = {'x', 0, 'y', 0, 0, 0, 0, 0};
  registry.values[{"HKPD", "Counter 009"}] = {junk};
  HkpdReader reader(registry, env, FakeRegistry::kPerformanceData, std::nullopt, "",
                    TestReaderOptions());
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_FALSE(titles.ok());
  EXPECT_THAT(
      titles.error(),
      HasSubstr("no title database: HKEY_PERFORMANCE_DATA \"Counter 009\": not a title list: "));
}

TEST(HkpdReaderTest, FallsBackToPerflib009AndClosesTheKey) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  std::string perflib009 = std::string(kPerflib) + "\\009";
  registry.values[{perflib009, "Counter"}] = {NameList({{2, "System"}}), kRegMultiSz};
  registry.values[{perflib009, "Help"}] = {HelpList({{3, "help"}}), kRegMultiSz};
  HkpdReader reader = LocalReader(registry, env);
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_EQ(titles->language, "009");
  EXPECT_EQ(titles->counters, NameList({{2, "System"}}));
  EXPECT_EQ(titles->helps, HelpList({{3, "help"}}));
  EXPECT_EQ(registry.open_keys, 0);
}

TEST(HkpdReaderTest, FallsBackToPerflibCurrentLanguageOnAGermanHost) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> dump = testing::RealTitleDump("apfeltee+tini");
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& german = dump->languages.at("007");
  FakeRegistry registry;
  testing::FakeClockEnv env;
  std::string current = std::string(kPerflib) + "\\CurrentLanguage";
  registry.values[{current, "Counter"}] = {german.EncodeNames(), kRegMultiSz};
  registry.values[{current, "Help"}] = {german.EncodeHelps(), kRegMultiSz};
  HkpdReader reader = LocalReader(registry, env);
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_EQ(titles->language, "CurrentLanguage");
  TitleDatabase parsed;
  ASSERT_TRUE(ParseTitleList(titles->counters, false, parsed).ok());
  EXPECT_EQ(parsed.Name(238), "Prozessor");
  EXPECT_EQ(registry.open_keys, 0);
}

// The real German host's lists, as Windows serves them: English on the performance key, German
// on HKEY_PERFORMANCE_NLSTEXT and Perflib\CurrentLanguage.
class GermanHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
    Result<LodctrDump> dump = testing::RealTitleDump("apfeltee+tini");
    ASSERT_TRUE(dump.ok()) << dump.error();
    english_ = dump->languages.at("009");
    german_ = dump->languages.at("007");
    registry_.values[{"HKPD", "Counter 009"}] = {english_.EncodeNames(), kRegMultiSz};
    registry_.values[{"HKPD", "Help 009"}] = {english_.EncodeHelps(), kRegMultiSz};
  }
  void ServeGerman(const std::string& key) {
    registry_.values[{key, "Counter"}] = {german_.EncodeNames(), kRegMultiSz};
    registry_.values[{key, "Help"}] = {german_.EncodeHelps(), kRegMultiSz};
  }
  // The name of index 238 in each database read.
  std::vector<std::string> ProcessorNames(const std::vector<TitleBytes>& databases) {
    std::vector<std::string> names;
    for (const TitleBytes& titles : databases) {
      TitleDatabase parsed;
      EXPECT_TRUE(ParseTitleList(titles.counters, false, parsed).ok());
      names.push_back(std::string(parsed.Name(238).value_or("")));
    }
    return names;
  }

  FakeRegistry registry_;
  testing::FakeClockEnv env_;
  TitleDatabase english_;
  TitleDatabase german_;
};

TEST_F(GermanHostTest, ReadsTheDisplayLanguageFromNlsText) {
  ServeGerman("HKPN");
  HkpdReader reader = LocalReader(registry_, env_);
  Result<std::vector<TitleBytes>> titles = reader.ReadAllTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  ASSERT_EQ(titles->size(), 2u);
  EXPECT_EQ((*titles)[0].language, "009");
  EXPECT_EQ((*titles)[1].language, "CurrentLanguage");
  EXPECT_EQ((*titles)[1].helps, german_.EncodeHelps());
  EXPECT_THAT(ProcessorNames(*titles), ElementsAre("Processor", "Prozessor"));
  EXPECT_EQ(registry_.open_keys, 0);
}

TEST_F(GermanHostTest, FallsBackToPerflibCurrentLanguageWithoutNlsText) {
  ServeGerman(std::string(kPerflib) + "\\CurrentLanguage");
  HkpdReader reader = LocalReader(registry_, env_);
  Result<std::vector<TitleBytes>> titles = reader.ReadAllTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_THAT(ProcessorNames(*titles), ElementsAre("Processor", "Prozessor"));
  EXPECT_EQ((*titles)[1].language, "CurrentLanguage");
  EXPECT_EQ(registry_.open_keys, 0);
}

TEST_F(GermanHostTest, ARemoteHostIsAskedThroughPerflibOnly) {
  // RegConnectRegistryW offers no HKEY_PERFORMANCE_NLSTEXT: a remote reader never asks it.
  ServeGerman("HKPN");
  ServeGerman(std::string(kPerflib) + "\\CurrentLanguage");
  HkpdReader reader(registry_, env_, FakeRegistry::kPerformanceData, FakeRegistry::kLocalMachine,
                    "\\\\winhost", TestReaderOptions());
  Result<std::vector<TitleBytes>> titles = reader.ReadAllTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_THAT(ProcessorNames(*titles), ElementsAre("Processor", "Prozessor"));
  for (const std::string& call : registry_.calls)
    EXPECT_THAT(call, ::testing::Not(HasSubstr("HKPN")));
}

TEST_F(GermanHostTest, EnglishAloneWhenTheDisplayLanguageIsMissingBrokenOrEnglish) {
  HkpdReader reader = LocalReader(registry_, env_);
  // Nothing in the display language (Wine): English alone, and no error.
  Result<std::vector<TitleBytes>> titles = reader.ReadAllTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_THAT(ProcessorNames(*titles), ElementsAre("Processor"));
  EXPECT_EQ(reader.last_error_code(), 0);
  // A key that answers with performance data instead of a list is no display language.
  registry_.values[{"HKPN", "Counter"}] = {SnapshotOfAbout(200)};
  EXPECT_THAT(ProcessorNames(*reader.ReadAllTitles()), ElementsAre("Processor"));
  // An English host's display language is English: it is not sent twice.
  registry_.values[{"HKPN", "Counter"}] = {english_.EncodeNames(), kRegMultiSz};
  registry_.values[{"HKPN", "Help"}] = {english_.EncodeHelps(), kRegMultiSz};
  EXPECT_THAT(ProcessorNames(*reader.ReadAllTitles()), ElementsAre("Processor"));
}

TEST(HkpdReaderTest, NoTitleDatabaseAnywhereNamesEveryPlaceTried) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  HkpdReader reader = LocalReader(registry, env);
  Result<TitleBytes> titles = reader.ReadTitles();
  ASSERT_FALSE(titles.ok());
  EXPECT_EQ(titles.error(),
            "no title database: HKEY_PERFORMANCE_DATA \"Counter 009\": RegQueryValueExW failed "
            "with 2 (ERROR_FILE_NOT_FOUND: no such value or key); HKEY_LOCAL_MACHINE\\SOFTWARE\\"
            "Microsoft\\Windows NT\\CurrentVersion\\Perflib\\009: RegOpenKeyExW failed with 2 "
            "(ERROR_FILE_NOT_FOUND: no such value or key); HKEY_LOCAL_MACHINE\\SOFTWARE\\"
            "Microsoft\\Windows NT\\CurrentVersion\\Perflib\\CurrentLanguage: RegOpenKeyExW "
            "failed with 2 (ERROR_FILE_NOT_FOUND: no such value or key)");
}

TEST(HkpdReaderTest, TitleVersionReadsPerflibsDwordsAndToleratesTheirAbsence) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  HkpdReader reader = LocalReader(registry, env);
  EXPECT_EQ(reader.ReadTitleVersion(), TitleVersion());

  registry.values[{kPerflib, "Last Counter"}] = {testing::DwordValue(10640), kRegDword};
  EXPECT_EQ(reader.ReadTitleVersion(),
            (TitleVersion{.last_counter = 10640, .last_help = std::nullopt}));

  registry.values[{kPerflib, "Last Help"}] = {testing::DwordValue(10641), kRegDword};
  EXPECT_EQ(reader.ReadTitleVersion(), (TitleVersion{.last_counter = 10640, .last_help = 10641}));

  // A value of another type is not the token.
  registry.values[{kPerflib, "Last Help"}] = {testing::DwordValue(10641), kRegBinary};
  EXPECT_EQ(reader.ReadTitleVersion(),
            (TitleVersion{.last_counter = 10640, .last_help = std::nullopt}));
  EXPECT_EQ(registry.open_keys, 0);

  HkpdReader without_local_machine(registry, env, FakeRegistry::kPerformanceData, std::nullopt, "",
                                   TestReaderOptions());
  EXPECT_EQ(without_local_machine.ReadTitleVersion(), TitleVersion());
}

TEST(HkpdReaderTest, TitleDigestTellsDatabasesApart) {
  TitleBytes titles{.counters = NameList({{2, "System"}}), .helps = HelpList({{3, "help"}})};
  TitleBytes same = titles;
  EXPECT_EQ(TitleFingerprint(titles), TitleFingerprint(same));
  TitleBytes renamed = titles;
  renamed.counters = NameList({{2, "Systen"}});
  EXPECT_NE(TitleFingerprint(titles), TitleFingerprint(renamed));
  TitleBytes german = titles;
  german.language = "007";
  EXPECT_NE(TitleFingerprint(titles), TitleFingerprint(german));
  // A set differs when any member does, or when one is added.
  EXPECT_EQ(TitleFingerprint(std::vector<TitleBytes>{titles}), TitleFingerprint(titles));
  EXPECT_NE(TitleFingerprint(std::vector<TitleBytes>{titles, german}), TitleFingerprint(titles));
  EXPECT_NE(TitleFingerprint(std::vector<TitleBytes>{titles, german}),
            TitleFingerprint(std::vector<TitleBytes>{titles, renamed}));
  // The same bytes split differently between the two lists.
  TitleBytes moved = titles;
  moved.helps.insert(moved.helps.begin(), moved.counters.end() - 2, moved.counters.end());
  moved.counters.resize(moved.counters.size() - 2);
  EXPECT_NE(TitleFingerprint(titles), TitleFingerprint(moved));
}

}  // namespace
}  // namespace perfhive
