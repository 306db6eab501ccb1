#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sources/msrrp/ndr.h"

namespace perfhive {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

TEST(NdrWriter, UnicodeStringCountsBytesWithTheNulAndDefersTheBufferBehindIt) {
  ndr::Writer out;
  out.U8(0xAA);  // misaligns, so the string's first field needs padding
  out.UnicodeString("Gl");
  const std::vector<uint8_t> expected = {
      0xAA, 0,                // the byte, one pad byte to 2
      6,    0, 6,   0,        // Length, MaximumLength: 3 characters with the NUL, in bytes
      0,    0,                // pad to 4 for the referent
      4,    0, 0,   0,        // referent id (non-zero)
      3,    0, 0,   0,        // max count (characters)
      0,    0, 0,   0,        // offset
      3,    0, 0,   0,        // actual count
      'G',  0, 'l', 0, 0, 0,  // UTF-16LE with the NUL
      0,    0,                // pad to 4
  };
  EXPECT_THAT(out.bytes(), ElementsAreArray(expected));
}

TEST(NdrWriter, UnicodeStringEncodesNonAsciiAsUtf16) {
  ndr::Writer out;
  out.UnicodeString("\xC3\xA9");  // é
  const std::vector<uint8_t>& b = out.bytes();
  ASSERT_EQ(b.size(), 24u);
  EXPECT_EQ(b[0], 4);  // one character and the NUL
  EXPECT_EQ(b[20], 0xE9);
  EXPECT_EQ(b[21], 0x00);
}

TEST(NdrReader, AlignsFromTheStubStartAndReadsLittleEndian) {
  // 7, one pad byte, 0x1234, then 0x12345678 at the next multiple of 4.
  const std::vector<uint8_t> stub = {7, 0xFF, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12};
  ndr::Reader in(stub, "test");
  EXPECT_EQ(in.U8("a"), 7);
  EXPECT_EQ(in.U16("b"), 0x1234);
  EXPECT_EQ(in.U32("c"), 0x12345678u);
  EXPECT_TRUE(in.ok());
  EXPECT_EQ(in.remaining(), 0u);
}

TEST(NdrReader, ReadingPastTheEndNamesTheFieldAndOffsetAndSticks) {
  const std::vector<uint8_t> stub = {1, 0, 0, 0, 2, 0};
  ndr::Reader in(stub, "Some reply");
  EXPECT_EQ(in.U32("first"), 1u);
  EXPECT_EQ(in.U32("second"), 0u);
  EXPECT_EQ(in.U32("third"), 0u);
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(in.status().message(),
            "Some reply: second at byte 4: needs 4 bytes, the stub has 2 left");
}

TEST(NdrReader, ConformantVaryingArrayChecksItsCounts) {
  struct Case {
    std::vector<uint8_t> stub;
    const char* problem;
  };
  const Case cases[] = {
      {{8, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0}, "actual count 9 exceeds max count 8"},
      {{8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}, "offset 1 is not 0"},
      {{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}, "max count 16777216 is above the limit 1024"},
      {{8, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1, 2}, "needs 4 bytes, the stub has 2 left"},
  };
  for (const Case& c : cases) {
    ndr::Reader in(c.stub, "r");
    EXPECT_TRUE(in.ConformantVaryingBytes("data", 1024).empty());
    EXPECT_THAT(in.status().message(), HasSubstr(c.problem));
    EXPECT_THAT(in.status().message(), HasSubstr("data at byte"));
  }
  const std::vector<uint8_t> good = {8, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'};
  ndr::Reader in(good, "r");
  std::span<const uint8_t> bytes = in.ConformantVaryingBytes("data", 1024);
  EXPECT_TRUE(in.ok());
  EXPECT_THAT(std::vector<uint8_t>(bytes.begin(), bytes.end()),
              ElementsAreArray(std::vector<uint8_t>{'a', 'b', 'c'}));
}

}  // namespace
}  // namespace perfhive
