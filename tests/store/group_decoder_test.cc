// The store's one codec seam (store/frame_encoding.h, store/group_decoder.h): every frame and
// block says its encoding in its tag, OpenGroup picks the decoder by it, and a group restores the
// same bytes through the seam whichever encoding keeps it; bytes with another tag, and members
// that do not fit how their group is kept, are DATA_LOSS naming what is wrong.

#include "store/group_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/well_known_indexes.h"
#include "store/frame_encoding.h"
#include "store/group_columns.h"
#include "tests/store/section_test_util.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using namespace ::perfhive::testing;

FrameEncoding EncodingOf(std::span<const uint8_t> bytes) {
  Result<FrameEncoding> encoding = FrameEncodingOf(bytes);
  EXPECT_TRUE(encoding.ok()) << encoding.error();
  return encoding.ok() ? *encoding : FrameEncoding::kWholeDelta;
}

std::unique_ptr<GroupDecoder> Open(int64_t keyframe_id, std::vector<uint8_t> stored) {
  Result<std::unique_ptr<GroupDecoder>> group = OpenGroup(keyframe_id, std::move(stored));
  EXPECT_TRUE(group.ok()) << group.error();
  return group.ok() ? std::move(*group) : nullptr;
}

TEST(FrameEncodingTest, EveryEncoderWritesTheTagItsDecoderIsChosenBy) {
  const std::vector<uint8_t> key = HostSnapshot(0);
  const std::vector<uint8_t> next = HostSnapshot(1);
  EXPECT_EQ(EncodingOf(EncodeDelta({}, key)), FrameEncoding::kWholeDelta);
  EXPECT_EQ(EncodingOf(EncodeDelta(key, next)), FrameEncoding::kWholeDelta);
  EXPECT_EQ(EncodingOf(Keyframe(key)), FrameEncoding::kSectioned);
  EXPECT_EQ(EncodingOf(Member(next, key)), FrameEncoding::kSectioned);
  const std::vector<std::span<const uint8_t>> group = {key, next};
  EXPECT_EQ(EncodingOf(EncodeGroupColumns(group, 3)), FrameEncoding::kColumns);
}

TEST(FrameEncodingTest, AnotherVersionOrNoTagIsDataLossNamingTheBytes) {
  for (const std::vector<uint8_t>& bytes :
       {std::vector<uint8_t>{'P', 'H', 'S', 2, 0}, std::vector<uint8_t>{'P', 'H', 'X', 1},
        std::vector<uint8_t>{'P', 'H', 'S'}, std::vector<uint8_t>{}}) {
    Result<FrameEncoding> encoding = FrameEncodingOf(bytes);
    ASSERT_FALSE(encoding.ok());
    EXPECT_EQ(encoding.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(encoding.error(), HasSubstr("the tag of no encoding this version reads"));
  }
  EXPECT_THAT(FrameEncodingOf(std::vector<uint8_t>{'P', 'H', 'S', 2}).error(),
              HasSubstr("50 48 53 02"));
  EXPECT_THAT(FrameEncodingOf(std::vector<uint8_t>{}).error(), HasSubstr("begins with nothing"));
  EXPECT_FALSE(OpenGroup(1, {'P', 'H', 'C', 9}).ok());
}

TEST(GroupDecoderTest, AGroupRestoresTheSameThroughEachEncoding) {
  std::vector<std::vector<uint8_t>> raws;
  for (uint64_t t = 0; t < 4; ++t) raws.push_back(HostSnapshot(t));
  const std::vector<std::span<const uint8_t>> spans(raws.begin(), raws.end());
  const ObjectWanted process = Wants({title_index::kProcess});

  // As frames: sectioned, and whole-snapshot deltas as older stores keep them.
  std::vector<std::vector<uint8_t>> sectioned = {Keyframe(raws[0])};
  std::vector<std::vector<uint8_t>> whole = {EncodeDelta({}, raws[0])};
  for (size_t i = 1; i < raws.size(); ++i) {
    sectioned.push_back(Member(raws[i], raws[0]));
    whole.push_back(EncodeDelta(raws[0], raws[i]));
  }
  std::unique_ptr<GroupDecoder> as_sections = Open(7, sectioned[0]);
  std::unique_ptr<GroupDecoder> as_whole = Open(7, whole[0]);
  std::unique_ptr<GroupDecoder> as_block = Open(7, EncodeGroupColumns(spans, 3));
  ASSERT_TRUE(as_sections && as_whole && as_block);
  EXPECT_EQ(as_block->keyframe_id(), 7);
  for (size_t i = 0; i < raws.size(); ++i) {
    SCOPED_TRACE("snapshot " + std::to_string(i));
    // The keyframe gives no frame: the group's own bytes are its frame.
    const GroupMember in_sections{.is_keyframe = i == 0,
                                  .frame = i == 0 ? std::span<const uint8_t>() : sectioned[i]};
    const GroupMember in_whole{.is_keyframe = i == 0,
                               .frame = i == 0 ? std::span<const uint8_t>() : whole[i]};
    const GroupMember in_block{
        .is_keyframe = i == 0, .block_index = static_cast<int64_t>(i), .wanted_run = 0};
    for (GroupDecoder* group : {as_sections.get(), as_whole.get(), as_block.get()}) {
      const GroupMember& member = group == as_sections.get() ? in_sections
                                  : group == as_whole.get()  ? in_whole
                                                             : in_block;
      Result<std::vector<uint8_t>> raw = group->Restore(member, nullptr);
      ASSERT_TRUE(raw.ok()) << raw.error();
      EXPECT_EQ(*raw, raws[i]);
    }
    // Partial restores hold the same objects whichever encoding gives them.
    Result<std::vector<uint8_t>> from_sections = as_sections->Restore(in_sections, &process);
    Result<std::vector<uint8_t>> from_block = as_block->Restore(in_block, &process);
    ASSERT_TRUE(from_sections.ok() && from_block.ok());
    EXPECT_EQ(ExpectSameObjects(raws[i], *from_sections),
              std::vector<uint32_t>({title_index::kProcess}));
    EXPECT_EQ(ExpectSameObjects(raws[i], *from_block),
              std::vector<uint32_t>({title_index::kProcess}));
  }
}

TEST(GroupDecoderTest, AMemberThatDoesNotFitHowItsGroupIsKeptIsDataLoss) {
  const std::vector<uint8_t> key = HostSnapshot(0);
  const std::vector<uint8_t> next = HostSnapshot(1);
  const std::vector<std::span<const uint8_t>> spans = {key, next};
  std::unique_ptr<GroupDecoder> frames = Open(1, Keyframe(key));
  std::unique_ptr<GroupDecoder> block = Open(1, EncodeGroupColumns(spans, 3));
  ASSERT_TRUE(frames && block);

  Result<std::vector<uint8_t>> raw = frames->Restore({.block_index = 1}, nullptr);
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.status().code(), StatusCode::kDataLoss);
  EXPECT_THAT(raw.error(), HasSubstr("in a group kept as frames"));

  const std::vector<uint8_t> member = Member(next, key);
  raw = block->Restore({.frame = member}, nullptr);
  ASSERT_FALSE(raw.ok());
  EXPECT_THAT(raw.error(), HasSubstr("in a group kept as a block"));

  raw = block->Restore({.block_index = 2}, nullptr);
  ASSERT_FALSE(raw.ok());
  EXPECT_THAT(raw.error(), HasSubstr("snapshot 2 of a block of 2"));

  // A block given as one member's frame.
  const std::vector<uint8_t> block_bytes = EncodeGroupColumns(spans, 3);
  raw = frames->Restore({.frame = block_bytes}, nullptr);
  ASSERT_FALSE(raw.ok());
  EXPECT_THAT(raw.error(), HasSubstr("a columnar block as one member's frame"));
}

}  // namespace
}  // namespace perfhive
