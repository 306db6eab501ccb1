#include "sources/msrrp/msrrp_registry_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sources/hkpd/windows_error.h"
#include "tests/sources/msrrp_test_pipe.h"

namespace perfhive {
namespace {

using testing::BindAckPdu;
using ::testing::HasSubstr;
using testing::Put32;
using testing::ResponsePdu;
using testing::ScriptedPipe;

// An MsrrpRegistryApi whose pipe is scripted: each test queues the server's PDUs.
class MsrrpRegistryApiTest : public ::testing::Test {
 protected:
  MsrrpRegistryApiTest()
      : api_([this](const RemoteTarget& target) -> Result<std::unique_ptr<PipeTransport>> {
          opened_.push_back(target.Name());
          if (!open_error_.ok()) return open_error_;
          auto pipe = std::make_unique<ScriptedPipe>();
          pipe_ = pipe.get();
          pipe->Queue(BindAckPdu(1, 4280, 4280));
          for (const auto& pdu : script_) pipe->Queue(pdu);
          return std::unique_ptr<PipeTransport>(std::move(pipe));
        }) {}

  static std::vector<uint8_t> HandleReply(uint8_t fill, uint32_t error) {
    std::vector<uint8_t> stub(20, fill);
    Put32(stub, error);
    return stub;
  }

  std::vector<std::vector<uint8_t>> script_;
  Status open_error_;
  std::vector<std::string> opened_;
  ScriptedPipe* pipe_ = nullptr;
  MsrrpRegistryApi api_;
};

TEST_F(MsrrpRegistryApiTest, ConnectsBindsAndOpensThePerformanceKey) {
  script_.push_back(ResponsePdu(2, 3, HandleReply(0x42, 0), 24));
  RegistryKey key = 0;
  ASSERT_EQ(api_.ConnectRegistry("\\\\web01:4455", PredefinedKey::kPerformanceData, &key), 0);
  EXPECT_NE(key, 0u);
  EXPECT_EQ(opened_, std::vector<std::string>{"\\\\web01:4455"});
  EXPECT_TRUE(api_.connected());
  EXPECT_TRUE(api_.last_failure().ok());
  // The second PDU written is the request for opnum 3.
  ASSERT_GT(pipe_->written.size(), 72u + 24u);
  EXPECT_EQ(pipe_->written[72 + 2], 0) << "request";
  EXPECT_EQ(pipe_->written[72 + 22], 3) << "OpenPerformanceData";
}

TEST_F(MsrrpRegistryApiTest, RegistryErrorsPassThroughAndKeepTheConnection) {
  script_.push_back(ResponsePdu(2, 3, HandleReply(0, 5), 24));
  RegistryKey key = 0;
  EXPECT_EQ(api_.ConnectRegistry("\\\\web01", PredefinedKey::kPerformanceData, &key), 5);
  EXPECT_TRUE(api_.last_failure().ok()) << "the registry answered";
}

TEST_F(MsrrpRegistryApiTest, AMalformedReplyIsBadStubDataAndDropsTheConnection) {
  script_.push_back(ResponsePdu(2, 3, HandleReply(0x42, 0), 24));
  script_.push_back(ResponsePdu(3, 3, {0, 0, 2, 0}, 4));  // a QueryValue reply cut short
  RegistryKey key = 0;
  ASSERT_EQ(api_.ConnectRegistry("\\\\web01", PredefinedKey::kPerformanceData, &key), 0);
  uint8_t buffer[64];
  uint32_t size = sizeof buffer;
  uint32_t type = 0;
  EXPECT_EQ(api_.QueryValue(key, "Global", buffer, &size, &type), 1783);
  EXPECT_EQ(api_.last_failure().code(), StatusCode::kDataLoss);
  EXPECT_THAT(api_.last_failure().message(),
              HasSubstr("BaseRegQueryValue reply: lpType at byte 4: needs 4 bytes"));
  EXPECT_FALSE(api_.connected());
  EXPECT_EQ(api_.QueryValue(key, "Global", buffer, &size, &type), 6) << "the key went with it";
  EXPECT_THAT(DescribeWindowsError(1783), HasSubstr("RPC_X_BAD_STUB_DATA"));
}

TEST_F(MsrrpRegistryApiTest, OpenFailuresMapToTheCodesRegConnectRegistryGives) {
  const std::pair<Status, long> cases[] = {
      {Status::PermissionDenied("denied"), 5},
      {Status::NotFound("no pipe"), 1722},
      {Status::DeadlineExceeded("slow"), 1460},
      {Status::Unavailable("refused"), 53},
  };
  for (const auto& [failure, code] : cases) {
    open_error_ = failure;
    RegistryKey key = 0;
    EXPECT_EQ(api_.ConnectRegistry("\\\\h", PredefinedKey::kPerformanceData, &key), code);
    EXPECT_EQ(api_.last_failure().message(), failure.message());
  }
  EXPECT_EQ(api_.ConnectRegistry("\\\\", PredefinedKey::kPerformanceData, nullptr), 53);
}

TEST_F(MsrrpRegistryApiTest, ClosingTheLastKeyClosesTheConnection) {
  script_.push_back(ResponsePdu(2, 3, HandleReply(0x42, 0), 24));
  script_.push_back(ResponsePdu(3, 3, HandleReply(0x43, 0), 24));
  script_.push_back(ResponsePdu(4, 3, HandleReply(0, 0), 24));
  script_.push_back(ResponsePdu(5, 3, HandleReply(0, 0), 24));
  RegistryKey data = 0, machine = 0;
  ASSERT_EQ(api_.ConnectRegistry("\\\\h", PredefinedKey::kPerformanceData, &data), 0);
  ASSERT_EQ(api_.ConnectRegistry("\\\\h", PredefinedKey::kLocalMachine, &machine), 0);
  EXPECT_EQ(opened_.size(), 1u) << "one connection for both keys";
  EXPECT_EQ(api_.CloseKey(data), 0);
  EXPECT_TRUE(api_.connected());
  EXPECT_EQ(api_.CloseKey(machine), 0);
  EXPECT_FALSE(api_.connected());
}

}  // namespace
}  // namespace perfhive
