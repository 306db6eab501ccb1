#include "codec/zstd_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <string>
#include <vector>

namespace perfhive {
namespace {

using ::testing::HasSubstr;

std::vector<uint8_t> Text(const std::string& text) { return {text.begin(), text.end()}; }

TEST(ZstdCodecTest, RoundTrip) {
  std::vector<uint8_t> data = Text(std::string(10000, 'x') + "tail");
  std::vector<uint8_t> frame = ZstdCompress(data, 3);
  EXPECT_LT(frame.size(), 100u);
  Result<std::vector<uint8_t>> back = ZstdDecompress(frame, data.size());
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, data);
}

TEST(ZstdCodecTest, EmptyContent) {
  Result<std::vector<uint8_t>> back = ZstdDecompress(ZstdCompress({}, 3), 0);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(back->empty());
}

TEST(ZstdCodecTest, RefusesContentOverTheLimitBeforeAllocating) {
  // 1 GiB of zeros compresses to a few kilobytes; the limit refuses it from the header alone.
  std::vector<uint8_t> data(1 << 20, 0);
  std::vector<uint8_t> frame = ZstdCompress(data, 3);
  Result<std::vector<uint8_t>> back = ZstdDecompress(frame, (1 << 20) - 1);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.error(), HasSubstr("declares 1048576 bytes of content, more than the limit of "
                                      "1048575"));
}

TEST(ZstdCodecTest, RefusesFramesWithoutDeclaredSize) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0);
  std::vector<uint8_t> data = Text("hello hello hello");
  std::vector<uint8_t> frame(ZSTD_compressBound(data.size()));
  // A streaming compression that never pledged its size leaves the size out of the header.
  ZSTD_outBuffer out{frame.data(), frame.size(), 0};
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  ZSTD_compressStream2(context, &out, &in, ZSTD_e_end);
  ZSTD_freeCCtx(context);
  frame.resize(out.pos);
  Result<std::vector<uint8_t>> back = ZstdDecompress(frame, 1000);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.error(), HasSubstr("does not declare the content size"));
}

TEST(ZstdCodecTest, RefusesTrailingBytes) {
  std::vector<uint8_t> frame = ZstdCompress(Text("abc"), 3);
  size_t frame_size = frame.size();
  frame.push_back(0);
  frame.push_back(0);
  Result<std::vector<uint8_t>> back = ZstdDecompress(frame, 1000);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.error(), HasSubstr("2 bytes after the end of the frame at byte " +
                                      std::to_string(frame_size)));
}

TEST(ZstdCodecTest, TruncatedAndCorruptFramesAreErrors) {
  std::vector<uint8_t> data = Text(std::string(5000, 'a') + std::string(5000, 'b'));
  std::vector<uint8_t> frame = ZstdCompress(data, 3);
  for (size_t length = 0; length < frame.size(); ++length) {
    EXPECT_FALSE(ZstdDecompress(std::span(frame).first(length), data.size()).ok()) << length;
  }
  // Flip every bit of the body in turn: the content checksum or the decoder catches each.
  for (size_t at = 6; at < frame.size(); ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> corrupt = frame;
      corrupt[at] ^= static_cast<uint8_t>(1 << bit);
      Result<std::vector<uint8_t>> back = ZstdDecompress(corrupt, data.size());
      if (back.ok()) {
        EXPECT_EQ(*back, data) << at << ":" << bit;
      }
    }
  }
}

TEST(ZstdCodecTest, PrefixMustBeTheSame) {
  std::vector<uint8_t> prefix = Text("the quick brown fox jumps over the lazy dog, twice");
  std::vector<uint8_t> data = Text("the quick brown fox jumps over the lazy dog, thrice");
  std::vector<uint8_t> frame = ZstdCompress(data, 3, prefix);
  Result<std::vector<uint8_t>> back = ZstdDecompress(frame, data.size(), prefix);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, data);
  std::vector<uint8_t> other = Text("THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG, twice");
  Result<std::vector<uint8_t>> wrong = ZstdDecompress(frame, data.size(), other);
  EXPECT_FALSE(wrong.ok());  // the content checksum differs
}

}  // namespace
}  // namespace perfhive
