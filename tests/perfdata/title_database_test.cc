// The title database: MULTI_SZ lists in both encodings, lodctr /S dumps, lookups; against the
// five real title databases in ../shared/fixtures and hand-made malformed input.

#include "perfdata/title_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<uint8_t> Utf16(std::string_view text) {
  std::vector<uint8_t> bytes = Utf8ToUtf16Le(text);
  return bytes;
}

// "a\0b\0\0" with \0 written as '|' for readability.
std::vector<uint8_t> MultiSz(std::string_view pipes, bool utf16) {
  std::string text(pipes);
  std::replace(text.begin(), text.end(), '|', '\0');
  if (!utf16) return std::vector<uint8_t>(text.begin(), text.end());
  std::vector<uint8_t> out;
  for (char c : text) {
    std::vector<uint8_t> unit = c == '\0' ? std::vector<uint8_t>{0, 0} : Utf16(std::string(1, c));
    out.insert(out.end(), unit.begin(), unit.end());
  }
  return out;
}

TEST(TitleListTest, ParsesUtf16AndEightBitLists) {
  for (bool utf16 : {true, false}) {
    TitleDatabase db;
    TitleParseReport report;
    ASSERT_TRUE(ParseTitleList(MultiSz("1|1847|2|System|4|Memory|238|Processor||", utf16), false,
                               db, &report)
                    .ok());
    EXPECT_TRUE(report.warnings.empty());
    EXPECT_EQ(db.Name(2), "System");
    EXPECT_EQ(db.Name(238), "Processor");
    EXPECT_EQ(db.Name(1), "1847");         // index 1 carries the count, as Windows returns it
    EXPECT_FALSE(db.Name(6).has_value());  // a gap
    EXPECT_EQ(db.last_name_index(), 238u);
    EXPECT_EQ(db.num_names(), 4u);
  }
}

TEST(TitleListTest, HelpListGoesToHelps) {
  TitleDatabase db;
  ASSERT_TRUE(ParseTitleList(MultiSz("3|The System object.|5|Memory help||", true), true, db).ok());
  EXPECT_EQ(db.Help(3), "The System object.");
  EXPECT_FALSE(db.Name(3).has_value());
  EXPECT_EQ(db.num_helps(), 2u);
}

TEST(TitleListTest, SkipsJunkWithWarningsNamingEntryAndOffset) {
  TitleDatabase db;
  TitleParseReport report;
  // "x7" is not an index; the final "10" has no text; no terminating empty string.
  ASSERT_TRUE(ParseTitleList(MultiSz("2|System|x7|4|Memory|10", false), false, db, &report).ok());
  EXPECT_EQ(db.Name(2), "System");
  EXPECT_EQ(db.Name(4), "Memory");
  EXPECT_THAT(report.warnings,
              ElementsAre("list does not end with an empty string (last string at byte 21)",
                          "entry 2 at byte 9: \"x7\" is not an index; skipped",
                          "entry 5 at byte 21: index 10 has no text; skipped"));
}

TEST(TitleListTest, OddTrailingByteIsReported) {
  TitleDatabase db;
  TitleParseReport report;
  std::vector<uint8_t> bytes = MultiSz("2|System||", true);
  bytes.push_back('!');
  ASSERT_TRUE(ParseTitleList(bytes, false, db, &report).ok());
  EXPECT_EQ(db.Name(2), "System");
  EXPECT_THAT(report.warnings, ElementsAre("odd trailing byte at byte 20 ignored"));
}

TEST(TitleListTest, NothingUsableIsAnError) {
  TitleDatabase db;
  Status s = ParseTitleList(MultiSz("hello|world||", false), false, db);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "no index/text pair found in the counter list (13 bytes, 8-bit)");
  EXPECT_FALSE(ParseTitleList({}, false, db).ok());
}

TEST(TitleDatabaseTest, NamesRepeatAndLookupIgnoresCase) {
  TitleDatabase db;
  db.AddName(6, "% Processor Time");
  db.AddName(9784, "Requests Rejected");
  db.AddName(10188, "requests rejected");
  db.AddName(236, "LogicalDisk");
  db.AddName(300, "\xC3\x89tat");  // "État"
  EXPECT_THAT(db.IndexesOf("REQUESTS REJECTED"), ElementsAre(9784, 10188));
  EXPECT_THAT(db.IndexesOf("logicaldisk"), ElementsAre(236));
  EXPECT_THAT(db.IndexesOf("\xC3\xA9tat"), ElementsAre(300));  // "état"
  EXPECT_TRUE(db.IndexesOf("Nope").empty());
  db.AddName(236, "Logical Disk");  // renamed: the old name no longer maps here
  EXPECT_TRUE(db.IndexesOf("LogicalDisk").empty());
}

TEST(TitleDatabaseTest, EncodeThenParseRoundTrips) {
  TitleDatabase db;
  db.AddName(1, "1847");
  db.AddName(2, "System");
  db.AddName(7000, "Caf\xC3\xA9 \xE6\x97\xA5");
  db.AddHelp(3, "help = text");
  TitleDatabase back;
  ASSERT_TRUE(ParseTitleList(db.EncodeNames(), false, back).ok());
  ASSERT_TRUE(ParseTitleList(db.EncodeHelps(), true, back).ok());
  EXPECT_EQ(back.Name(7000), "Caf\xC3\xA9 \xE6\x97\xA5");
  EXPECT_EQ(back.Name(2), "System");
  EXPECT_EQ(back.Help(3), "help = text");
  EXPECT_EQ(back.num_names(), 3u);
  EXPECT_EQ(db.EncodeNames(), back.EncodeNames());
}

TEST(LodctrDumpTest, ParsesSectionsFromUtf16WithBomAndLatin1) {
  std::string text =
      "\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=3000\r\nLast Help=3001\r\n\r\n"
      "[PERF_MyService]\r\nFirst Counter=2900\r\nFirst Help=2901\r\nLast Counter=2910\r\n"
      "Last Help=2911\r\n\r\n[PerfStrings_009]\r\n2=System\r\n3=System help\r\n"
      "2900=A=B\r\n\r\n[PerfStrings_007]\r\n2=System\r\n238=Prozessor\r\n";
  std::vector<uint8_t> utf16 = {0xFF, 0xFE};
  std::vector<uint8_t> body = Utf8ToUtf16Le(text);
  utf16.insert(utf16.end(), body.begin(), body.end());
  std::string latin1 = text +
                       "240=Gr\xF6\xDF"
                       "e\r\n";  // "Größe" in Latin-1
  for (const std::vector<uint8_t>& bytes :
       {utf16, std::vector<uint8_t>(latin1.begin(), latin1.end())}) {
    Result<LodctrDump> dump = ParseLodctrDump(bytes);
    ASSERT_TRUE(dump.ok()) << dump.error();
    EXPECT_EQ(dump->base_index, 1847u);
    EXPECT_EQ(dump->last_counter, 3000u);
    EXPECT_EQ(dump->last_help, 3001u);
    ASSERT_EQ(dump->providers.size(), 1u);
    EXPECT_EQ(dump->providers[0].service, "MyService");
    EXPECT_EQ(dump->providers[0].first_counter, 2900u);
    EXPECT_EQ(dump->providers[0].last_help, 2911u);
    const TitleDatabase& english = dump->languages.at("009");
    EXPECT_EQ(english.Name(2), "System");
    EXPECT_EQ(english.Help(3), "System help");
    EXPECT_EQ(english.Name(2900), "A=B");
    EXPECT_EQ(dump->languages.at("007").Name(238), "Prozessor");
  }
  Result<LodctrDump> latin = ParseLodctrDump(std::vector<uint8_t>(latin1.begin(), latin1.end()));
  EXPECT_EQ(latin->languages.at("007").Name(240),
            "Gr\xC3\xB6\xC3\x9F"
            "e");
}

TEST(LodctrDumpTest, JunkLinesAreWarnings) {
  std::string text = "[Perflib]\nLast Counter=abc\n[PerfStrings_009]\n2=System\nnonsense\nx=y\n";
  TitleParseReport report;
  Result<LodctrDump> dump =
      ParseLodctrDump(std::vector<uint8_t>(text.begin(), text.end()), &report);
  ASSERT_TRUE(dump.ok()) << dump.error();
  EXPECT_THAT(report.warnings,
              ElementsAre("line 2: Last Counter = \"abc\" is not a number; skipped",
                          "line 5: no '=' in \"nonsense\"; skipped",
                          "line 6: \"x\" is not an index; skipped"));
}

TEST(LoadTitleDatabaseTest, TellsDumpFromCounterListAndRejectsNeither) {
  std::string dump = "[PerfStrings_009]\n2=System\n";
  Result<TitleDatabase> from_dump =
      LoadTitleDatabase(std::vector<uint8_t>(dump.begin(), dump.end()));
  ASSERT_TRUE(from_dump.ok()) << from_dump.error();
  EXPECT_EQ(from_dump->Name(2), "System");
  Result<TitleDatabase> from_list = LoadTitleDatabase(MultiSz("2|System||", true));
  ASSERT_TRUE(from_list.ok()) << from_list.error();
  EXPECT_EQ(from_list->Name(2), "System");
  Result<TitleDatabase> neither = LoadTitleDatabase(std::vector<uint8_t>{0xFF, 0xFE, 0x01});
  ASSERT_FALSE(neither.ok());
  EXPECT_THAT(neither.error(), HasSubstr("neither a lodctr /S dump nor a \"Counter\" list"));
}

// The five real title databases.

struct RealDump {
  const char* file;
  uint32_t last_counter;
};

class RealTitleDatabaseTest : public ::testing::TestWithParam<RealDump> {
 protected:
  Result<LodctrDump> Load() {
    std::filesystem::path path =
        std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures/title-databases" / GetParam().file;
    if (!std::filesystem::exists(path)) return Status::Error("absent");
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    return ParseLodctrDump(bytes);
  }
};

TEST_P(RealTitleDatabaseTest, SystemObjectsKeepTheirIndexes) {
  Result<LodctrDump> dump = Load();
  if (!dump.ok() && dump.error() == "absent") GTEST_SKIP() << "../shared/fixtures is absent";
  ASSERT_TRUE(dump.ok()) << dump.error();
  EXPECT_EQ(dump->last_counter, GetParam().last_counter);
  EXPECT_EQ(dump->base_index, 1847u);
  const TitleDatabase& english = dump->languages.at("009");
  EXPECT_EQ(english.Name(2), "System");
  EXPECT_EQ(english.Name(4), "Memory");
  EXPECT_EQ(english.Name(6), "% Processor Time");
  EXPECT_EQ(english.Name(230), "Process");
  EXPECT_EQ(english.Name(232), "Thread");
  EXPECT_EQ(english.Name(234), "PhysicalDisk");
  EXPECT_EQ(english.Name(236), "LogicalDisk");
  EXPECT_EQ(english.Name(238), "Processor");
  EXPECT_EQ(english.Name(510), "Network Interface");
  EXPECT_THAT(english.IndexesOf("Processor"), ::testing::Contains(238));
  EXPECT_TRUE(english.Help(3).has_value());
  EXPECT_GT(english.num_names(), 1000u);
}

INSTANTIATE_TEST_SUITE_P(
    FiveHosts, RealTitleDatabaseTest,
    ::testing::Values(RealDump{"rosenste+github-upload.PerfStringBackup.INI", 10640},
                      RealDump{"stu4331+EchoChain.PerfStringBackup.INI", 11604},
                      RealDump{"AleksMaksymenko+performance-learning.PerfStringBackup.INI", 11174},
                      RealDump{"apfeltee+tini.PerfStringBackup.INI", 9408},
                      RealDump{"Ashrafnet+Phone-Dialer.PerfStringBackup.INI", 3686}));

std::vector<uint8_t> ReadFixture(const char* name) {
  std::filesystem::path path =
      std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures/title-databases" / name;
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

TEST(RealTitleDatabaseFacts, NamesThatMapToSeveralIndexes) {
  std::vector<uint8_t> bytes = ReadFixture("rosenste+github-upload.PerfStringBackup.INI");
  if (bytes.empty()) GTEST_SKIP() << "../shared/fixtures is absent";
  Result<LodctrDump> dump = ParseLodctrDump(bytes);
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& english = dump->languages.at("009");
  // Counted in the file: grep '^[0-9]*=Requests Rejected$' in [PerfStrings_009].
  EXPECT_THAT(english.IndexesOf("Requests Rejected"), ElementsAre(9784, 9962, 10010, 10188));
  EXPECT_EQ(english.IndexesOf("No name").size(), 91u);
  EXPECT_EQ(english.Name(1847), "End Marker");
  EXPECT_EQ(english.Name(1), "1847");
}

TEST(RealTitleDatabaseFacts, LocalizedSections) {
  std::vector<uint8_t> german = ReadFixture("apfeltee+tini.PerfStringBackup.INI");
  std::vector<uint8_t> arabic = ReadFixture("Ashrafnet+Phone-Dialer.PerfStringBackup.INI");
  if (german.empty() || arabic.empty()) GTEST_SKIP() << "../shared/fixtures is absent";
  Result<LodctrDump> de = ParseLodctrDump(german);
  ASSERT_TRUE(de.ok()) << de.error();
  EXPECT_EQ(de->languages.at("007").Name(238), "Prozessor");
  EXPECT_EQ(de->languages.at("007").Name(6), "Prozessorzeit (%)");
  EXPECT_EQ(de->languages.at("007").Name(230), "Prozess");
  EXPECT_EQ(de->languages.at("009").Name(238), "Processor");
  Result<LodctrDump> ar = ParseLodctrDump(arabic);
  ASSERT_TRUE(ar.ok()) << ar.error();
  ASSERT_TRUE(ar->languages.contains("001"));
  EXPECT_EQ(ar->languages.at("001").Name(238), "Processor");  // as the file has it
  // LoadTitleDatabase picks English.
  Result<TitleDatabase> loaded = LoadTitleDatabase(german);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->Name(238), "Processor");
}

}  // namespace
}  // namespace perfhive
