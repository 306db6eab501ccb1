// A block row's members (store/block_members.h) come back as they were written: clocks that go
// back as well as forward, snapshots stored before their clocks were kept, several agent runs in
// one group; and damaged bytes are refused with DATA_LOSS naming what is wrong.

#include "store/block_members.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace perfhive {
namespace {

using ::testing::HasSubstr;

std::vector<BlockMember> SomeMembers() {
  std::vector<BlockMember> members;
  for (int i = 0; i < 5; ++i) {
    BlockMember& member = members.emplace_back();
    member.id = 1000 + 3 * i;
    // The fourth was resent late: its sample time is before the others'.
    member.sample_time_ns = 1'740'823'200'000'000'000 + (i == 3 ? -5 : i) * 10'000'000'000LL;
    if (i != 1) member.perf_time = 81'234'567'890 + i * 100'000'000;
    if (i != 2) member.perf_time_100ns = 133'800'000'000'000'000 + i * 100'000'000;
    member.receive_time_ns = 1'740'823'300'000'000'000 + i * 9'000'000'000LL;
    member.instance_id = i < 3 ? "4f1c0a7e9b2d4c61a8e3f5b7d9c1e2a4" : "restarted-run";
    member.sequence = i < 3 ? 17 + i : 1 + i;
    member.raw_size = 40'960 + 8 * i;
    for (size_t b = 0; b < member.sha256.size(); ++b) {
      member.sha256[b] = static_cast<uint8_t>(i * 31 + b);
    }
  }
  return members;
}

TEST(BlockMembersTest, MembersComeBackAsTheyWereWritten) {
  const std::vector<BlockMember> members = SomeMembers();
  const std::vector<uint8_t> bytes = EncodeBlockMembers(members);
  Result<std::vector<BlockMember>> back = DecodeBlockMembers(bytes);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, members);
  EXPECT_FALSE((*back)[1].perf_time.has_value());
  EXPECT_EQ((*back)[3].instance_id, "restarted-run");
  // Each instance id is written once, and a member is mostly its SHA-256.
  EXPECT_LT(bytes.size(), members.size() * 60 + 50);
}

TEST(BlockMembersTest, NoMembersIsAValidEncoding) {
  Result<std::vector<BlockMember>> back = DecodeBlockMembers(EncodeBlockMembers({}));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_TRUE(back->empty());
}

TEST(BlockMembersTest, DamagedBytesAreRefusedNamingWhatIsWrong) {
  const std::vector<uint8_t> bytes = EncodeBlockMembers(SomeMembers());
  for (size_t cut : {size_t{0}, size_t{1}, size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    Result<std::vector<BlockMember>> back =
        DecodeBlockMembers(std::span<const uint8_t>(bytes).first(cut));
    ASSERT_FALSE(back.ok()) << "cut at " << cut;
    EXPECT_EQ(back.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(back.error(), HasSubstr("block members"));
  }
  std::vector<uint8_t> newer = bytes;
  newer[0] = 2;
  EXPECT_THAT(DecodeBlockMembers(newer).error(),
              HasSubstr("version 2 is not one this build reads"));
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_THAT(DecodeBlockMembers(longer).error(), HasSubstr("1 bytes after the last member"));
}

}  // namespace
}  // namespace perfhive
