#include "port/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace perfhive {
namespace {

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// FIPS 180-2 / NIST CSRC example values.
TEST(Sha256Test, NistAbc) {
  EXPECT_EQ(ToHex(Sha256(Bytes("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, Empty) {
  EXPECT_EQ(ToHex(Sha256({})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, TwoBlockMessage) {
  EXPECT_EQ(ToHex(Sha256(Bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, MillionAInPieces) {
  Sha256Hasher hasher;
  std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) hasher.Update(Bytes(chunk));
  EXPECT_EQ(ToHex(hasher.Finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, MillionAInOneCall) {
  std::string million(1'000'000, 'a');
  EXPECT_EQ(ToHex(Sha256(Bytes(million))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, HasherStartsOverAfterFinish) {
  Sha256Hasher hasher;
  hasher.Update(Bytes("not this"));
  (void)hasher.Finish();
  hasher.Update(Bytes("a"));
  hasher.Update(Bytes("bc"));
  EXPECT_EQ(ToHex(hasher.Finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, HexIsLowerCaseTwoDigitsPerByte) {
  std::vector<uint8_t> bytes = {0x00, 0x0F, 0xA0, 0xFF};
  EXPECT_EQ(ToHex(bytes), "000fa0ff");
}

}  // namespace
}  // namespace perfhive
