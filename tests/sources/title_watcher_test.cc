// TitleWatcher through the registry seam: the title database is handed on once, again after
// lodctr moved Perflib's token or the periodic recheck found other lists, and never twice the
// same; the lists are not read while the token stands and the recheck is not due.

#include "sources/hkpd/title_watcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/sources/fake_registry.h"
#include "tests/sources/hkpd_test_util.h"
#include "tests/support/fake_clock_env.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

using testing::FakeRegistry;
using ::testing::HasSubstr;
using testing::kPerflib;
using testing::NameList;

class TitleWatcherTest : public ::testing::Test {
 protected:
  void SetLists(std::vector<uint8_t> counters, std::vector<uint8_t> helps) {
    registry_.values[{"HKPD", "Counter 009"}] = {std::move(counters), kRegMultiSz};
    registry_.values[{"HKPD", "Help 009"}] = {std::move(helps), kRegMultiSz};
  }
  void SetToken(uint32_t last_counter, uint32_t last_help) {
    registry_.values[{kPerflib, "Last Counter"}] = {testing::DwordValue(last_counter), kRegDword};
    registry_.values[{kPerflib, "Last Help"}] = {testing::DwordValue(last_help), kRegDword};
  }
  // How many times the lists were read since the last call of this function.
  int ListReads() {
    int reads = static_cast<int>(
        std::count(registry_.calls.begin(), registry_.calls.end(), "query HKPD Counter 009"));
    registry_.calls.clear();
    return reads;
  }
  Result<std::optional<std::vector<TitleBytes>>> Check() { return watcher_.ReadIfChanged(reader_); }

  static HkpdReaderOptions OneCallPerList() {
    HkpdReaderOptions options = testing::TestReaderOptions();
    options.initial_buffer_bytes = options.max_buffer_bytes;
    return options;
  }

  FakeRegistry registry_;
  testing::FakeClockEnv env_;
  HkpdReader reader_{
      registry_,       env_, FakeRegistry::kPerformanceData, FakeRegistry::kLocalMachine, "",
      OneCallPerList()};
  TitleWatcher watcher_{env_, std::chrono::hours(1)};
};

TEST_F(TitleWatcherTest, HandsTheTitlesOnOnceAndAgainAfterLodctrMovedTheToken) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> before = testing::RealTitleDump("rosenste+github-upload");
  Result<LodctrDump> after = testing::RealTitleDump("stu4331+EchoChain");
  ASSERT_TRUE(before.ok() && after.ok());
  ASSERT_EQ(before->last_counter, 10640u);  // as fixtures/README.md lists them
  ASSERT_EQ(after->last_counter, 11604u);
  const TitleDatabase& old_titles = before->languages.at("009");
  const TitleDatabase& new_titles = after->languages.at("009");
  SetLists(old_titles.EncodeNames(), old_titles.EncodeHelps());
  SetToken(before->last_counter, before->last_help);

  Result<std::optional<std::vector<TitleBytes>>> first = Check();
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->front().counters, old_titles.EncodeNames());
  EXPECT_EQ(ListReads(), 1);

  // Unchanged token: nothing handed on, and the lists are not even read.
  env_.Advance(std::chrono::minutes(10));
  Result<std::optional<std::vector<TitleBytes>>> same = Check();
  ASSERT_TRUE(same.ok()) << same.error();
  EXPECT_FALSE(same->has_value());
  EXPECT_EQ(ListReads(), 0);

  // lodctr /R: other lists, and the token moved.
  SetLists(new_titles.EncodeNames(), new_titles.EncodeHelps());
  SetToken(after->last_counter, after->last_help);
  Result<std::optional<std::vector<TitleBytes>>> changed = Check();
  ASSERT_TRUE(changed.ok()) << changed.error();
  ASSERT_TRUE(changed->has_value());
  EXPECT_EQ((*changed)->front().counters, new_titles.EncodeNames());
  EXPECT_EQ((*changed)->front().helps, new_titles.EncodeHelps());
  EXPECT_FALSE(Check()->has_value());
}

TEST_F(TitleWatcherTest, ATokenMovedOverTheSameListsHandsNothingOn) {
  SetLists(NameList({{2, "System"}}), testing::HelpList({{3, "help"}}));
  SetToken(2, 3);
  ASSERT_TRUE(Check()->has_value());
  SetToken(4, 5);
  Result<std::optional<std::vector<TitleBytes>>> again = Check();
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->has_value());
  EXPECT_EQ(ListReads(), 2);
}

TEST_F(TitleWatcherTest, ListsChangedUnderAStandingTokenAreFoundAtTheRecheck) {
  SetLists(NameList({{2, "System"}}), testing::HelpList({{3, "help"}}));
  SetToken(2, 3);
  ASSERT_TRUE(Check()->has_value());
  SetLists(NameList({{2, "Sys"}}), testing::HelpList({{3, "help"}}));
  env_.Advance(std::chrono::minutes(59));
  EXPECT_FALSE(Check()->has_value());
  EXPECT_EQ(ListReads(), 1);
  env_.Advance(std::chrono::minutes(1));
  Result<std::optional<std::vector<TitleBytes>>> found = Check();
  ASSERT_TRUE(found.ok()) << found.error();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->front().counters, NameList({{2, "Sys"}}));
}

TEST_F(TitleWatcherTest, AHostWithoutTheTokenIsRereadOnlyAtTheRecheck) {
  // Wine has no Last Counter/Last Help.
  SetLists(NameList({{2, "System"}}), testing::HelpList({{3, "help"}}));
  ASSERT_TRUE(Check()->has_value());
  SetLists(NameList({{2, "System"}, {4, "Memory"}}), testing::HelpList({{3, "help"}}));
  env_.Advance(std::chrono::minutes(30));
  EXPECT_FALSE(Check()->has_value());
  env_.Advance(std::chrono::minutes(30));
  Result<std::optional<std::vector<TitleBytes>>> found = Check();
  ASSERT_TRUE(found.ok()) << found.error();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->front().counters, NameList({{2, "System"}, {4, "Memory"}}));
  EXPECT_EQ(ListReads(), 2);
}

TEST_F(TitleWatcherTest, AChangedDisplayLanguageAloneHandsBothDatabasesOn) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> dump = testing::RealTitleDump("apfeltee+tini");
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& english = dump->languages.at("009");
  const TitleDatabase& german = dump->languages.at("007");
  SetLists(english.EncodeNames(), english.EncodeHelps());
  SetToken(2, 3);
  Result<std::optional<std::vector<TitleBytes>>> first = Check();
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->size(), 1u);  // no display language yet: English alone
  // The user switched the display language to German; the counters did not move.
  registry_.values[{"HKPN", "Counter"}] = {german.EncodeNames(), kRegMultiSz};
  registry_.values[{"HKPN", "Help"}] = {german.EncodeHelps(), kRegMultiSz};
  EXPECT_FALSE(Check()->has_value());  // the token stands: nothing is read before the recheck
  env_.Advance(std::chrono::hours(1));
  Result<std::optional<std::vector<TitleBytes>>> found = Check();
  ASSERT_TRUE(found.ok()) << found.error();
  ASSERT_TRUE(found->has_value());
  ASSERT_EQ((*found)->size(), 2u);
  EXPECT_EQ((*found)->at(0).counters, english.EncodeNames());
  EXPECT_EQ((*found)->at(1).language, "CurrentLanguage");
  EXPECT_EQ((*found)->at(1).counters, german.EncodeNames());
  env_.Advance(std::chrono::hours(1));
  EXPECT_FALSE(Check()->has_value());
}

TEST_F(TitleWatcherTest, AFailedReadIsTriedAgainOnTheNextCall) {
  SetLists(NameList({{2, "System"}}), testing::HelpList({{3, "help"}}));
  SetToken(2, 3);
  ASSERT_TRUE(Check()->has_value());
  // The token moves, but the lists cannot be read this time.
  SetToken(4, 5);
  registry_.scripted_errors["Counter 009"] = {win_error::kAccessDenied};
  Result<std::optional<std::vector<TitleBytes>>> failed = Check();
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.error(), HasSubstr("\"Counter 009\": RegQueryValueExW failed with 5"));
  SetLists(NameList({{2, "System"}, {4, "Memory"}}), testing::HelpList({{3, "help"}}));
  Result<std::optional<std::vector<TitleBytes>>> retried = Check();
  ASSERT_TRUE(retried.ok()) << retried.error();
  ASSERT_TRUE(retried->has_value());
  EXPECT_EQ((*retried)->front().counters, NameList({{2, "System"}, {4, "Memory"}}));
}

}  // namespace
}  // namespace perfhive
