// Case folding of names as Windows compares them: Unicode simple case folding in every script,
// through UTF-8 of any length, bytes that are not UTF-8 standing for themselves.

#include "perfdata/case_folding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace perfhive {
namespace {

// Spellings that are the same name ignoring case.
const std::vector<std::pair<std::string_view, std::string_view>> kSameNames = {
    {"% Processor Time", "% PROCESSOR time"},
    {"État", "éTAT"},
    {"Þorn", "þORN"},
    {"Процессор", "пРОЦЕССОР"},                    // Cyrillic
    {"Ёмкость", "ёМКОСТЬ"},                        // Cyrillic Ё (U+0401), outside А..я
    {"Επεξεργαστής", "ΕΠΕΞΕΡΓΑΣΤΉΣ"},              // Greek, accented Ή (U+0389)
    {"Պրոցեսոր", "ՊՐՈՑԵՍՈՐ"},                      // Armenian
    {"პროცესორი", "ᲞᲠᲝᲪᲔᲡᲝᲠᲘ"},  // Georgian Mkhedruli, Mtavruli
    {"ⴀⴁ", "ႠႡ"},                                  // Georgian Nuskhuri, Asomtavruli
    {"ｐｒｏｃｅｓｓ", "ＰＲＯＣＥＳＳ"},          // full-width Latin
    {"𐐨𐐩", "𐐀𐐁"},                                  // Deseret, 4 bytes each
    {"ꭰꭱ", "ᎠᎡ"},                              // Cherokee folds to the capitals
    {"οδος", "ΟΔΟΣ"},                              // final sigma: Σ folds to σ ...
    {"οδος", "οδοσ"},                              // ... and so does ς
    {"\u212Aelvin", "kelvin"},                     // U+212A KELVIN SIGN, 3 bytes, and 'k'
    {"\u212A", "K"},
    {"\u1E9E", "ß"},  // U+1E9E capital sharp s, 3 bytes, and 2
    {"\u2126", "ω"},  // U+2126 OHM SIGN
    {"\u017F", "S"},  // U+017F long s, 2 bytes, and 1
    {"Ява \u212A", "ЯВА k"},
    {"ЯвА", "Ява"},  // the same bytes up to the middle of the last letter
    {"", ""},
    {"\xC3", "\xC3"},  // invalid bytes equal themselves
    {"A\xFF-B", "a\xFF-b"},
};

// Names that differ ignoring case.
const std::vector<std::pair<std::string_view, std::string_view>> kDifferentNames = {
    {"×", "÷"},   // not letters
    {"ß", "ÿ"},   // not a pair
    {"ß", "ss"},  // full folding only, not simple
    {"İ", "i"},   // U+0130 folds only in Turkic (status T) and fully (F)
    {"ﬁ", "fi"},  // a ligature folds only fully
    {"ab", "abc"},
    {"abc", "ab"},
    {"[", "{"},  // '[' is 'Z' + 1, not a letter
    {"Ява", "Яву"},
    {"\xC3", "Ã"},                     // a lone lead byte is not the code point of its value
    {"a\x89", "a\xA9"},                // continuation bytes without a lead
    {"\xC1\x81", "a"},                 // overlong 'A'
    {"\xC1\x81", "\xC1\xA1"},          // ... whose bytes are not folded as if it were one
    {"\xED\xA0\x80", "\xED\xA0\x81"},  // surrogates are invalid, compared byte by byte
    {"\xD0", "\xD0\xB0"},              // truncated а
    {"Я\xD0", "я\xD0\xB0"},
    {"ЯвА", "Явб"},  // the same bytes up to the middle of the last letter
};

TEST(CaseFoldingTest, NamesInEveryScriptEqualIgnoringCase) {
  for (auto [a, b] : kSameNames) {
    EXPECT_TRUE(EqualIgnoringCase(a, b)) << a << " / " << b;
    EXPECT_TRUE(EqualIgnoringCase(b, a)) << b << " / " << a;
  }
  for (auto [a, b] : kDifferentNames) {
    EXPECT_FALSE(EqualIgnoringCase(a, b)) << a << " / " << b;
    EXPECT_FALSE(EqualIgnoringCase(b, a)) << b << " / " << a;
  }
}

TEST(CaseFoldingTest, EqualNamesHashAlike) {
  for (auto [a, b] : kSameNames) EXPECT_EQ(HashIgnoringCase(a), HashIgnoringCase(b)) << a;
  EXPECT_NE(HashIgnoringCase("svchost"), HashIgnoringCase("svchosu"));
  EXPECT_NE(HashIgnoringCase("Ява"), HashIgnoringCase("Яву"));
}

TEST(CaseFoldingTest, FoldedNamesAreEqualExactlyWhenNamesAreEqualIgnoringCase) {
  EXPECT_EQ(FoldCase("ПРОЦЕССОР \u212A"), "процессор k");
  EXPECT_EQ(FoldCase("ΟΔΟΣ ὈΔΌΣ"), "οδοσ ὀδόσ");
  EXPECT_EQ(FoldCase("WEB\xFF\xC3-"), "web\xFF\xC3-");
  EXPECT_EQ(FoldCase(""), "");
  for (auto [a, b] : kSameNames) EXPECT_EQ(FoldCase(a), FoldCase(b)) << a;
  for (auto [a, b] : kDifferentNames) EXPECT_NE(FoldCase(a), FoldCase(b)) << a;
}

TEST(CaseFoldingTest, FoldsCodePointsAsCaseFoldingTxtSays) {
  EXPECT_EQ(FoldNameUnit(U'Q'), U'q');
  EXPECT_EQ(FoldNameUnit(U'q'), U'q');
  EXPECT_EQ(FoldNameUnit(0x00C0), 0x00E0u);    // À
  EXPECT_EQ(FoldNameUnit(0x00D7), 0x00D7u);    // ×
  EXPECT_EQ(FoldNameUnit(0x0410), 0x0430u);    // Cyrillic А
  EXPECT_EQ(FoldNameUnit(0x03A3), 0x03C3u);    // Σ
  EXPECT_EQ(FoldNameUnit(0x03C2), 0x03C3u);    // ς
  EXPECT_EQ(FoldNameUnit(0x0531), 0x0561u);    // Armenian Ա
  EXPECT_EQ(FoldNameUnit(0x10A0), 0x2D00u);    // Georgian Ⴀ
  EXPECT_EQ(FoldNameUnit(0x1C90), 0x10D0u);    // Georgian Ა
  EXPECT_EQ(FoldNameUnit(0x13F8), 0x13F0u);    // Cherokee ᏸ
  EXPECT_EQ(FoldNameUnit(0xFF21), 0xFF41u);    // full-width Ａ
  EXPECT_EQ(FoldNameUnit(0x212A), U'k');       // KELVIN SIGN
  EXPECT_EQ(FoldNameUnit(0x1E9E), 0x00DFu);    // ẞ
  EXPECT_EQ(FoldNameUnit(0xA7AE), 0x026Au);    // Ɪ
  EXPECT_EQ(FoldNameUnit(0x10400), 0x10428u);  // Deseret 𐐀
  EXPECT_EQ(FoldNameUnit(0x1E900), 0x1E922u);  // Adlam 𞤀, the last block that folds
  EXPECT_EQ(FoldNameUnit(0x0130), 0x0130u);    // İ: no simple folding
  EXPECT_EQ(FoldNameUnit(0x10FFFF), 0x10FFFFu);
  EXPECT_EQ(FoldNameUnit(kInvalidUtf8Byte + 'A'), kInvalidUtf8Byte + 'A');
}

TEST(CaseFoldingTest, DecodesUtf8AndTakesInvalidBytesOneByOne) {
  struct Case {
    std::string_view text;
    char32_t unit;
    size_t length;
  };
  const Case cases[] = {
      {"a", U'a', 1},
      {"é", 0xE9, 2},
      {"€", 0x20AC, 3},
      {"\xF0\x9F\x98\x80", 0x1F600, 4},
      {"\xF4\x8F\xBF\xBF", 0x10FFFF, 4},
      {"\xF4\x90\x80\x80", kInvalidUtf8Byte + 0xF4, 1},  // above U+10FFFF
      {"\xE0\x9F\xBF", kInvalidUtf8Byte + 0xE0, 1},      // overlong
      {"\xF0\x8F\xBF\xBF", kInvalidUtf8Byte + 0xF0, 1},  // overlong
      {"\xC0\xAF", kInvalidUtf8Byte + 0xC0, 1},          // overlong
      {"\xED\xA0\x80", kInvalidUtf8Byte + 0xED, 1},      // surrogate
      {"\xE2\x82-", kInvalidUtf8Byte + 0xE2, 1},         // truncated
      {"\xE2\x82", kInvalidUtf8Byte + 0xE2, 1},          // truncated at the end
      {"\x80", kInvalidUtf8Byte + 0x80, 1},
      {"\xFF", kInvalidUtf8Byte + 0xFF, 1},
  };
  for (const Case& c : cases) {
    size_t at = 0;
    EXPECT_EQ(DecodeNameUnitAt(c.text, at), c.unit) << ::testing::PrintToString(c.text);
    EXPECT_EQ(at, c.length) << ::testing::PrintToString(c.text);
  }
  std::string_view text = "x\u212A";
  size_t at = 1;
  EXPECT_EQ(NextFoldedNameUnit(text, at), U'k');
  EXPECT_EQ(at, 4u);
}

TEST(CaseFoldingTest, ContainersLookUpViewsWithoutCopies) {
  std::unordered_set<std::string, NameHashIgnoringCase, NameEqualIgnoringCase> names = {
      "Процессор", "Prozessor"};
  EXPECT_TRUE(names.contains(std::string_view("ПРОЦЕССОР")));
  EXPECT_TRUE(names.contains(std::string_view("PROZESSOR")));
  EXPECT_FALSE(names.contains(std::string_view("Процесс")));
  EXPECT_FALSE(names.insert("prozessor").second);
}

}  // namespace
}  // namespace perfhive
