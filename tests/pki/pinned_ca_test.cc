#include "pki/pinned_ca.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "pki/certificate_authority.h"
#include "pki/fingerprint.h"

namespace perfhive {
namespace {

using std::chrono::hours;
using ::testing::HasSubstr;

// A server's CA and the chain the server sends (its certificate, then the CA's).
struct Server {
  CertificateAuthority ca;
  IssuedCertificate certificate;
};

Server MakeServer(std::chrono::seconds valid = hours(24)) {
  Result<CertificateAuthority> ca = CertificateAuthority::Create("perfhive CA", hours(240));
  EXPECT_TRUE(ca.ok()) << ca.error();
  Result<IssuedCertificate> certificate =
      ca->IssueServerCertificate({"central.example", "localhost"}, {"127.0.0.1", "::1"}, valid);
  EXPECT_TRUE(certificate.ok()) << certificate.error();
  return {std::move(ca).value(), std::move(certificate).value()};
}

TEST(PinnedCaTest, TheGenuineChainPassesForEveryNameAndAddressItHas) {
  Server server = MakeServer();
  for (const char* target : {"central.example:7470", "central.example", "localhost:7470",
                             "127.0.0.1:7470", "[::1]:7470", "::1"}) {
    Status verified =
        VerifyPinnedChain(server.certificate.certificate_pem, server.ca.Sha256(), target);
    EXPECT_TRUE(verified.ok()) << target << ": " << verified.message();
  }
}

TEST(PinnedCaTest, AServerOfAnotherCaIsRefusedNamingWhatItOffered) {
  Server genuine = MakeServer();
  Server other = MakeServer();
  Status verified =
      VerifyPinnedChain(other.certificate.certificate_pem, genuine.ca.Sha256(), "127.0.0.1:7470");
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(verified.message(), HasSubstr("include no CA with the pinned " +
                                            FormatSha256Fingerprint(genuine.ca.Sha256())));
  EXPECT_THAT(verified.message(), HasSubstr(FormatSha256Fingerprint(other.ca.Sha256())));
}

// Regression: a man in the middle can send the genuine CA's certificate (it is public) after its
// own; the pin matches a certificate of the chain, but the server's does not chain to it.
TEST(PinnedCaTest, AMiddleManSendingTheGenuineCaAfterItsOwnCertificateIsRefused) {
  Server genuine = MakeServer();
  Server middle = MakeServer();
  std::string chain = middle.certificate.certificate_pem + genuine.ca.CertificatePem();
  Status verified = VerifyPinnedChain(chain, genuine.ca.Sha256(), "central.example:7470");
  ASSERT_FALSE(verified.ok());
  EXPECT_THAT(verified.message(), HasSubstr("does not chain to the pinned CA"));
}

TEST(PinnedCaTest, APinOfTheServersOwnCertificateIsNoCaAndIsRefused) {
  Server server = MakeServer();
  Result<std::string> own = PemCertificateSha256(server.certificate.certificate_pem);
  ASSERT_TRUE(own.ok());
  Status verified = VerifyPinnedChain(server.certificate.certificate_pem, *own, "localhost");
  ASSERT_FALSE(verified.ok());
  EXPECT_THAT(verified.message(), HasSubstr("include no CA with the pinned"));
}

TEST(PinnedCaTest, ANameOrAddressTheCertificateLacksIsRefused) {
  Server server = MakeServer();
  for (const char* target : {"127.0.0.2:7470", "other.example:7470", "central.example.evil:7470"}) {
    Status verified =
        VerifyPinnedChain(server.certificate.certificate_pem, server.ca.Sha256(), target);
    ASSERT_FALSE(verified.ok()) << target;
    EXPECT_THAT(verified.message(), HasSubstr("is not for")) << target;
  }
}

TEST(PinnedCaTest, AnExpiredCertificateIsRefused) {
  Server server = MakeServer(-hours(1));
  Status verified =
      VerifyPinnedChain(server.certificate.certificate_pem, server.ca.Sha256(), "localhost");
  ASSERT_FALSE(verified.ok());
  EXPECT_THAT(verified.message(), HasSubstr("expired"));
}

TEST(PinnedCaTest, DamagedOrEmptyChainsAreRefusedNotCrashedOn) {
  Server server = MakeServer();
  std::string damaged = server.certificate.certificate_pem;
  damaged[damaged.size() / 3] ^= 0x11;
  for (const std::string& chain : {std::string(), std::string("garbage"), damaged}) {
    Status verified = VerifyPinnedChain(chain, server.ca.Sha256(), "localhost");
    EXPECT_FALSE(verified.ok());
  }
}

TEST(PinnedCaTest, CredentialsRefuseAMalformedPinAndACaGivenTwice) {
  Result<std::shared_ptr<grpc::ChannelCredentials>> malformed = ClientChannelCredentials(
      {.ca_pem = "", .ca_sha256 = "sha256:12", .certificate_pem = "", .key_pem = ""});
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(malformed.error(), HasSubstr("--ca-sha256: "));
  Server server = MakeServer();
  Result<std::shared_ptr<grpc::ChannelCredentials>> twice =
      ClientChannelCredentials({.ca_pem = server.ca.CertificatePem(),
                                .ca_sha256 = server.ca.Sha256(),
                                .certificate_pem = "",
                                .key_pem = ""});
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.error(), HasSubstr("not both"));
  EXPECT_TRUE(
      ClientChannelCredentials(
          {.ca_pem = "", .ca_sha256 = server.ca.Sha256(), .certificate_pem = "", .key_pem = ""})
          .ok());
}

}  // namespace
}  // namespace perfhive
