#include "wire/title_digest.h"

#include <gtest/gtest.h>

#include <string_view>

namespace perfhive {
namespace {

std::span<const uint8_t> Bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// Expected digests computed independently (Python hashlib over the encoding that
// docs/wire_protocol.md describes).
TEST(TitleDigestTest, MatchesTheDocumentedEncoding) {
  using namespace std::string_view_literals;
  EXPECT_EQ(
      ToHex(TitleDigest("009", Bytes("2\0System\0\0"sv), Bytes("3\0The System object\0\0"sv))),
      "6749088df4f3c70edf3a6aa38928f850e1c6478f60f82b9f03fe746f82ccdef9");
  EXPECT_EQ(ToHex(TitleDigest("", {}, {})),
            "650fd1c1961271823168c0435ec4d0c3609653fab6c065c49666e5878385bfd4");
}

TEST(TitleDigestTest, FieldBoundariesMatter) {
  // The same bytes split differently between the lists are another database.
  EXPECT_NE(TitleDigest("009", Bytes("ab"), Bytes("c")),
            TitleDigest("009", Bytes("a"), Bytes("bc")));
  EXPECT_NE(TitleDigest("009", Bytes("x"), {}), TitleDigest("007", Bytes("x"), {}));
}

}  // namespace
}  // namespace perfhive
