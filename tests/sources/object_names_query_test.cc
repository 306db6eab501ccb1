// QueryForObjectNames: object names become each host's own indexes, checked against the real title
// databases of two Windows hosts (indexes read from the files with grep) and a German one.

#include "sources/object_names_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sources/hkpd_test_util.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

using testing::NameList;

TitleBytes Names(std::vector<uint8_t> counters) {
  TitleBytes titles;
  titles.counters = std::move(counters);
  return titles;
}

Result<TitleBytes> RealHostTitles(const std::string& host, const std::string& language) {
  Result<LodctrDump> dump = testing::RealTitleDump(host);
  if (!dump.ok()) return dump.status();
  return TitleBytes{.language = language,
                    .counters = dump->languages.at(language).EncodeNames(),
                    .helps = dump->languages.at(language).EncodeHelps()};
}

TEST(ObjectIndexQueryTest, SystemObjectsKeepTheirIndexesAndExtensibleOnesMove) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<TitleBytes> windows10 = RealHostTitles("rosenste+github-upload", "009");
  Result<TitleBytes> windows11 = RealHostTitles("stu4331+EchoChain", "009");
  ASSERT_TRUE(windows10.ok() && windows11.ok());
  std::vector<std::string> objects = {"Processor", "Network Interface", ".NET CLR Data",
                                      "BITS Net Utilization"};
  Result<std::string> on_windows10 = QueryForObjectNames(*windows10, objects);
  ASSERT_TRUE(on_windows10.ok()) << on_windows10.error();
  EXPECT_EQ(*on_windows10, "238 510 6840 8966");
  Result<std::string> on_windows11 = QueryForObjectNames(*windows11, objects);
  ASSERT_TRUE(on_windows11.ok()) << on_windows11.error();
  EXPECT_EQ(*on_windows11, "238 510 8356 9126");
}

TEST(ObjectIndexQueryTest, NamesMatchInTheHostsLanguage) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<TitleBytes> german = RealHostTitles("apfeltee+tini", "007");
  ASSERT_TRUE(german.ok()) << german.error();
  std::vector<std::string> objects = {"Prozessor", "Prozess"};
  EXPECT_EQ(QueryForObjectNames(*german, objects).value(), "230 238");
  std::vector<std::string> english = {"Processor"};
  EXPECT_EQ(QueryForObjectNames(*german, english).error(),
            "no object named \"Processor\" in the host's title database (007)");
}

TEST(ObjectIndexQueryTest, IgnoresCaseTakesNumbersAndListsEachIndexOnce) {
  TitleBytes titles = Names(NameList({{2, "System"}, {4, "Memory"}, {238, "Processor"}}));
  std::vector<std::string> objects = {"processor", "238", "MEMORY", "2", "4"};
  EXPECT_EQ(QueryForObjectNames(titles, objects).value(), "2 4 238");
  // A number the database does not name is passed on: Windows ignores it if it is no object.
  std::vector<std::string> unnamed = {"99999"};
  EXPECT_EQ(QueryForObjectNames(titles, unnamed).value(), "99999");
}

TEST(ObjectIndexQueryTest, ANameWithSeveralIndexesAsksForAllOfThem) {
  // Two providers registered an object of the same name.
  TitleBytes titles = Names(NameList({{2, "System"}, {7002, "Cache"}, {86, "Cache"}}));
  std::vector<std::string> objects = {"Cache"};
  EXPECT_EQ(QueryForObjectNames(titles, objects).value(), "86 7002");
}

TEST(ObjectIndexQueryTest, ReportsWhatItCannotUse) {
  TitleBytes titles = Names(NameList({{2, "System"}}));
  EXPECT_EQ(QueryForObjectNames(titles, {}).error(), "no objects asked for");
  std::vector<std::string> bad = {"System", "230x", ""};
  EXPECT_EQ(QueryForObjectNames(titles, bad).error(),
            "no object named \"230x\" in the host's title database (009)");
  TitleBytes junk = Names({'x', 0, 0, 0, 0, 0});
  std::vector<std::string> objects = {"System"};
  EXPECT_THAT(QueryForObjectNames(junk, objects).error(),
              ::testing::StartsWith("the host's title database is unusable: "));
}

}  // namespace
}  // namespace perfhive
