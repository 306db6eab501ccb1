// Text from outside perfhive as a person is shown it: controls, invisible and bidirectional
// characters and bytes that are not UTF-8 escaped, everything else as it is; long text cut at
// a character with its full size noted; columns counted as a terminal draws them.

#include "perfdata/display_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "perfdata/case_folding.h"

namespace perfhive {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Whether `text` is valid UTF-8 in which no code point is unsafe to display.
bool IsSafeUtf8(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    char32_t c = DecodeNameUnitAt(text, at);
    if (c >= kInvalidUtf8Byte || IsUnsafeToDisplay(c)) return false;
  }
  return true;
}

TEST(DisplayTextTest, PrintableTextInAnyScriptIsKeptAsItIs) {
  for (std::string_view text :
       {"web01", "\\\\web01\\Process(svchost#2)\\% Processor Time", "Müller-PC", "サーバー01",
        "Процессор", "a \"quoted\" = value", "𐐨𐐩", "", "emoji 😀", "\\x1B as typed"}) {
    EXPECT_EQ(EscapeForDisplay(text), text);
  }
}

TEST(DisplayTextTest, ControlsAreEscapedSoTheyNeitherMoveNorRecolourAnything) {
  EXPECT_EQ(EscapeForDisplay("web01\x1b[31mRED"), "web01\\x1B[31mRED");
  EXPECT_EQ(EscapeForDisplay("evil\nlevel=error msg=forged"), "evil\\nlevel=error msg=forged");
  EXPECT_EQ(EscapeForDisplay("line\r\nnext\ttab"), "line\\r\\nnext\\ttab");
  EXPECT_EQ(EscapeForDisplay(std::string("nul\0bell\a", 9)), "nul\\x00bell\\x07");
  EXPECT_EQ(EscapeForDisplay("del\x7F"), "del\\x7F");
  EXPECT_EQ(EscapeForDisplay("csi\xC2\x9B"
                             "31m"),
            "csi\\u{009B}31m");  // C1 CSI, U+009B
  EXPECT_EQ(EscapeForDisplay("nel\xC2\x85"), "nel\\u{0085}");
}

TEST(DisplayTextTest, InvisibleAndBidirectionalCharactersAreEscaped) {
  EXPECT_EQ(EscapeForDisplay("web\u200B01"), "web\\u{200B}01");           // zero-width space
  EXPECT_EQ(EscapeForDisplay("\u202Eexe.txt"), "\\u{202E}exe.txt");       // right-to-left override
  EXPECT_EQ(EscapeForDisplay("a\u2066b\u2069"), "a\\u{2066}b\\u{2069}");  // isolates
  EXPECT_EQ(EscapeForDisplay("\uFEFFbom"), "\\u{FEFF}bom");
  EXPECT_EQ(EscapeForDisplay("line\u2028sep"), "line\\u{2028}sep");
  EXPECT_EQ(EscapeForDisplay("soft\u00ADhyphen"), "soft\\u{00AD}hyphen");
  EXPECT_EQ(EscapeForDisplay("tag\U000E0041"), "tag\\u{E0041}");
  EXPECT_EQ(EscapeForDisplay("\xEF\xBF\xBF"), "\\u{FFFF}");
}

TEST(DisplayTextTest, BytesThatAreNotUtf8AreEscapedOneByOne) {
  EXPECT_EQ(EscapeForDisplay("a\xFF"
                             "b"),
            "a\\xFFb");
  EXPECT_EQ(EscapeForDisplay("\xC3"), "\\xC3");                    // truncated é
  EXPECT_EQ(EscapeForDisplay("\xC3\x28"), "\\xC3(");               // a lead byte before ASCII
  EXPECT_EQ(EscapeForDisplay("\xC1\x81"), "\\xC1\\x81");           // overlong 'A'
  EXPECT_EQ(EscapeForDisplay("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a surrogate
  EXPECT_EQ(EscapeForDisplay("\x80\x80"), "\\x80\\x80");
}

TEST(DisplayTextTest, EscapedTextIsAlwaysSafeUtf8) {
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte += static_cast<char>(b);
  for (std::string_view text :
       {std::string_view(every_byte), std::string_view("\xE2\x80\xAE\xF0\x9F\x98"),
        std::string_view("\xF4\x90\x80\x80 above U+10FFFF")}) {
    std::string shown = EscapeForDisplay(text);
    EXPECT_TRUE(IsSafeUtf8(shown)) << shown;
    EXPECT_EQ(shown.find('\n'), std::string::npos);
  }
}

TEST(DisplayTextTest, UnsafeCodePointsAreTheControlsAndInvisibleOnes) {
  for (char32_t c :
       {0x00,   0x1B,   0x1F,   0x7F,   0x80,   0x9F,   0xAD,   0x61C,  0x180E, 0x200B,
        0x200F, 0x2028, 0x202E, 0x2060, 0x206F, 0xFEFF, 0xFFF9, 0xFFFE, 0xFFFF, 0xE0001}) {
    EXPECT_TRUE(IsUnsafeToDisplay(c)) << std::hex << static_cast<unsigned>(c);
  }
  for (char32_t c : {0x20, 0x41, 0x7E, 0xA0, 0xFC, 0x3042, 0x2010, 0x2030, 0xFFFD, 0x1F600}) {
    EXPECT_FALSE(IsUnsafeToDisplay(c)) << std::hex << static_cast<unsigned>(c);
  }
}

TEST(DisplayTextTest, TruncationKeepsShortTextAndNotesTheFullSizeOfLongText) {
  EXPECT_EQ(TruncateUtf8("web01", 5), "web01");
  EXPECT_EQ(TruncateUtf8("", 0), "");
  EXPECT_EQ(TruncateUtf8("abcdef", 3), "abc ... (6 bytes in all)");
  std::string huge(8 << 20, 'a');
  std::string cut = TruncateUtf8(huge, 64);
  EXPECT_EQ(cut, std::string(64, 'a') + " ... (8388608 bytes in all)");
  EXPECT_LE(cut.size(), 64 + kTruncationNoteBytes);
  EXPECT_LE(TruncateUtf8(huge, 0).size(), kTruncationNoteBytes);
}

TEST(DisplayTextTest, TruncationNeverCutsACharacter) {
  // "Müller" is M, ü (2 bytes), l, l, e, r; "サーバー" is four 3-byte characters; 😀 is 4 bytes.
  EXPECT_EQ(TruncateUtf8("Müller", 2), "M ... (7 bytes in all)");
  EXPECT_EQ(TruncateUtf8("Müller", 3), "Mü ... (7 bytes in all)");
  for (size_t limit = 0; limit < 12; ++limit) {
    std::string cut = TruncateUtf8("サーバー", limit);
    EXPECT_THAT(cut, StartsWith(std::string("サーバー").substr(0, limit / 3 * 3))) << limit;
    EXPECT_THAT(cut, EndsWith(" ... (12 bytes in all)"));
    EXPECT_TRUE(IsSafeUtf8(cut)) << limit;
  }
  for (size_t limit = 0; limit < 4; ++limit) {
    EXPECT_EQ(TruncateUtf8("😀!", limit), " ... (5 bytes in all)") << limit;
  }
  EXPECT_EQ(TruncateUtf8("😀!", 4), "😀 ... (5 bytes in all)");
}

TEST(DisplayTextTest, TruncationOfTextThatIsNotUtf8BacksUpNoFurtherThanACharacter) {
  std::string text = "a" + std::string(100, '\x80');
  EXPECT_EQ(TruncateUtf8(text, 50).size(), 47 + std::string(" ... (101 bytes in all)").size());
}

TEST(DisplayTextTest, WidthCountsColumnsNotBytes) {
  EXPECT_EQ(DisplayWidth(""), 0u);
  EXPECT_EQ(DisplayWidth("web01"), 5u);
  EXPECT_EQ(DisplayWidth("Müller-PC"), 9u);
  EXPECT_EQ(DisplayWidth("サーバー01"), 10u);  // four wide characters and two digits
  EXPECT_EQ(DisplayWidth("ｗｅｂ"), 6u);       // fullwidth Latin
  EXPECT_EQ(DisplayWidth("e\u0301"), 1u);      // e and a combining acute accent
  EXPECT_EQ(DisplayWidth("😀"), 2u);
  EXPECT_EQ(DisplayWidth(EscapeForDisplay("a\x1b")), 5u);  // "a\x1B"
}

}  // namespace
}  // namespace perfhive
