#include "pki/certificate_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "pki/certificate_authority.h"

namespace perfhive {
namespace {

using std::chrono::hours;
using ::testing::HasSubstr;

TEST(CertificateRequestTest, TheCaIssuesAClientCertificateNamingTheHostForTheRequestersKey) {
  Result<CertificateAuthority> ca = CertificateAuthority::Create("perfhive CA", hours(240));
  ASSERT_TRUE(ca.ok()) << ca.error();
  Result<KeyAndRequest> made = MakeKeyAndRequest("web01");
  ASSERT_TRUE(made.ok()) << made.error();
  EXPECT_THAT(made->request_pem, HasSubstr("-----BEGIN CERTIFICATE REQUEST-----"));
  EXPECT_THAT(made->key_pem, HasSubstr("-----BEGIN PRIVATE KEY-----"));

  // The CN is the host the server enrolls, not what the request says.
  Result<IssuedCertificate> issued =
      ca->IssueClientCertificate(made->request_pem, "WEB01", hours(24 * 90));
  ASSERT_TRUE(issued.ok()) << issued.error();
  EXPECT_TRUE(issued->key_pem.empty()) << "the key stays with the requester";
  Result<CertificateSubject> subject = DescribeCertificate(issued->certificate_pem);
  ASSERT_TRUE(subject.ok()) << subject.error();
  EXPECT_EQ(subject->common_name, "WEB01");
  // Lowercase hex (not a regular expression: GoogleTest's on Windows has no classes).
  EXPECT_FALSE(subject->serial.empty());
  EXPECT_EQ(subject->serial.find_first_not_of("0123456789abcdef"), std::string::npos)
      << subject->serial;
  auto left = subject->not_after - std::chrono::system_clock::now();
  EXPECT_GT(left, hours(24 * 89));
  EXPECT_LT(left, hours(24 * 91));

  // Two certificates, two serials.
  Result<IssuedCertificate> second =
      ca->IssueClientCertificate(made->request_pem, "WEB01", hours(1));
  ASSERT_TRUE(second.ok());
  EXPECT_NE(DescribeCertificate(second->certificate_pem)->serial, subject->serial);
}

TEST(CertificateRequestTest, ARequestNotSignedByItsOwnKeyOrDamagedIsRefused) {
  Result<CertificateAuthority> ca = CertificateAuthority::Create("perfhive CA", hours(240));
  ASSERT_TRUE(ca.ok());
  Result<KeyAndRequest> made = MakeKeyAndRequest("web01");
  ASSERT_TRUE(made.ok());
  // Flip a byte inside the base64 body: the signature no longer matches, or the DER breaks.
  std::string tampered = made->request_pem;
  size_t body = tampered.find('\n') + 40;
  tampered[body] = tampered[body] == 'A' ? 'B' : 'A';
  Result<IssuedCertificate> issued = ca->IssueClientCertificate(tampered, "web01", hours(1));
  ASSERT_FALSE(issued.ok());
  EXPECT_EQ(issued.status().code(), StatusCode::kInvalidArgument);
  for (const char* text : {"",
                           "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE "
                           "REQUEST-----\n"}) {
    EXPECT_FALSE(ca->IssueClientCertificate(text, "web01", hours(1)).ok());
  }
}

// What the server checks before it spends a token's use on a request (regression: a request
// with the right PEM header and garbage inside spent the use, then failed to be signed).
TEST(CertificateRequestTest, VerifyAcceptsWhatTheCaSignsAndRefusesWhatItWouldNot) {
  Result<KeyAndRequest> made = MakeKeyAndRequest("web01");
  ASSERT_TRUE(made.ok());
  EXPECT_TRUE(VerifyCertificateRequest(made->request_pem).ok());
  std::string tampered = made->request_pem;
  size_t body = tampered.find('\n') + 40;
  tampered[body] = tampered[body] == 'A' ? 'B' : 'A';
  EXPECT_EQ(VerifyCertificateRequest(tampered).code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(VerifyCertificateRequest("-----BEGIN CERTIFICATE REQUEST-----\nZ2FyYmFnZQ==\n"
                                       "-----END CERTIFICATE REQUEST-----\n")
                  .message(),
              HasSubstr("no readable certificate request"));
  EXPECT_THAT(VerifyCertificateRequest(std::string(70'000, 'A')).message(),
              HasSubstr("over 64 KiB"));
}

}  // namespace
}  // namespace perfhive
