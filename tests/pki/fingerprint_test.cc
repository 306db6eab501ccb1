#include "pki/fingerprint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhive {
namespace {

using ::testing::HasSubstr;

constexpr char kHex[] = "0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6";

TEST(FingerprintTest, AcceptsTheFormsPeopleCopy) {
  for (const char* text :
       {kHex, "sha256:0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6",
        "SHA256:0C4E9B0B49B5A9E668DA9D86356CAA784F8350CACDD1033F8548C83FEFA921C6",
        // As `openssl x509 -fingerprint -sha256` prints it, after "sha256 Fingerprint=".
        "0C:4E:9B:0B:49:B5:A9:E6:68:DA:9D:86:35:6C:AA:78:4F:83:50:CA:CD:D1:03:3F:85:48:C8:3F:EF:"
        "A9:21:C6"}) {
    Result<std::string> parsed = ParseSha256Fingerprint(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error();
    EXPECT_EQ(*parsed, kHex) << text;
  }
  EXPECT_EQ(FormatSha256Fingerprint(kHex), std::string("sha256:") + kHex);
}

TEST(FingerprintTest, RefusesWhatIsNoFingerprintSayingWhatOneLooksLike) {
  for (const char* text :
       {"", "sha256:", "0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c",  // 63
        "0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6a",               // 65
        "0g4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6",
        "0:c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6",
        "md5:0c4e9b0b49b5a9e668da9d86356caa784f8350cacdd1033f8548c83fefa921c6"}) {
    Result<std::string> parsed = ParseSha256Fingerprint(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_THAT(parsed.error(), HasSubstr("is not a SHA-256 fingerprint")) << text;
    EXPECT_THAT(parsed.error(), HasSubstr("perfhive-server init printed"));
  }
}

}  // namespace
}  // namespace perfhive
