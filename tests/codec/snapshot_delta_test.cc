#include "codec/snapshot_delta.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/byte_order.h"
#include "perfdata/snapshot_builder.h"
#include "tests/support/large_snapshot.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;

// A Process-like object with `processes` instances (ids 1000, 1001, ...) at sample `t`; a
// process missing from one snapshot shifts every byte after it.
std::vector<uint8_t> ProcessSnapshot(const std::vector<int>& processes, int t) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time({2025, 1, 3, 1, 10, 0, 0, 0});
  ObjectBuilder& process = builder.AddObject(230);
  for (uint32_t c = 0; c < 8; ++c) {
    process.AddCounter({.name_index = 6 + 2 * c, .type = winperf::kCounterLargeRawcount});
  }
  for (int id : processes) {
    uint32_t i = process.AddInstance("process" + std::to_string(id), id);
    for (uint32_t c = 0; c < 8; ++c) process.SetValue(i, c, 1'000'000ull * id + 977 * c * t);
  }
  return builder.Build();
}

std::vector<int> Range(int first, int last) {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

void ExpectRoundTrip(const std::vector<uint8_t>& base, const std::vector<uint8_t>& current) {
  std::vector<uint8_t> frame = EncodeDelta(base, current);
  Result<std::vector<uint8_t>> back = DecodeDelta(base, frame);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, current);
}

TEST(SnapshotDeltaTest, KeyframeHeader) {
  std::vector<uint8_t> current = ProcessSnapshot(Range(1, 10), 0);
  std::vector<uint8_t> frame = EncodeDelta({}, current);
  ASSERT_GE(frame.size(), 16u);
  EXPECT_EQ(std::string(frame.begin(), frame.begin() + 3), "PHD");
  EXPECT_EQ(frame[3], 1);  // version
  EXPECT_EQ(frame[4], 0);  // method: full
  EXPECT_EQ(LoadU32(frame.data() + 8), current.size());
  EXPECT_EQ(LoadU32(frame.data() + 12), 0u);
  EXPECT_TRUE(IsKeyframe(frame));
  ExpectRoundTrip({}, current);
}

TEST(SnapshotDeltaTest, SameLayoutUsesTheWordDifference) {
  std::vector<uint8_t> base = ProcessSnapshot(Range(1, 50), 0);
  std::vector<uint8_t> current = ProcessSnapshot(Range(1, 50), 1);
  ASSERT_EQ(base.size(), current.size());
  std::vector<uint8_t> frame = EncodeDelta(base, current);
  EXPECT_EQ(frame[4], 1);
  EXPECT_EQ(LoadU32(frame.data() + 12), base.size());
  EXPECT_FALSE(IsKeyframe(frame));
  ExpectRoundTrip(base, current);
}

TEST(SnapshotDeltaTest, ShiftedLayoutUsesTheBaseAsPrefix) {
  std::vector<uint8_t> base = ProcessSnapshot(Range(1, 50), 0);
  std::vector<int> fewer = Range(1, 50);
  fewer.erase(fewer.begin() + 3);  // process 4 exited
  fewer.push_back(77);             // process 77 started
  fewer.push_back(78);
  std::vector<uint8_t> current = ProcessSnapshot(fewer, 1);
  ASSERT_NE(base.size(), current.size());
  std::vector<uint8_t> frame = EncodeDelta(base, current);
  EXPECT_EQ(frame[4], 2);
  ExpectRoundTrip(base, current);
  // The moved instances are found in the base: smaller than a keyframe.
  EXPECT_LT(frame.size(), EncodeDelta({}, current).size());
}

TEST(SnapshotDeltaTest, OddSizesAndShortBases) {
  std::vector<uint8_t> base = {1, 2, 3, 4, 5, 6, 7};
  std::vector<uint8_t> current = {9, 9, 9, 9, 9, 9, 9};  // same odd size: a 3-byte tail
  ExpectRoundTrip(base, current);
  ExpectRoundTrip(base, std::vector<uint8_t>(1, 0xFF));
  ExpectRoundTrip(base, std::vector<uint8_t>(1000, 0xAB));
  ExpectRoundTrip(std::vector<uint8_t>(1000, 0xAB), base);
}

TEST(SnapshotDeltaTest, LargeBuilderSnapshotsRestoreExactly) {
  std::vector<uint8_t> base = testing::BuildLargeSnapshot(0);
  for (int sample : {1, 5, 30}) ExpectRoundTrip(base, testing::BuildLargeSnapshot(sample));
}

TEST(SnapshotDeltaTest, RefusesAnotherBase) {
  std::vector<uint8_t> base = ProcessSnapshot(Range(1, 20), 0);
  std::vector<uint8_t> frame = EncodeDelta(base, ProcessSnapshot(Range(1, 20), 1));
  std::vector<uint8_t> shorter(base.begin(), base.end() - 8);
  Result<std::vector<uint8_t>> back = DecodeDelta(shorter, frame);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.error(),
              HasSubstr("made against a base of " + std::to_string(base.size()) +
                        " bytes (byte 12), given a base of " + std::to_string(shorter.size())));
  EXPECT_FALSE(DecodeDelta({}, frame).ok());
}

TEST(SnapshotDeltaTest, HeaderErrorsNameTheByte) {
  std::vector<uint8_t> current = ProcessSnapshot(Range(1, 5), 0);
  std::vector<uint8_t> frame = EncodeDelta({}, current);

  EXPECT_THAT(DecodeDelta({}, std::span(frame).first(15)).error(),
              HasSubstr("15 bytes, shorter than the 16-byte header"));
  std::vector<uint8_t> bad = frame;
  bad[0] = 'X';
  EXPECT_THAT(DecodeDelta({}, bad).error(), HasSubstr("bad magic at byte 0"));
  bad = frame;
  bad[4] = 9;
  EXPECT_THAT(DecodeDelta({}, bad).error(), HasSubstr("unknown method 9 at byte 4"));
  bad = frame;
  bad[6] = 1;
  EXPECT_THAT(DecodeDelta({}, bad).error(), HasSubstr("reserved bytes 5..7"));
  bad = frame;
  StoreU32(bad.data() + 8, static_cast<uint32_t>(current.size() + 1));
  EXPECT_THAT(DecodeDelta({}, bad).error(),
              HasSubstr("declares " + std::to_string(current.size()) + " bytes of content where " +
                        std::to_string(current.size() + 1) + " are expected"));
  EXPECT_THAT(DecodeDelta({}, frame, current.size() - 1).error(),
              HasSubstr("restored size " + std::to_string(current.size()) +
                        " at byte 8 is over the limit of " + std::to_string(current.size() - 1)));
  bad = frame;
  StoreU32(bad.data() + 12, 100);
  EXPECT_THAT(DecodeDelta({}, bad).error(), HasSubstr("a keyframe with base size 100 at byte 12"));
}

TEST(SnapshotDeltaTest, EveryTruncationIsAnError) {
  std::vector<uint8_t> base = ProcessSnapshot(Range(1, 20), 0);
  std::vector<uint8_t> frame = EncodeDelta(base, ProcessSnapshot(Range(2, 21), 1));
  for (size_t length = 0; length < frame.size(); ++length) {
    EXPECT_FALSE(DecodeDelta(base, std::span(frame).first(length)).ok()) << length;
  }
}

// The steady-state goal on the wire: at most 10% of the raw size, one second apart. The builder's
// host moves every counter every second, which is harder than most real hosts.
TEST(SnapshotDeltaTest, SteadyStateFramesAreAtMostATenthOfRaw) {
  std::vector<uint8_t> previous = testing::BuildLargeSnapshot(10);
  for (int sample = 11; sample < 14; ++sample) {
    std::vector<uint8_t> current = testing::BuildLargeSnapshot(sample);
    std::vector<uint8_t> frame = EncodeDelta(previous, current);
    EXPECT_LE(frame.size() * 10, current.size()) << frame.size() << " of " << current.size();
    previous = std::move(current);
  }
}

}  // namespace
}  // namespace perfhive
