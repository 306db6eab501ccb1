// Case folding of names as PDH compares them: ASCII and the Latin-1 letters, nothing else.

#include "perfdata/case_folding.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

TEST(CaseFoldingTest, AsciiAndLatin1LettersFold) {
  EXPECT_TRUE(EqualIgnoringCase("% Processor Time", "% PROCESSOR time"));
  EXPECT_TRUE(EqualIgnoringCase("\xC3\x89tat", "\xC3\xA9TAT"));  // État, éTAT
  EXPECT_TRUE(EqualIgnoringCase("\xC3\x9E", "\xC3\xBE"));        // Þ, þ
  EXPECT_FALSE(EqualIgnoringCase("\xC3\x97", "\xC3\xB7"));       // ×, ÷: not letters
  EXPECT_FALSE(EqualIgnoringCase("\xC3\x9F", "\xC3\xBF"));       // ß, ÿ: not a pair
  EXPECT_FALSE(EqualIgnoringCase("\xD0\x90", "\xD0\xB0"));       // Cyrillic А, а: exact
  EXPECT_FALSE(EqualIgnoringCase("a\x89", "a\xA9"));             // only after the lead byte C3
  EXPECT_FALSE(EqualIgnoringCase("ab", "abc"));
  EXPECT_FALSE(EqualIgnoringCase("[", "{"));  // '[' is 'Z' + 1, not a letter
}

TEST(CaseFoldingTest, EqualNamesHashAlike) {
  EXPECT_EQ(HashIgnoringCase("SvcHost"), HashIgnoringCase("svchost"));
  EXPECT_EQ(HashIgnoringCase("\xC3\x80"), HashIgnoringCase("\xC3\xA0"));  // À, à
  EXPECT_NE(HashIgnoringCase("svchost"), HashIgnoringCase("svchosu"));
  EXPECT_EQ(FoldNameByte('Q', 0), 'q');
  EXPECT_EQ(FoldNameByte(0x80, 0xC3), 0xA0);
  EXPECT_EQ(FoldNameByte(0x80, 0xC4), 0x80);
}

}  // namespace
}  // namespace perfhive
