// The title database: MULTI_SZ lists in both encodings, lodctr /S dumps, lookups, encoding;
// hand-made input (expected bytes and offsets counted by hand) and the five real title
// databases in ../shared/fixtures/title-databases (expected values read from the files with
// iconv, grep and a separate script).

#include "perfdata/title_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/lodctr_dump.h"
#include "perfdata/title_database_file.h"
#include "perfdata/title_list.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

using namespace std::string_view_literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

std::vector<uint8_t> Bytes(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// UTF-16LE of Latin-1 text: every byte is its own code point.
std::vector<uint8_t> Widen(std::string_view latin1) {
  std::vector<uint8_t> out;
  for (char c : latin1) out.insert(out.end(), {static_cast<uint8_t>(c), 0});
  return out;
}

std::vector<uint8_t> WithBom(std::vector<uint8_t> utf16) {
  utf16.insert(utf16.begin(), {0xFF, 0xFE});
  return utf16;
}

// --- MULTI_SZ lists ---

TEST(TitleListTest, ParsesTheUtf16ListRegQueryValueExWReturns) {
  TitleDatabase db;
  TitleParseReport report;
  ASSERT_TRUE(ParseTitleList(Widen("1\0"
                                   "1847\0"
                                   "2\0System\0"
                                   "4\0Memory\0"
                                   "238\0Processor\0\0"sv),
                             false, db, &report)
                  .ok());
  EXPECT_THAT(report.warnings, IsEmpty());
  EXPECT_EQ(db.Name(1), "1847");  // the count, kept as a name as Windows returns it
  EXPECT_EQ(db.Name(2), "System");
  EXPECT_EQ(db.Name(4), "Memory");
  EXPECT_EQ(db.Name(238), "Processor");
  EXPECT_FALSE(db.Name(6).has_value());  // a gap
  EXPECT_FALSE(db.Help(2).has_value());
  EXPECT_EQ(db.num_names(), 4u);
  EXPECT_EQ(db.num_helps(), 0u);
  EXPECT_EQ(db.last_name_index(), 238u);
}

TEST(TitleListTest, DecodesUtf16BeyondLatin1) {
  // "10" → "Größe 😀": ö is U+00F6, ß U+00DF, 😀 U+1F600 (surrogates D83D DE00).
  std::vector<uint8_t> bytes = Widen(
      "10\0Gr\xF6\xDF"
      "e "sv);
  bytes.insert(bytes.end(), {0x3D, 0xD8, 0x00, 0xDE, 0, 0, 0, 0});
  TitleDatabase db;
  ASSERT_TRUE(ParseTitleList(bytes, false, db).ok());
  EXPECT_EQ(db.Name(10),
            "Gr\xC3\xB6\xC3\x9F"
            "e \xF0\x9F\x98\x80");
}

TEST(TitleListTest, HelpAndExplainListsGoToHelps) {
  TitleDatabase db;
  ASSERT_TRUE(ParseTitleList(Widen("3\0The System object.\0"
                                   "5\0Memory = RAM\0\0"sv),
                             true, db)
                  .ok());
  EXPECT_EQ(db.Help(3), "The System object.");
  EXPECT_EQ(db.Help(5), "Memory = RAM");
  EXPECT_FALSE(db.Name(3).has_value());
  EXPECT_EQ(db.num_helps(), 2u);
  EXPECT_EQ(db.num_names(), 0u);
}

TEST(TitleListTest, EightBitListsInUtf8Latin1AndWindows1252) {
  TitleDatabase db;
  TitleParseReport report;
  // ANSI list: 2 in UTF-8, 4 in Latin-1, 6 with Windows-1252's 0x92 (U+2019).
  ASSERT_TRUE(ParseTitleList(Bytes("2\0Gr\xC3\xB6\xC3\x9F"
                                   "e\0"
                                   "4\0Gr\xF6\xDF"
                                   "e\0"
                                   "6\0it\x92s\0\0"sv),
                             false, db, &report)
                  .ok());
  EXPECT_THAT(report.warnings, IsEmpty());
  EXPECT_EQ(db.Name(2),
            "Gr\xC3\xB6\xC3\x9F"
            "e");
  EXPECT_EQ(db.Name(4),
            "Gr\xC3\xB6\xC3\x9F"
            "e");
  EXPECT_EQ(db.Name(6), "it\xE2\x80\x99s");
}

TEST(TitleListTest, UnusableUtf16IsNotReadAsEightBit) {
  // UTF-16LE "1234567890\0x\0\0" read as 8-bit would give five pairs (1→2, 3→4, ...).
  TitleDatabase utf16;
  ASSERT_TRUE(ParseTitleList(Widen("1234567890\0x\0\0"sv), false, utf16).ok());
  EXPECT_EQ(utf16.Name(1234567890), "x");
  EXPECT_EQ(utf16.num_names(), 1u);
  // Likewise an index out of range (2^32): an error, not pairs made of its digits.
  TitleDatabase junk;
  TitleParseReport report;
  EXPECT_FALSE(ParseTitleList(Widen("4294967296\0System\0\0"sv), false, junk, &report).ok());
  EXPECT_EQ(junk.num_names(), 0u);
  EXPECT_THAT(report.warnings,
              ElementsAre("entry 0 at byte 0: \"4294967296\" is not an index; skipped",
                          "entry 1 at byte 22: \"System\" is not an index; skipped"));
}

TEST(TitleListTest, JunkIsSkippedWithWarningsNamingEntryAndByte) {
  // Strings: 0 "2"@0, 1 "System"@2, 2 "x7"@9, 3 "4"@12, 4 "Memory"@14, 5 "10"@21; 23 bytes,
  // no empty string at the end.
  TitleDatabase db;
  TitleParseReport report;
  ASSERT_TRUE(ParseTitleList(Bytes("2\0System\0x7\0"
                                   "4\0Memory\0"
                                   "10"sv),
                             false, db, &report)
                  .ok());
  EXPECT_EQ(db.Name(2), "System");
  EXPECT_EQ(db.Name(4), "Memory");
  EXPECT_EQ(db.num_names(), 2u);
  EXPECT_THAT(report.warnings,
              ElementsAre("the list has no empty string at its end (byte 23); read up to there",
                          "entry 2 at byte 9: \"x7\" is not an index; skipped",
                          "entry 5 at byte 21: index 10 has no text; skipped"));

  // The same in UTF-16LE: every offset doubles.
  TitleDatabase wide;
  TitleParseReport wide_report;
  ASSERT_TRUE(ParseTitleList(Widen("2\0System\0x7\0"
                                   "4\0Memory\0"
                                   "10"sv),
                             false, wide, &wide_report)
                  .ok());
  EXPECT_EQ(wide, db);
  EXPECT_THAT(wide_report.warnings,
              ElementsAre("the list has no empty string at its end (byte 46); read up to there",
                          "entry 2 at byte 18: \"x7\" is not an index; skipped",
                          "entry 5 at byte 42: index 10 has no text; skipped"));
}

TEST(TitleListTest, OddByteAndDataAfterTheEndAreReported) {
  // "2\0System\0\0" is 20 bytes in UTF-16LE.
  std::vector<uint8_t> odd = Widen("2\0System\0\0"sv);
  odd.push_back('!');
  TitleDatabase db;
  TitleParseReport report;
  ASSERT_TRUE(ParseTitleList(odd, false, db, &report).ok());
  EXPECT_EQ(db.Name(2), "System");
  EXPECT_THAT(report.warnings, ElementsAre("odd trailing byte at byte 20; ignored"));

  std::vector<uint8_t> after = Widen(
      "2\0System\0\0"
      "9\0"sv);
  TitleParseReport after_report;
  ASSERT_TRUE(ParseTitleList(after, false, db, &after_report).ok());
  EXPECT_THAT(after_report.warnings,
              ElementsAre("4 bytes after the list's end at byte 20; ignored"));

  // Zero padding after the end is not junk; a long string is quoted only in part.
  std::vector<uint8_t> padded = Widen("2\0System\0\0\0\0"sv);
  TitleParseReport padded_report;
  ASSERT_TRUE(ParseTitleList(padded, false, db, &padded_report).ok());
  EXPECT_THAT(padded_report.warnings, IsEmpty());
  TitleParseReport long_report;
  ASSERT_TRUE(ParseTitleList(Bytes("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq\0"
                                   "2\0System\0\0"sv),
                             false, db, &long_report)
                  .ok());
  EXPECT_THAT(long_report.warnings,
              ElementsAre("entry 0 at byte 0: \"abcdefghijklmnopqrstuvwxyzabcdefghijklmn...\" is "
                          "not an index; skipped"));
}

TEST(TitleListTest, AByteOrderMarkIsSkipped) {
  // A list saved to a file may start with one; offsets still count it: "x" is at
  // 2 + 4 ("1") + 10 ("1847") + 4 ("2") + 14 ("System") = 34.
  TitleDatabase wide;
  TitleParseReport wide_report;
  ASSERT_TRUE(ParseTitleList(WithBom(Widen("1\0"
                                           "1847\0"
                                           "2\0System\0x\0\0"sv)),
                             false, wide, &wide_report)
                  .ok());
  EXPECT_EQ(wide.Name(1), "1847");
  EXPECT_EQ(wide.Name(2), "System");
  EXPECT_EQ(wide.num_names(), 2u);
  EXPECT_THAT(wide_report.warnings,
              ElementsAre("entry 4 at byte 34: \"x\" is not an index; skipped"));

  TitleDatabase narrow;
  TitleParseReport narrow_report;
  ASSERT_TRUE(ParseTitleList(Bytes("\xEF\xBB\xBF"
                                   "2\0Gr\xC3\xB6\xC3\x9F"
                                   "e\0\0"sv),
                             false, narrow, &narrow_report)
                  .ok());
  EXPECT_THAT(narrow_report.warnings, IsEmpty());
  EXPECT_EQ(narrow.Name(2),
            "Gr\xC3\xB6\xC3\x9F"
            "e");
  EXPECT_EQ(narrow.num_names(), 1u);
}

TEST(TitleListTest, NothingUsableIsAnError) {
  TitleDatabase db;
  Status junk = ParseTitleList(Bytes("hello\0world\0\0"sv), false, db);
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(
      junk.message(),
      "no index/text pair in the counter list (13 bytes, read as UTF-16LE and as 8-bit text)");
  Status empty = ParseTitleList({}, true, db);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.message(),
            "no index/text pair in the help list (0 bytes, read as UTF-16LE and as 8-bit text)");
  EXPECT_FALSE(ParseTitleList(Widen("\0"sv), false, db).ok());
  EXPECT_FALSE(ParseTitleList(Widen("7\0\0"sv), false, db).ok());
  EXPECT_FALSE(ParseTitleList(Widen("-2\0System\0\0"sv), false, db).ok());
  EXPECT_EQ(db.num_names(), 0u);
}

// --- Lookup and encoding ---

TEST(TitleDatabaseTest, NamesRepeatAndLookupIgnoresCaseAsDocumented) {
  TitleDatabase db;
  db.AddName(40, "Pages/sec");
  db.AddName(1514, "Pages/Sec");
  db.AddName(9784, "Requests Rejected");
  db.AddName(300, "\xC3\x89tat");  // État
  db.AddName(302,
             "a\xC3\x97"
             "b");                                      // a×b
  db.AddName(304, "\xD0\x9F\xD1\x80\xD0\xBE\xD1\x86");  // Проц
  EXPECT_THAT(db.IndexesOf("PAGES/SEC"), ElementsAre(40, 1514));
  EXPECT_THAT(db.IndexesOf("requests rejected"), ElementsAre(9784));
  EXPECT_THAT(db.IndexesOf("\xC3\xA9TAT"), ElementsAre(300));  // éTAT
  EXPECT_THAT(db.IndexesOf("a\xC3\x97"
                           "b"),
              ElementsAre(302));
  EXPECT_THAT(db.IndexesOf("a\xC3\xB7"
                           "b"),
              IsEmpty());  // ÷ is not the lower case of ×
  EXPECT_THAT(db.IndexesOf("\xD0\xBF\xD1\x80\xD0\xBE\xD1\x86"), ElementsAre(304));  // проц
  EXPECT_THAT(db.IndexesOf("Pages"), IsEmpty());
}

TEST(TitleDatabaseTest, LookupIgnoresCaseInEveryScript) {
  TitleDatabase db;
  db.AddName(238, "Процессор");
  db.AddName(6, "% загруженности процессора");
  db.AddName(1000, "Επεξεργαστής");
  db.AddName(1002, "Պրոցեսոր");
  db.AddName(1004, "პროცესორი");
  db.AddName(1006, "ＰＲＯＣＥＳＳ");
  db.AddName(1008, "Σύνολο ροής");  // final sigma
  EXPECT_THAT(db.IndexesOf("процессор"), ElementsAre(238));
  EXPECT_THAT(db.IndexesOf("ПРОЦЕССОР"), ElementsAre(238));
  EXPECT_THAT(db.IndexesOf("% ЗАГРУЖЕННОСТИ ПРОЦЕССОРА"), ElementsAre(6));
  EXPECT_THAT(db.IndexesOf("ΕΠΕΞΕΡΓΑΣΤΉΣ"), ElementsAre(1000));
  EXPECT_THAT(db.IndexesOf("ՊՐՈՑԵՍՈՐ"), ElementsAre(1002));
  EXPECT_THAT(db.IndexesOf("ᲞᲠᲝᲪᲔᲡᲝᲠᲘ"), ElementsAre(1004));
  EXPECT_THAT(db.IndexesOf("ｐｒｏｃｅｓｓ"), ElementsAre(1006));
  EXPECT_THAT(db.IndexesOf("ΣΎΝΟΛΟ ΡΟΉΣ"), ElementsAre(1008));
  EXPECT_THAT(db.IndexesOf("σύνολο ροήσ"), ElementsAre(1008));
  EXPECT_THAT(db.IndexesOf("Процесс"), IsEmpty());
  EXPECT_THAT(db.IndexesOf("process"), IsEmpty());  // full-width is not ASCII
}

TEST(TitleDatabaseTest, NamesOfOtherLengthsInUtf8FoldTogether) {
  TitleDatabase db;
  db.AddName(10, "\u212Aelvin");  // U+212A KELVIN SIGN, 3 bytes
  db.AddName(12, "kelvin");
  db.AddName(14, "Stra\u1E9Ee");  // U+1E9E capital sharp s, 3 bytes; ß has 2
  EXPECT_THAT(db.IndexesOf("KELVIN"), ElementsAre(10, 12));
  EXPECT_THAT(db.IndexesOf("straße"), ElementsAre(14));
  EXPECT_THAT(db.IndexesOf("strasse"), IsEmpty());  // simple folding only
  // Renaming to another spelling of the same name keeps the index under it.
  db.AddName(10, "KELVIN");
  EXPECT_THAT(db.IndexesOf("\u212Aelvin"), ElementsAre(10, 12));
  db.AddName(12, "Kilo");
  db.AddName(10, "Kilo");
  EXPECT_THAT(db.IndexesOf("kelvin"), IsEmpty());
  EXPECT_THAT(db.IndexesOf("\u212AILO"), ElementsAre(10, 12));
}

TEST(TitleDatabaseTest, ReplacingANameMovesItsIndex) {
  TitleDatabase db;
  db.AddName(236, "LogicalDisk");
  db.AddName(236, "Logical Disk");
  EXPECT_THAT(db.IndexesOf("LogicalDisk"), IsEmpty());
  EXPECT_THAT(db.IndexesOf("logical disk"), ElementsAre(236));
  db.AddName(236, "LOGICAL DISK");
  EXPECT_THAT(db.IndexesOf("Logical Disk"), ElementsAre(236));
  EXPECT_EQ(db.Name(236), "LOGICAL DISK");
  EXPECT_EQ(db.num_names(), 1u);
  db.AddHelp(237, "old");
  db.AddHelp(237, "new");
  EXPECT_EQ(db.Help(237), "new");
  EXPECT_EQ(db.num_helps(), 1u);
}

TEST(TitleDatabaseTest, IndexesComeBackInIncreasingOrderWhateverTheOrderAdded) {
  TitleDatabase db;
  for (uint32_t index : {9130u, 7868u, 8670u, 8046u}) db.AddName(index, "Requests Rejected");
  EXPECT_THAT(db.IndexesOf("Requests Rejected"), ElementsAre(7868, 8046, 8670, 9130));
  db.AddName(8046, "Requests Queued");
  db.AddName(8670, "requests rejected");  // same name folded: still listed once
  EXPECT_THAT(db.IndexesOf("Requests Rejected"), ElementsAre(7868, 8670, 9130));
  EXPECT_THAT(db.IndexesOf("Requests Queued"), ElementsAre(8046));
}

TEST(TitleDatabaseTest, EmptyDatabase) {
  TitleDatabase db;
  EXPECT_EQ(db.last_name_index(), 0u);
  EXPECT_EQ(db.num_names(), 0u);
  EXPECT_EQ(db.EncodeNames(), (std::vector<uint8_t>{0, 0}));
  EXPECT_EQ(db, TitleDatabase());
}

TEST(TitleDatabaseTest, EncodesTheMultiSzOfCounterAndHelp) {
  TitleDatabase db;
  db.AddName(2, "System");
  db.AddName(1, "1847");
  db.AddName(4, "");  // cannot be written: it would end the list
  db.AddHelp(3, "\xC3\xA4");
  EXPECT_EQ(db.EncodeNames(), Widen("1\0"
                                    "1847\0"
                                    "2\0System\0\0"sv));
  EXPECT_EQ(db.EncodeHelps(), Widen("3\0\xE4\0\0"sv));
}

TEST(TitleDatabaseTest, ParseOfEncodeGivesTheSameDatabase) {
  TitleDatabase db;
  db.AddName(1, "1847");
  db.AddName(2, "System");
  db.AddName(7000, "Caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80");
  db.AddName(4294967294u, "Top");
  db.AddHelp(3, "help = text\nwith a line break");
  TitleDatabase back;
  ASSERT_TRUE(ParseTitleList(db.EncodeNames(), false, back).ok());
  ASSERT_TRUE(ParseTitleList(db.EncodeHelps(), true, back).ok());
  EXPECT_EQ(back, db);
  EXPECT_EQ(back.Name(7000), "Caf\xC3\xA9 \xE6\x97\xA5 \xF0\x9F\x98\x80");
  back.AddHelp(5, "more");
  EXPECT_FALSE(back == db);
}

// --- lodctr /S dumps ---

// A small dump in Latin-1 with CR LF, as lodctr writes it ("\xE4" is ä).
constexpr std::string_view kDump =
    "\r\n\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=1846\r\nLast Help=1847\r\n\r\n"
    "[PERF_My Service]\r\nFirst Counter=1000\r\nFirst Help=1001\r\nLast Counter=1002\r\n"
    "Last Help=1003\r\n\r\n[PerfStrings_009]\r\n1=1847\r\n2=System\r\n3=The System object.\r\n"
    "1846=End Marker\r\n1847=End Marker\r\n7702=Database ==> TableClasses\r\n\r\n"
    "[PerfStrings_007]\r\n238=Prozessor\r\n234=Physikalischer Datentr\xE4ger\r\n";

void ExpectSmallDump(const Result<LodctrDump>& dump) {
  ASSERT_TRUE(dump.ok()) << dump.error();
  EXPECT_EQ(dump->base_index, 1847u);
  EXPECT_EQ(dump->last_counter, 1846u);
  EXPECT_EQ(dump->last_help, 1847u);
  ASSERT_EQ(dump->providers.size(), 1u);
  EXPECT_EQ(dump->providers[0].service, "My Service");
  EXPECT_EQ(dump->providers[0].first_counter, 1000u);
  EXPECT_EQ(dump->providers[0].first_help, 1001u);
  EXPECT_EQ(dump->providers[0].last_counter, 1002u);
  EXPECT_EQ(dump->providers[0].last_help, 1003u);
  ASSERT_EQ(dump->languages.size(), 2u);
  const TitleDatabase& english = dump->languages.at("009");
  EXPECT_EQ(english.Name(1), "1847");
  EXPECT_EQ(english.Name(2), "System");
  EXPECT_EQ(english.Help(3), "The System object.");
  EXPECT_EQ(english.Name(1846), "End Marker");
  EXPECT_EQ(english.Help(1847), "End Marker");  // odd: a help text, though the Base Index
  EXPECT_FALSE(english.Name(1847).has_value());
  EXPECT_EQ(english.Name(7702), "Database ==> TableClasses");
  EXPECT_EQ(english.num_names(), 4u);
  EXPECT_EQ(english.num_helps(), 2u);
  const TitleDatabase& german = dump->languages.at("007");
  EXPECT_EQ(german.Name(238), "Prozessor");
  EXPECT_EQ(german.Name(234), "Physikalischer Datentr\xC3\xA4ger");
}

TEST(LodctrDumpTest, ReadsEveryEncodingLodctrWrites) {
  std::string lf_utf8(kDump);
  lf_utf8.erase(std::remove(lf_utf8.begin(), lf_utf8.end(), '\r'), lf_utf8.end());
  lf_utf8.replace(lf_utf8.find('\xE4'), 1, "\xC3\xA4");
  for (const auto& [what, bytes] :
       {std::pair{"UTF-16LE with BOM", WithBom(Widen(kDump))},
        std::pair{"UTF-16LE without BOM", Widen(kDump)}, std::pair{"Latin-1", Bytes(kDump)},
        std::pair{"UTF-8 with LF", Bytes(lf_utf8)},
        std::pair{"UTF-8 with BOM", Bytes("\xEF\xBB\xBF" + lf_utf8)}}) {
    SCOPED_TRACE(what);
    TitleParseReport report;
    ExpectSmallDump(ParseLodctrDump(bytes, &report));
    EXPECT_THAT(report.warnings, IsEmpty());
  }
}

TEST(LodctrDumpTest, BareLineFeedsBelongToTheText) {
  // As in the Arabic dump: a help text with line breaks, the record ending at CR LF.
  constexpr std::string_view kText =
      "[PerfStrings_001]\r\n35=first\n    ,     second,\n    ,     third,\r\n"
      "36=Cache Faults/sec\r\n";
  for (const std::vector<uint8_t>& bytes : {Bytes(kText), WithBom(Widen(kText))}) {
    TitleParseReport report;
    Result<LodctrDump> dump = ParseLodctrDump(bytes, &report);
    ASSERT_TRUE(dump.ok()) << dump.error();
    EXPECT_THAT(report.warnings, IsEmpty());
    EXPECT_EQ(dump->languages.at("001").Help(35), "first\n    ,     second,\n    ,     third,");
    EXPECT_EQ(dump->languages.at("001").Name(36), "Cache Faults/sec");
  }
}

std::string Where(int line, int byte) {
  return "line " + std::to_string(line) + " at byte " + std::to_string(byte) + ": ";
}

TEST(LodctrDumpTest, JunkLinesAreWarningsNamingLineAndByte) {
  // Lines start at bytes 0, 11, 29, 48, 58, 68, 73, 82 (8-bit); 2 + 2 × that in UTF-16LE.
  constexpr std::string_view kText =
      "[Perflib]\r\nLast Counter=abc\r\n[PerfStrings_009]\r\n2=System\r\nnonsense\r\nx=y\r\n"
      "2=Again\r\n5=\r\n";
  for (const auto& [bytes, offsets] :
       {std::pair{Bytes(kText), std::vector<int>{11, 58, 68, 73, 82}},
        std::pair{WithBom(Widen(kText)), std::vector<int>{24, 118, 138, 148, 166}}}) {
    TitleParseReport report;
    Result<LodctrDump> dump = ParseLodctrDump(bytes, &report);
    ASSERT_TRUE(dump.ok()) << dump.error();
    EXPECT_EQ(dump->last_counter, 0u);
    EXPECT_EQ(dump->languages.at("009").Name(2), "Again");
    EXPECT_FALSE(dump->languages.at("009").Help(5).has_value());
    EXPECT_THAT(
        report.warnings,
        ElementsAre(Where(2, offsets[0]) + "Last Counter=\"abc\" is not a number; skipped",
                    Where(5, offsets[1]) + "no '=' in \"nonsense\"; skipped",
                    Where(6, offsets[2]) + "\"x\" is not an index; skipped",
                    Where(7, offsets[3]) + "index 2 repeated in [PerfStrings_009]; the later text "
                                           "is kept",
                    Where(8, offsets[4]) + "index 5 has no text; skipped"));
  }
}

TEST(LodctrDumpTest, ToleratesOddHeadersCaseAndTrailingBytes) {
  // INI names ignore case; a header without ']' still opens its section.
  std::vector<uint8_t> bytes = WithBom(
      Widen("[perflib]\r\nlast counter=7\r\n[PerfStrings_009\r\n2=System\r\n[Other]\r\n4=x\r\n"sv));
  bytes.push_back(0x41);
  TitleParseReport report;
  Result<LodctrDump> dump = ParseLodctrDump(bytes, &report);
  ASSERT_TRUE(dump.ok()) << dump.error();
  EXPECT_EQ(dump->last_counter, 7u);
  EXPECT_EQ(dump->languages.at("009").Name(2), "System");
  EXPECT_FALSE(dump->languages.at("009").Name(4).has_value());  // [Other] is not kept
  EXPECT_THAT(report.warnings,
              ElementsAre("odd trailing byte at byte 140; ignored",
                          "line 3 at byte 56: section header \"[PerfStrings_009\" has no ']'"));
}

TEST(LodctrDumpTest, NoStringsIsAnErrorAnEmptyLanguageAWarning) {
  Result<LodctrDump> text = ParseLodctrDump(Bytes("just some text\r\n2=System\r\n"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(),
            "not a lodctr /S dump: no [Perflib], [PERF_...] or [PerfStrings_...] section");
  Result<LodctrDump> numbers = ParseLodctrDump(Bytes("[Perflib]\r\nLast Counter=5\r\n"));
  ASSERT_FALSE(numbers.ok());
  EXPECT_EQ(numbers.error(),
            "lodctr /S dump has no [PerfStrings_...] section with an index=text entry");
  EXPECT_FALSE(ParseLodctrDump({}).ok());

  TitleParseReport report;
  Result<LodctrDump> one_empty =
      ParseLodctrDump(Bytes("[PerfStrings_009]\r\n[PerfStrings_007]\r\n2=System\r\n"), &report);
  ASSERT_TRUE(one_empty.ok()) << one_empty.error();
  EXPECT_EQ(one_empty->languages.at("009").num_names(), 0u);
  EXPECT_THAT(report.warnings, ElementsAre("[PerfStrings_009] holds no entry"));
}

// --- LoadTitleDatabase ---

TEST(LoadTitleDatabaseTest, TellsDumpsFromCounterListsByContent) {
  for (const std::vector<uint8_t>& bytes : {Widen(kDump), Bytes(kDump),
                                            Widen("2\0System\0"
                                                  "238\0Processor\0\0"sv),
                                            Bytes("2\0System\0"
                                                  "238\0Processor\0\0"sv)}) {
    Result<TitleDatabase> db = LoadTitleDatabase(bytes);
    ASSERT_TRUE(db.ok()) << db.error();
    EXPECT_EQ(db->Name(2), "System");
    EXPECT_FALSE(db->Name(234).has_value());  // English, not the dump's German section
  }
  // Without "009", the first language in code order.
  Result<TitleDatabase> first =
      LoadTitleDatabase(Bytes("[PerfStrings_007]\r\n2=System\r\n[PerfStrings_001]\r\n2=Sys\r\n"));
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->Name(2), "Sys");
}

TEST(LoadTitleDatabaseTest, ErrorsSayWhatIsWrong) {
  Result<TitleDatabase> neither = LoadTitleDatabase(std::vector<uint8_t>{0xFF, 0xFE, 0x01});
  ASSERT_FALSE(neither.ok());
  EXPECT_EQ(neither.error(),
            "neither a lodctr /S dump nor a \"Counter\" list: no index/text pair in the counter "
            "list (3 bytes, read as UTF-16LE and as 8-bit text)");
  Result<TitleDatabase> helps_only =
      LoadTitleDatabase(Bytes("[PerfStrings_009]\r\n3=help\r\n[PerfStrings_007]\r\n2=System\r\n"));
  ASSERT_FALSE(helps_only.ok());
  EXPECT_EQ(helps_only.error(), "the dump's [PerfStrings_009] section has no names");
  Result<TitleDatabase> broken = LoadTitleDatabase(Bytes("[Perflib]\r\nBase Index=1847\r\n"));
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error(),
            "lodctr /S dump has no [PerfStrings_...] section with an index=text entry");
}

// --- The five real title databases ---

// The bytes of `host`'s dump.
std::vector<uint8_t> ReadFixture(const std::string& host) {
  return testing::ReadSharedFixture(testing::TitleDumpFixture(host));
}

// What each file says, counted with a separate script: names are the even indexes and 1.
struct RealDump {
  const char* host;  // the file is <host>.PerfStringBackup.INI
  uint32_t last_counter;
  size_t providers;
  std::vector<std::string> languages;
  size_t english_names;
  size_t english_helps;
  uint32_t last_english_name;
  // grep -i '^[0-9]*[02468]=Bytes Received/sec\r$': "/sec" and "/Sec" spellings mixed.
  std::vector<uint32_t> bytes_received_per_sec;
};

void PrintTo(const RealDump& dump, std::ostream* os) { *os << dump.host; }

class RealTitleDatabaseTest : public ::testing::TestWithParam<RealDump> {
 protected:
  void SetUp() override {
    PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
    std::vector<uint8_t> bytes = ReadFixture(GetParam().host);
    ASSERT_FALSE(bytes.empty()) << GetParam().host;
    Result<LodctrDump> dump = ParseLodctrDump(bytes, &report_);
    ASSERT_TRUE(dump.ok()) << dump.error();
    dump_ = std::move(*dump);
  }

  LodctrDump dump_;
  TitleParseReport report_;
};

TEST_P(RealTitleDatabaseTest, PerflibAndProvidersAsTheFileSays) {
  EXPECT_THAT(report_.warnings, IsEmpty());
  EXPECT_EQ(dump_.base_index, 1847u);
  EXPECT_EQ(dump_.last_counter, GetParam().last_counter);
  EXPECT_EQ(dump_.last_help, GetParam().last_counter + 1);
  EXPECT_EQ(dump_.providers.size(), GetParam().providers);
  std::vector<std::string> languages;
  for (const auto& [code, database] : dump_.languages) languages.push_back(code);
  EXPECT_EQ(languages, GetParam().languages);
}

TEST_P(RealTitleDatabaseTest, SystemObjectsKeepTheirIndexes) {
  const TitleDatabase& english = dump_.languages.at("009");
  EXPECT_EQ(english.num_names(), GetParam().english_names);
  EXPECT_EQ(english.num_helps(), GetParam().english_helps);
  EXPECT_EQ(english.last_name_index(), GetParam().last_english_name);
  EXPECT_EQ(english.Name(1), "1847");
  EXPECT_EQ(english.Name(2), "System");
  EXPECT_EQ(english.Name(4), "Memory");
  EXPECT_EQ(english.Name(230), "Process");
  EXPECT_EQ(english.Name(232), "Thread");
  EXPECT_EQ(english.Name(234), "PhysicalDisk");
  EXPECT_EQ(english.Name(236), "LogicalDisk");
  EXPECT_EQ(english.Name(238), "Processor");
  EXPECT_EQ(english.Name(510), "Network Interface");
  EXPECT_THAT(english.Help(239), ::testing::Optional(StartsWith("The Processor performance")));
  EXPECT_THAT(english.IndexesOf("Processor"), ElementsAre(238));
  // 40 "Pages/sec" and 1514 "Pages/Sec" in every file.
  EXPECT_THAT(english.IndexesOf("pages/sec"), ElementsAre(40, 1514));
  EXPECT_THAT(english.IndexesOf("End Marker"), ElementsAre(1846));
  EXPECT_EQ(english.IndexesOf("BYTES RECEIVED/SEC"), GetParam().bytes_received_per_sec);
  EXPECT_EQ(english.Help(1847), "End Marker");
}

TEST_P(RealTitleDatabaseTest, EveryLanguageRoundTripsThroughTheRegistryFormat) {
  for (const auto& [code, database] : dump_.languages) {
    SCOPED_TRACE(code);
    TitleDatabase back;
    TitleParseReport report;
    ASSERT_TRUE(ParseTitleList(database.EncodeNames(), false, back, &report).ok());
    ASSERT_TRUE(ParseTitleList(database.EncodeHelps(), true, back, &report).ok());
    EXPECT_THAT(report.warnings, IsEmpty());
    EXPECT_TRUE(back == database);
  }
}

// Counted in each file: Last Counter, [PERF_...] sections, [PerfStrings_...] sections; and in
// [PerfStrings_009] the names, the help texts and the largest name index.
const RealDump kFiveHosts[] = {
    {"rosenste+github-upload", 10640, 31, {"009"}, 2343, 2375, 10640, {264, 898, 9078}},
    {"stu4331+EchoChain", 11604, 22, {"009"}, 2038, 2034, 11110, {264, 898, 8808}},
    {"AleksMaksymenko+performance-learning",
     11174,
     31,
     {"009"},
     2596,
     2628,
     6136,
     {264, 898, 2252, 2972}},
    {"apfeltee+tini", 9408, 32, {"007", "009"}, 2558, 2590, 9408, {264, 898, 4746}},
    {"Ashrafnet+Phone-Dialer", 3686, 18, {"001", "009"}, 1322, 1358, 3686, {264, 898, 2042, 3140}},
};

INSTANTIATE_TEST_SUITE_P(FiveHosts, RealTitleDatabaseTest, ::testing::ValuesIn(kFiveHosts),
                         [](const ::testing::TestParamInfo<RealDump>& param) {
                           std::string_view host = param.param.host;
                           return std::string(host.substr(0, host.find('+')));
                         });

TEST(RealTitleDatabaseFacts, NamesThatMapToSeveralIndexes) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> dump = ParseLodctrDump(ReadFixture("rosenste+github-upload"));
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& english = dump->languages.at("009");
  // grep '^[0-9]*[02468]=Requests Rejected\r$' and '...=No name\r$' on the UTF-8 text.
  EXPECT_THAT(english.IndexesOf("Requests Rejected"), ElementsAre(9784, 9962, 10010, 10188));
  EXPECT_EQ(english.IndexesOf("No name").size(), 91u);
  EXPECT_EQ(english.Name(7328), "Database Page Evictions (k=1)/sec");
  ASSERT_FALSE(dump->providers.empty());
  const LodctrDump::Provider& first = dump->providers[0];
  EXPECT_EQ(first.service, ".NET CLR Data");
  EXPECT_EQ(first.first_counter, 6840u);
  EXPECT_EQ(first.first_help, 6841u);
  EXPECT_EQ(first.last_counter, 6852u);
  EXPECT_EQ(first.last_help, 6853u);
}

TEST(RealTitleDatabaseFacts, GermanSectionInWindows1252) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  std::vector<uint8_t> bytes = ReadFixture("apfeltee+tini");
  Result<LodctrDump> dump = ParseLodctrDump(bytes);
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& german = dump->languages.at("007");
  EXPECT_EQ(german.Name(238), "Prozessor");
  EXPECT_EQ(german.Name(6), "Prozessorzeit (%)");
  EXPECT_EQ(german.Name(230), "Prozess");
  EXPECT_EQ(german.Name(510), "Netzwerkschnittstelle");
  EXPECT_EQ(german.Name(234), "Physikalischer Datentr\xC3\xA4ger");
  EXPECT_THAT(german.IndexesOf("PHYSIKALISCHER DATENTR\xC3\x84GER"), ElementsAre(234));
  // Eight providers' "Zurückgewiesene Anforderungen", looked up with Ü.
  EXPECT_THAT(german.IndexesOf("zur\xC3\x9C"
                               "ckgewiesene anforderungen"),
              ElementsAre(7868, 8046, 8492, 8670, 8748, 8924, 8954, 9130));
  // The file's one 0x92 byte outside the German section: U+2019 in 1629's help text.
  EXPECT_THAT(std::string(dump->languages.at("009").Help(1629).value_or("")),
              ::testing::HasSubstr("service\xE2\x80\x99s"));
  // LoadTitleDatabase takes English.
  Result<TitleDatabase> loaded = LoadTitleDatabase(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->Name(238), "Processor");
  EXPECT_EQ(loaded->Name(6), "% Processor Time");
}

TEST(RealTitleDatabaseFacts, ArabicSection) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> dump = ParseLodctrDump(ReadFixture("Ashrafnet+Phone-Dialer"));
  ASSERT_TRUE(dump.ok()) << dump.error();
  const TitleDatabase& arabic = dump->languages.at("001");
  // This host kept the English object names; the help texts and some names are Arabic.
  EXPECT_EQ(arabic.Name(238), "Processor");
  // "‏‏يتكون كائن أداء" (two right-to-left marks first).
  EXPECT_THAT(arabic.Help(239),
              ::testing::Optional(StartsWith("\xE2\x80\x8F\xE2\x80\x8F\xD9\x8A\xD8\xAA\xD9\x83\xD9"
                                             "\x88\xD9\x86 \xD9\x83\xD8\xA7\xD8\xA6\xD9\x86 \xD8"
                                             "\xA3\xD8\xAF\xD8\xA7\xD8\xA1")));
  EXPECT_EQ(arabic.Name(3374), "\xD9\x85\xD9\x84\xD9\x82\xD9\x85 SMTP");  // ملقم SMTP
  EXPECT_EQ(arabic.Help(1847),
            "\xD8\xB9\xD9\x84\xD8\xA7\xD9\x85\xD8\xA9 \xD9\x86\xD9\x87\xD8\xA7\xD9\x8A\xD8\xA9");
  // 35's help text runs over 19 lines joined by bare LFs; 36 follows it.
  std::string help35(arabic.Help(35).value_or(""));
  EXPECT_EQ(std::count(help35.begin(), help35.end(), '\n'), 18);
  EXPECT_EQ(arabic.Name(36), "Cache Faults/sec");
}

}  // namespace
}  // namespace perfhive
