#include "base/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perfhive {
namespace {

TEST(VarintTest, WritesTheBytesLeb128Specifies) {
  // Encodings from the LEB128 definition (DWARF 5, section 7.6).
  std::vector<uint8_t> out;
  PutVarint64(out, 2);
  PutVarint64(out, 127);
  PutVarint64(out, 128);
  PutVarint64(out, 300);
  EXPECT_EQ(out, (std::vector<uint8_t>{0x02, 0x7f, 0x80, 0x01, 0xac, 0x02}));
  EXPECT_EQ(VarintSize(127), 1u);
  EXPECT_EQ(VarintSize(128), 2u);
  EXPECT_EQ(VarintSize(UINT64_MAX), 10u);
}

TEST(VarintTest, ReadsTheLargestNumberOfEachWidth) {
  const std::vector<uint8_t> max64 = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  size_t at = 0;
  uint64_t value = 0;
  ASSERT_EQ(GetVarint(max64, at, 64, value), VarintRead::kOk);
  EXPECT_EQ(value, UINT64_MAX);
  EXPECT_EQ(at, 10u);

  const std::vector<uint8_t> max32 = {0xff, 0xff, 0xff, 0xff, 0x0f};
  at = 0;
  ASSERT_EQ(GetVarint(max32, at, 32, value), VarintRead::kOk);
  EXPECT_EQ(value, UINT32_MAX);
}

TEST(VarintTest, RefusesANumberWiderThanAsked) {
  // 2^32 fits 64 bits but not 32; the reader stops after its last byte.
  const std::vector<uint8_t> two_to_32 = {0x80, 0x80, 0x80, 0x80, 0x10};
  size_t at = 0;
  uint64_t value = 0;
  EXPECT_EQ(GetVarint(two_to_32, at, 32, value), VarintRead::kTooLong);
  EXPECT_EQ(at, 5u);
  at = 0;
  ASSERT_EQ(GetVarint(two_to_32, at, 64, value), VarintRead::kOk);
  EXPECT_EQ(value, uint64_t{1} << 32);

  // The tenth byte of a 64-bit number may only hold its top bit.
  const std::vector<uint8_t> too_wide = {0xff, 0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xff, 0x02};
  at = 0;
  EXPECT_EQ(GetVarint(too_wide, at, 64, value), VarintRead::kTooLong);
  // Eleven bytes: continuation past the tenth.
  const std::vector<uint8_t> endless(11, 0x80);
  at = 0;
  EXPECT_EQ(GetVarint(endless, at, 64, value), VarintRead::kTooLong);
}

TEST(VarintTest, SaysWhenTheBytesEndInsideANumber) {
  const std::vector<uint8_t> cut = {0xac};
  size_t at = 0;
  uint64_t value = 0;
  EXPECT_EQ(GetVarint(cut, at, 64, value), VarintRead::kTruncated);
  EXPECT_EQ(at, 1u);
}

TEST(VarintTest, ByteReaderKeepsTheFirstErrorAndNamesIt) {
  const std::vector<uint8_t> bytes = {0xac, 0x02, 0x05, 0x80};
  ByteReader reader(bytes, "test block");
  EXPECT_EQ(reader.Varint64("a count"), 300u);
  EXPECT_EQ(reader.Bounded(4, "a width"), 0u);  // 5 > 4
  EXPECT_EQ(reader.Varint64("a size"), 0u);     // not read after the first error
  EXPECT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().message(), "test block: a width is 5, more than 4 at byte 3");
}

}  // namespace
}  // namespace perfhive
