// The Linux source's title database: every index carries the name real Windows hosts give it
// (their `lodctr /S` dumps in ../shared/fixtures/title-databases), and the bytes ReadTitles()
// returns parse back to the same names and help texts.

#include "sources/procfs/procfs_titles.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "perfdata/title_database.h"
#include "perfdata/title_database_file.h"
#include "perfdata/title_list.h"
#include "sources/procfs/procfs_source.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

Result<TitleDatabase> LoadFixture(const std::string& file) {
  return LoadTitleDatabase(
      testing::ReadSharedFixture(std::filesystem::path("title-databases") / file));
}

TEST(ProcfsTitlesTest, NamesAreThoseOfRealWindowsHosts) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  // Windows 10 and 11 have every index; Windows 7 and a German Windows have the older ones.
  for (auto [file, complete] :
       {std::pair{"rosenste+github-upload.PerfStringBackup.INI", true},
        std::pair{"stu4331+EchoChain.PerfStringBackup.INI", true},
        std::pair{"AleksMaksymenko+performance-learning.PerfStringBackup.INI", true},
        std::pair{"apfeltee+tini.PerfStringBackup.INI", false},
        std::pair{"Ashrafnet+Phone-Dialer.PerfStringBackup.INI", false}}) {
    SCOPED_TRACE(file);
    Result<TitleDatabase> windows = LoadFixture(file);
    ASSERT_TRUE(windows.ok()) << windows.error();
    for (const ProcfsTitle& title : ProcfsTitles()) {
      std::optional<std::string_view> name = windows->Name(title.index);
      if (!complete && !name) continue;
      EXPECT_EQ(name, title.name) << "index " << title.index;
    }
  }
}

TEST(ProcfsTitlesTest, ReadTitlesGivesTheMultiSzOfCounter009) {
  Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
  ASSERT_TRUE(source.ok()) << source.error();
  Result<std::vector<TitleBytes>> databases = (*source)->ReadTitles();
  ASSERT_TRUE(databases.ok()) << databases.error();
  ASSERT_EQ(databases->size(), 1u);  // English only, whatever the locale
  const TitleBytes* bytes = &databases->front();
  EXPECT_EQ(bytes->language, "009");
  // UTF-16LE "2\0System\0" first (indexes ascending), an empty string last.
  ASSERT_GE(bytes->counters.size(), 18u);
  EXPECT_EQ(
      std::vector<uint8_t>(bytes->counters.begin(), bytes->counters.begin() + 18),
      (std::vector<uint8_t>{'2', 0, 0, 0, 'S', 0, 'y', 0, 's', 0, 't', 0, 'e', 0, 'm', 0, 0, 0}));
  EXPECT_EQ(std::vector<uint8_t>(bytes->counters.end() - 2, bytes->counters.end()),
            (std::vector<uint8_t>{0, 0}));

  TitleDatabase parsed;
  ASSERT_TRUE(ParseTitleList(bytes->counters, false, parsed).ok());
  ASSERT_TRUE(ParseTitleList(bytes->helps, true, parsed).ok());
  EXPECT_EQ(parsed.num_names(), ProcfsTitles().size());
  for (const ProcfsTitle& title : ProcfsTitles()) {
    EXPECT_EQ(parsed.Name(title.index), title.name);
    EXPECT_EQ(parsed.Help(title.index + 1), title.help);
  }
}

}  // namespace
}  // namespace perfhive
