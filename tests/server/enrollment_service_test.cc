// The enrollment service's answers without a network: what an enrollment spends of its token
// and what it refuses before spending anything.

#include "server/enrollment/enrollment_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "pki/certificate_request.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

class EnrollmentServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<EnrollmentRegistry>> opened = EnrollmentRegistry::Open(dir_.path());
    ASSERT_TRUE(opened.ok()) << opened.error();
    registry_ = std::move(opened).value();
    Result<CertificateAuthority> ca =
        CertificateAuthority::Create("perfhive CA test", std::chrono::hours(24));
    ASSERT_TRUE(ca.ok()) << ca.error();
    ca_ = std::make_unique<CertificateAuthority>(std::move(ca).value());
    service_ = std::make_unique<EnrollmentService>(*ca_, *registry_, log_);
  }

  // A token for hosts web* with `uses` uses.
  std::string Token(int uses) {
    Result<std::pair<std::string, EnrollmentTokenInfo>> made = registry_->CreateToken(
        {.host_patterns = {"web*"}, .uses = uses, .valid_for = {}, .read = false},
        std::chrono::system_clock::now());
    EXPECT_TRUE(made.ok()) << made.error();
    return made.ok() ? made->first : "";
  }

  std::optional<int> UsesLeft() {
    Result<std::vector<EnrollmentTokenInfo>> tokens = registry_->ListTokens();
    EXPECT_TRUE(tokens.ok() && tokens->size() == 1);
    return tokens.ok() && !tokens->empty() ? tokens->front().uses_left : std::nullopt;
  }

  Status Enroll(const std::string& token, const std::string& request_pem) {
    perfhive::v1::EnrollRequest request;
    request.set_token(token);
    request.set_host_name("web01");
    request.set_request_pem(request_pem);
    perfhive::v1::EnrollReply reply;
    return service_->EnrollHost(request, reply);
  }

  TempDir dir_;
  ServerLog log_;
  std::unique_ptr<EnrollmentRegistry> registry_;
  std::unique_ptr<CertificateAuthority> ca_;
  std::unique_ptr<EnrollmentService> service_;
};

// Regression: a request with the right PEM header and garbage inside was refused only after the
// token's use was spent, and the honest retry was told the token was used up.
TEST_F(EnrollmentServiceTest, AnUnreadableOrForgedRequestSpendsNoUseOfTheToken) {
  const std::string token = Token(1);
  Status garbage = Enroll(token,
                          "-----BEGIN CERTIFICATE REQUEST-----\nZ2FyYmFnZQ==\n"
                          "-----END CERTIFICATE REQUEST-----\n");
  EXPECT_EQ(garbage.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(garbage.message(), HasSubstr("no readable certificate request"));
  Result<KeyAndRequest> honest = MakeKeyAndRequest("web01");
  ASSERT_TRUE(honest.ok());
  std::string forged = honest->request_pem;
  const size_t body = forged.find('\n') + 40;
  forged[body] = forged[body] == 'A' ? 'B' : 'A';
  EXPECT_EQ(Enroll(token, forged).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(UsesLeft(), 1);

  Status enrolled = Enroll(token, honest->request_pem);
  EXPECT_TRUE(enrolled.ok()) << enrolled.message();
  EXPECT_EQ(UsesLeft(), 0);
}

}  // namespace
}  // namespace perfhive
