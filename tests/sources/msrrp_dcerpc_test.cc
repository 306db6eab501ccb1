#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sources/msrrp/dcerpc_client.h"
#include "sources/msrrp/dcerpc_pdu.h"
#include "tests/sources/msrrp_test_pipe.h"

namespace perfhive {
namespace {

using testing::BindAckPdu;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::PduHeader;
using testing::Put32;
using testing::ResponsePdu;
using testing::ScriptedPipe;

TEST(DcerpcPdu, BindProposesWinregOverNdr) {
  std::vector<uint8_t> bind = dcerpc::EncodeBind({.call_id = 1,
                                                  .max_transmit_fragment = 4280,
                                                  .max_receive_fragment = 4280,
                                                  .interface = dcerpc::kWinregInterface,
                                                  .transfer = dcerpc::kNdrTransferSyntax});
  const std::vector<uint8_t> expected = {
      5, 0, 11, 3, 0x10, 0, 0, 0,  // v5.0, bind, first|last, little-endian
      72, 0, 0, 0, 1, 0, 0, 0,     // fragment length 72, no auth, call id 1
      0xb8, 0x10, 0xb8, 0x10,      // max transmit/receive 4280
      0, 0, 0, 0,                  // new association group
      1, 0, 0, 0,                  // one context
      0, 0, 1, 0,                  // context id 0, one transfer syntax
      // 338cd001-2244-31f1-aaaa-900038001003 version 1.0
      0x01, 0xd0, 0x8c, 0x33, 0x44, 0x22, 0xf1, 0x31, 0xaa, 0xaa, 0x90, 0x00, 0x38, 0x00, 0x10,
      0x03, 1, 0, 0, 0,
      // 8a885d04-1ceb-11c9-9fe8-08002b104860 version 2
      0x04, 0x5d, 0x88, 0x8a, 0xeb, 0x1c, 0xc9, 0x11, 0x9f, 0xe8, 0x08, 0x00, 0x2b, 0x10, 0x48,
      0x60, 2, 0, 0, 0};
  EXPECT_THAT(bind, ElementsAreArray(expected));
}

TEST(DcerpcPdu, BindAckGivesTheServersLimits) {
  Result<dcerpc::BindAck> ack = dcerpc::ParseBindAnswer(BindAckPdu(1, 4280, 2048));
  ASSERT_TRUE(ack.ok()) << ack.error();
  EXPECT_EQ(ack->max_transmit_fragment, 4280);
  EXPECT_EQ(ack->max_receive_fragment, 2048);
  EXPECT_EQ(ack->association_group, 0x1234u);
}

TEST(DcerpcPdu, BindNakAndRejectedContextsSayWhy) {
  std::vector<uint8_t> nak = PduHeader(13, 3, 1, 2);
  nak.insert(nak.end(), {4, 0});
  Result<dcerpc::BindAck> refused = dcerpc::ParseBindAnswer(nak);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error(), HasSubstr("bind_nak"));
  EXPECT_THAT(refused.error(), HasSubstr("protocol version not supported"));

  std::vector<uint8_t> rejected = BindAckPdu(1, 4280, 4280);
  rejected[rejected.size() - 24] = 2;  // provider rejection
  rejected[rejected.size() - 22] = 1;  // abstract syntax not supported
  Result<dcerpc::BindAck> no_winreg = dcerpc::ParseBindAnswer(rejected);
  ASSERT_FALSE(no_winreg.ok());
  EXPECT_THAT(no_winreg.error(), HasSubstr("rejected the winreg interface (result 2"));
  EXPECT_THAT(no_winreg.error(), HasSubstr("abstract syntax (interface) not supported"));
}

TEST(DcerpcPdu, BindAckWithAnAddressRunningPastTheEndIsMalformed) {
  std::vector<uint8_t> ack = BindAckPdu(1, 4280, 4280);
  ack[24] = 200;
  Result<dcerpc::BindAck> parsed = dcerpc::ParseBindAnswer(ack);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(parsed.error(), HasSubstr("secondary address length 200 at byte 24"));
}

TEST(DcerpcPdu, RequestIsCutIntoFragmentsOfTheNegotiatedSize) {
  std::vector<uint8_t> stub(100);
  for (size_t i = 0; i < stub.size(); ++i) stub[i] = static_cast<uint8_t>(i);
  // 64-byte fragments leave 40 bytes of stub each: 40 + 40 + 20.
  std::vector<std::vector<uint8_t>> fragments = dcerpc::EncodeRequest(7, 0, 17, stub, 64);
  ASSERT_EQ(fragments.size(), 3u);
  const uint8_t flags[] = {1, 0, 2};
  const size_t sizes[] = {64, 64, 44};
  for (size_t i = 0; i < 3; ++i) {
    const std::vector<uint8_t>& f = fragments[i];
    ASSERT_EQ(f.size(), sizes[i]);
    EXPECT_EQ(f[2], 0) << "request";
    EXPECT_EQ(f[3], flags[i]);
    EXPECT_EQ(f[8] | f[9] << 8, static_cast<int>(sizes[i]));
    EXPECT_EQ(f[12], 7) << "call id";
    EXPECT_EQ(f[16], 100) << "alloc hint is the whole stub";
    EXPECT_EQ(f[22], 17) << "opnum";
    EXPECT_EQ(f[24], static_cast<uint8_t>(i * 40)) << "stub continues where it left off";
  }
  // An empty stub still makes one fragment, first and last.
  std::vector<std::vector<uint8_t>> empty = dcerpc::EncodeRequest(1, 0, 5, {}, 4280);
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0][3], 3);
  EXPECT_EQ(empty[0].size(), 24u);
}

TEST(DcerpcPdu, FaultBecomesAnErrorNamingItsStatus) {
  std::vector<uint8_t> fault = PduHeader(3, 3, 2, 16);
  Put32(fault, 0);
  Put32(fault, 0);
  Put32(fault, 0x1c010003);
  Put32(fault, 0);
  Result<dcerpc::ResponseFragment> parsed = dcerpc::ParseResponse(fault);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error(), HasSubstr("fault 0x1c010003 (nca_s_unk_if"));

  fault[24] = 5;
  fault[25] = fault[26] = fault[27] = 0;
  EXPECT_EQ(dcerpc::ParseResponse(fault).status().code(), StatusCode::kPermissionDenied);
}

TEST(DcerpcPdu, HeaderChecksVersionByteOrderAndLength) {
  std::vector<uint8_t> header = PduHeader(2, 3, 1, 0);
  header[0] = 4;
  EXPECT_THAT(dcerpc::ParseHeader(header).error(), HasSubstr("version 4.0 at byte 0"));
  header = PduHeader(2, 3, 1, 0);
  header[4] = 0x00;
  EXPECT_THAT(dcerpc::ParseHeader(header).error(), HasSubstr("not little-endian"));
  header = PduHeader(2, 3, 1, 0);
  header[8] = 15;
  EXPECT_THAT(dcerpc::ParseHeader(header).error(),
              HasSubstr("fragment length 15 at byte 8 is shorter than the header"));
}

class DcerpcClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pipe_.Queue(BindAckPdu(1, 64, 64));
    ASSERT_TRUE(client_.Bind().ok());
    pipe_.written.clear();
    pipe_.writes = 0;
  }
  ScriptedPipe pipe_;
  DcerpcClient client_{pipe_};
};

TEST_F(DcerpcClientTest, BindSettlesOnTheSmallerFragmentSizes) {
  EXPECT_EQ(client_.transmit_fragment(), 64);
  EXPECT_EQ(client_.receive_fragment(), 64);
}

TEST_F(DcerpcClientTest, SendsFragmentsAndReassemblesAMultiFragmentResponse) {
  std::vector<uint8_t> stub(50, 0xAB);
  pipe_.Queue(ResponsePdu(2, 1, {1, 2, 3, 4}, 10));
  pipe_.Queue(ResponsePdu(2, 0, {5, 6, 7, 8}, 10));
  pipe_.Queue(ResponsePdu(2, 2, {9, 10}, 10));
  Result<std::vector<uint8_t>> reply = client_.Call(17, stub, "BaseRegQueryValue");
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_THAT(*reply, ElementsAreArray({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(pipe_.writes, 2) << "50 bytes of stub in 64-byte fragments: 40 + 10";
  EXPECT_TRUE(pipe_.replies.empty());
}

TEST_F(DcerpcClientTest, RejectsAResponseToAnotherCall) {
  pipe_.Queue(ResponsePdu(9, 3, {1, 2, 3, 4}, 4));
  Result<std::vector<uint8_t>> reply = client_.Call(5, {}, "BaseRegCloseKey");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(reply.error(),
            "BaseRegCloseKey: response fragment 0 has call id 9 at byte 12, expected 2");
}

TEST_F(DcerpcClientTest, RejectsFragmentsOutOfOrder) {
  pipe_.Queue(ResponsePdu(2, 0, {1, 2, 3, 4}, 4));
  EXPECT_THAT(client_.Call(5, {}, "X").error(), HasSubstr("fragment 0 lacks the first"));
  pipe_.Queue(ResponsePdu(3, 1, {1, 2, 3, 4}, 4));
  pipe_.Queue(ResponsePdu(3, 1, {1, 2, 3, 4}, 4));
  EXPECT_THAT(client_.Call(5, {}, "X").error(), HasSubstr("fragment 1 repeats the first"));
}

TEST_F(DcerpcClientTest, StopsAResponseThatGrowsPastTheCeiling) {
  ScriptedPipe pipe;
  pipe.Queue(BindAckPdu(1, 4280, 4280));
  DcerpcClient small(pipe, {.max_response_bytes = 6});
  ASSERT_TRUE(small.Bind().ok());
  pipe.Queue(ResponsePdu(2, 1, {1, 2, 3, 4}, 0xFFFFFFFF));
  pipe.Queue(ResponsePdu(2, 2, {5, 6, 7, 8}, 0));
  Result<std::vector<uint8_t>> reply = small.Call(17, {}, "BaseRegQueryValue");
  ASSERT_FALSE(reply.ok());
  EXPECT_THAT(reply.error(), HasSubstr("grows past 6 bytes at fragment 1"));
}

TEST_F(DcerpcClientTest, ATruncatedPduIsATransportError) {
  std::vector<uint8_t> pdu = ResponsePdu(2, 3, {1, 2, 3, 4, 5, 6, 7, 8}, 8);
  pdu.resize(pdu.size() - 3);
  pipe_.Queue(pdu);
  Result<std::vector<uint8_t>> reply = client_.Call(17, {}, "BaseRegQueryValue");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace perfhive
