#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sources/msrrp/winreg_calls.h"
#include "tests/sources/msrrp_test_pipe.h"

namespace perfhive {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using testing::Put32;

winreg::ContextHandle Handle(uint8_t fill) {
  winreg::ContextHandle handle;
  handle.fill(fill);
  return handle;
}

TEST(WinregCalls, OpenPerformanceDataSendsANullServerNameAndTheMask) {
  EXPECT_THAT(winreg::EncodeOpenPredefinedKey(0x20019),
              ElementsAreArray({0, 0, 0, 0, 0x19, 0, 0x02, 0}));
}

TEST(WinregCalls, QueryValueAnnouncesTheBufferWithoutSendingIt) {
  std::vector<uint8_t> stub = winreg::EncodeQueryValue(Handle(0x11), "Global", 4096);
  std::vector<uint8_t> expected(20, 0x11);  // hKey
  // lpValueName: Length = MaximumLength = 14 (7 characters with the NUL), buffer pointer,
  // conformance 7, offset 0, variance 7, "Global\0" in UTF-16LE, 2 pad bytes.
  const std::vector<uint8_t> name = {14,  0, 14,  0, 4,   0, 0,   0, 7,   0, 0,   0,
                                     0,   0, 0,   0, 7,   0, 0,   0, 'G', 0, 'l', 0,
                                     'o', 0, 'b', 0, 'a', 0, 'l', 0, 0,   0, 0,   0};
  expected.insert(expected.end(), name.begin(), name.end());
  const std::vector<uint8_t> rest = {
      8,  0,    0, 0, 0, 0,    0, 0,  // lpType: pointer, 0
      12, 0,    0, 0,                 // lpData: pointer
      0,  0x10, 0, 0,                 // max count 4096
      0,  0,    0, 0,                 // offset
      0,  0,    0, 0,                 // actual count: nothing sent
      16, 0,    0, 0, 0, 0x10, 0, 0,  // lpcbData: pointer, 4096
      20, 0,    0, 0, 0, 0,    0, 0,  // lpcbLen: pointer, 0
  };
  expected.insert(expected.end(), rest.begin(), rest.end());
  EXPECT_THAT(stub, ElementsAreArray(expected));
}

TEST(WinregCalls, QueryValueNeverAnnouncesMoreThanMsRrpAllows) {
  std::vector<uint8_t> stub = winreg::EncodeQueryValue(Handle(0), "Global", 0xFFFFFFFF);
  // lpData's max count sits after hKey (20), the name (36) and lpType (8), and its pointer.
  EXPECT_EQ(stub[68] | stub[69] << 8 | stub[70] << 16 | stub[71] << 24, 0x4000000);
}

// A reply laid out by hand: lpType, lpData (max/offset/actual + bytes + padding), lpcbData,
// lpcbLen, status.
std::vector<uint8_t> QueryReply(uint32_t type, std::vector<uint8_t> data, uint32_t max_count,
                                uint32_t size, uint32_t length, uint32_t status) {
  std::vector<uint8_t> out;
  Put32(out, 0x20000);
  Put32(out, type);
  Put32(out, 0x20004);
  Put32(out, max_count);
  Put32(out, 0);
  Put32(out, static_cast<uint32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
  while (out.size() % 4) out.push_back(0);
  Put32(out, 0x20008);
  Put32(out, size);
  Put32(out, 0x2000c);
  Put32(out, length);
  Put32(out, status);
  return out;
}

TEST(WinregCalls, ParsesASuccessfulReply) {
  Result<winreg::QueryValueReply> reply =
      winreg::ParseQueryValueReply(QueryReply(3, {'P', 0, 'E'}, 4096, 3, 3, 0), 4096);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(reply->error, 0u);
  EXPECT_EQ(reply->type, 3u);
  EXPECT_THAT(reply->data, ElementsAreArray(std::vector<uint8_t>{'P', 0, 'E'}));
  EXPECT_EQ(reply->data_length, 3u);
}

TEST(WinregCalls, ParsesMoreDataWithTheNeededSize) {
  Result<winreg::QueryValueReply> reply =
      winreg::ParseQueryValueReply(QueryReply(3, {}, 16, 140000, 0, 234), 16);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(reply->error, 234u);
  EXPECT_EQ(reply->data_size, 140000u);
  EXPECT_TRUE(reply->data.empty());
}

TEST(WinregCalls, NullPointersInTheReplyAreAbsentValues) {
  std::vector<uint8_t> stub;
  for (int i = 0; i < 4; ++i) Put32(stub, 0);
  Put32(stub, 2);
  Result<winreg::QueryValueReply> reply = winreg::ParseQueryValueReply(stub, 16);
  ASSERT_TRUE(reply.ok()) << reply.error();
  EXPECT_EQ(reply->error, 2u);
  EXPECT_FALSE(reply->type.has_value());
  EXPECT_FALSE(reply->data_size.has_value());
}

TEST(WinregCalls, HostileRepliesAreErrorsNamingTheField) {
  // More data than the buffer asked for.
  EXPECT_EQ(winreg::ParseQueryValueReply(QueryReply(3, {1, 2, 3, 4, 5}, 5, 5, 5, 0), 4).error(),
            "BaseRegQueryValue reply: lpData at byte 12: 5 bytes in a 4-byte buffer");
  // lpcbLen disagreeing with the data.
  EXPECT_THAT(winreg::ParseQueryValueReply(QueryReply(3, {1, 2}, 8, 8, 7, 0), 8).error(),
              HasSubstr("lpcbLen says 7 bytes, lpData at byte 12 holds 2"));
  // A max count above MS-RRP's range.
  EXPECT_THAT(winreg::ParseQueryValueReply(QueryReply(3, {}, 0x4000001, 0, 0, 0), 8).error(),
              HasSubstr("lpData at byte 12: max count 67108865 is above the limit 67108864"));
  // Cut short before the status.
  std::vector<uint8_t> cut = QueryReply(3, {1, 2}, 8, 2, 2, 0);
  cut.resize(cut.size() - 2);
  EXPECT_THAT(winreg::ParseQueryValueReply(cut, 8).error(),
              HasSubstr("return value at byte 44: needs 4 bytes, the stub has 2 left"));
}

TEST(WinregCalls, HandleReplyCarriesTheHandleAndTheError) {
  std::vector<uint8_t> stub(20, 0x5A);
  Put32(stub, 5);
  Result<winreg::HandleReply> reply = winreg::ParseHandleReply(stub, "OpenPerformanceData");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->handle, Handle(0x5A));
  EXPECT_EQ(reply->error, 5u);
  stub.resize(10);
  EXPECT_EQ(winreg::ParseHandleReply(stub, "OpenPerformanceData").error(),
            "OpenPerformanceData reply: phKey at byte 0: needs 20 bytes, the stub has 10 left");
}

TEST(WinregCalls, OpenKeySendsTheSubkeyOptionsAndMask) {
  std::vector<uint8_t> stub = winreg::EncodeOpenKey(Handle(1), "A", 0x20019);
  // 20 handle + 4 lengths + 4 pointer + 12 counts + 4 "A\0" + 4 options + 4 mask
  ASSERT_EQ(stub.size(), 52u);
  EXPECT_EQ(stub[20], 4);
  EXPECT_EQ(stub[40], 'A');
  EXPECT_THAT(std::vector<uint8_t>(stub.end() - 8, stub.end()),
              ElementsAreArray({0, 0, 0, 0, 0x19, 0, 0x02, 0}));
}

TEST(WinregCalls, EnumKeyOffersRoomForTheNameAndAnEmptyClass) {
  std::vector<uint8_t> stub = winreg::EncodeEnumKey(Handle(2), 7);
  std::vector<uint8_t> expected(20, 2);
  Put32(expected, 7);  // dwIndex
  // lpNameIn: Length 0, MaximumLength 512, buffer pointer, conformance 256, offset 0, variance 0.
  const std::vector<uint8_t> room = {0, 0, 0, 2, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  expected.insert(expected.end(), room.begin(), room.end());
  Put32(expected, 8);  // lpClassIn: a pointer, then the same empty room
  std::vector<uint8_t> class_room = room;
  class_room[4] = 12;  // its buffer's referent
  expected.insert(expected.end(), class_room.begin(), class_room.end());
  Put32(expected, 0);  // lpftLastWriteTime: NULL
  EXPECT_THAT(stub, ElementsAreArray(expected));
}

// lpNameOut "Ab\0", lplpClassOut NULL or an empty class, lpftLastWriteTime NULL, `error`.
std::vector<uint8_t> EnumKeyReply(uint32_t error, bool with_class) {
  std::vector<uint8_t> stub = {6, 0, 0, 2, 4, 0, 0, 0};  // Length 6, MaximumLength 512, pointer
  Put32(stub, 256);
  Put32(stub, 0);
  Put32(stub, 3);
  stub.insert(stub.end(), {'A', 0, 'b', 0, 0, 0, 0, 0});  // "Ab\0", 2 bytes of padding
  if (with_class) {
    Put32(stub, 8);
    stub.insert(stub.end(), {0, 0, 0, 2, 0, 0, 0, 0});  // empty, no buffer
  } else {
    Put32(stub, 0);
  }
  Put32(stub, 0);
  Put32(stub, error);
  return stub;
}

TEST(WinregCalls, EnumKeyReplyGivesTheNameWithoutItsNul) {
  for (bool with_class : {false, true}) {
    Result<winreg::EnumKeyReply> reply = winreg::ParseEnumKeyReply(EnumKeyReply(0, with_class));
    ASSERT_TRUE(reply.ok()) << reply.error();
    EXPECT_EQ(reply->error, 0u);
    EXPECT_EQ(reply->name, "Ab");
  }
  Result<winreg::EnumKeyReply> done = winreg::ParseEnumKeyReply(EnumKeyReply(259, false));
  ASSERT_TRUE(done.ok()) << done.error();
  EXPECT_EQ(done->error, 259u);
  EXPECT_EQ(done->name, "");
}

TEST(WinregCalls, HostileEnumKeyRepliesAreErrorsNamingTheField) {
  std::vector<uint8_t> odd = EnumKeyReply(0, false);
  odd[0] = 5;  // an odd Length
  EXPECT_THAT(winreg::ParseEnumKeyReply(odd).error(),
              HasSubstr("lpNameOut at byte 0: Length 5 is odd or above MaximumLength 512"));
  std::vector<uint8_t> long_name = EnumKeyReply(0, false);
  long_name[16] = 0x10;  // actual count 4112: beyond max count and the stub
  long_name[17] = 0x10;
  EXPECT_THAT(winreg::ParseEnumKeyReply(long_name).error(), HasSubstr("lpNameOut at byte 8"));
  std::vector<uint8_t> cut = EnumKeyReply(0, false);
  cut.resize(cut.size() - 3);
  EXPECT_THAT(winreg::ParseEnumKeyReply(cut).error(), HasSubstr("return value"));
}

}  // namespace
}  // namespace perfhive
