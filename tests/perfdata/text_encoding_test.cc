#include "perfdata/text_encoding.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

TEST(TextEncodingTest, Utf16RoundTripKeepsNonBmpCharacters) {
  std::string text = "Proc\xC3\xA9s \xF0\x9F\x98\x80 (x86)";
  std::vector<uint8_t> utf16 = Utf8ToUtf16Le(text);
  EXPECT_EQ(utf16.size(), 2u * 15);  // 13 BMP characters + one surrogate pair
  EXPECT_EQ(Utf16LeToUtf8(utf16), text);
}

TEST(TextEncodingTest, Utf16StopsAtFirstNul) {
  const uint8_t bytes[] = {'a', 0, 'b', 0, 0, 0, 'c', 0};
  EXPECT_EQ(Utf16LeToUtf8(bytes), "ab");
}

TEST(TextEncodingTest, UnpairedSurrogateAndOddByteBecomeReplacement) {
  const uint8_t bytes[] = {0x00, 0xD8, 'x', 0, 'y'};
  EXPECT_EQ(Utf16LeToUtf8(bytes), "\xEF\xBF\xBDx\xEF\xBF\xBD");
}

TEST(TextEncodingTest, CodePage1252MapsEuroAndLatin1) {
  const uint8_t bytes[] = {0x80, 0xE9, 'a', 0, 'z'};
  EXPECT_EQ(CodePageToUtf8(bytes, 1252),
            "\xE2\x82\xAC\xC3\xA9"
            "a");
  EXPECT_EQ(CodePageToUtf8(bytes, 28591),
            "\xC2\x80\xC3\xA9"
            "a");
  EXPECT_EQ(CodePageToUtf8(bytes, 932),
            "\xEF\xBF\xBD\xEF\xBF\xBD"
            "a");
}

TEST(TextEncodingTest, InvalidUtf8BecomesReplacement) {
  EXPECT_EQ(Utf16LeToUtf8(Utf8ToUtf16Le("a\xC0\x80z")), "a\xEF\xBF\xBD\xEF\xBF\xBDz");
  // A truncated sequence is one maximal subpart: one replacement (WHATWG).
  EXPECT_EQ(Utf16LeToUtf8(Utf8ToUtf16Le("\xE2\x82")), "\xEF\xBF\xBD");
}

}  // namespace
}  // namespace perfhive
