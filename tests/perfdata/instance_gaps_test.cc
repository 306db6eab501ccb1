// InstanceGapTracker on a real capture of ../shared/fixtures played as a stream a minute apart,
// with one LogicalDisk instance taken out of some of its snapshots as the fault; builder-made
// snapshots for an object too large to follow.

#include "perfdata/instance_gaps.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "tests/support/shared_fixtures.h"
#include "tests/support/snapshot_edits.h"

namespace perfhive {
namespace {

constexpr char kGapCaptures[] = "realdata/zenoss-windowsmonitor";
constexpr uint32_t kGapObject = 236;
constexpr int64_t kGapMinuteNs = 60LL * 1'000'000'000;
constexpr int64_t kGapStartNs = 1'700'000'000LL * 1'000'000'000;

// A stream of snapshots a minute apart, each the capture or the capture without an instance.
class InstanceGapsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SharedFixturePresent(kGapCaptures)) GTEST_SKIP() << "needs ../shared/fixtures";
    whole_ = testing::ReadSharedFixture(std::filesystem::path(kGapCaptures) / "kinex01-0.perf");
    Result<SnapshotReader> reader = SnapshotReader::Open(whole_);
    ASSERT_TRUE(reader.ok()) << reader.error();
    std::optional<ObjectView> disks = reader->FindObject(kGapObject);
    ASSERT_TRUE(disks.has_value());
    for (const InstanceView& instance : disks->instances()) {
      if (InstanceName(*disks, instance) != "_Total") disk_ = InstanceName(*disks, instance);
    }
    ASSERT_FALSE(disk_.empty());
    Result<std::vector<uint8_t>> without = testing::WithoutInstance(whole_, kGapObject, disk_);
    ASSERT_TRUE(without.ok()) << without.error();
    without_disk_ = std::move(without).value();
    Result<std::vector<uint8_t>> no_object = testing::WithoutObject(whole_, kGapObject);
    ASSERT_TRUE(no_object.ok()) << no_object.error();
    without_object_ = std::move(no_object).value();
  }

  // Notes the snapshot as the stream's next, a minute after the last; returns what it closed.
  std::vector<InstanceGap> Next(const std::vector<uint8_t>& raw) {
    now_ns_ += kGapMinuteNs;
    Result<SnapshotReader> reader = SnapshotReader::Open(raw);
    EXPECT_TRUE(reader.ok());
    if (!reader.ok()) return {};
    return tracker_.Note(*reader, now_ns_);
  }
  // Notes `count` snapshots; returns every gap they closed.
  std::vector<InstanceGap> Play(const std::vector<uint8_t>& raw, int count) {
    std::vector<InstanceGap> gaps;
    for (int i = 0; i < count; ++i) {
      for (InstanceGap& gap : Next(raw)) gaps.push_back(std::move(gap));
    }
    return gaps;
  }

  std::vector<uint8_t> whole_, without_disk_, without_object_;
  std::string disk_;
  InstanceGapTracker tracker_;
  int64_t now_ns_ = kGapStartNs;
};

TEST_F(InstanceGapsTest, AStreamWithoutFaultsHasNoGaps) { EXPECT_TRUE(Play(whole_, 40).empty()); }

TEST_F(InstanceGapsTest, AnInstanceThatWentAndCameBackIsAGapWithItsTimes) {
  ASSERT_TRUE(Play(whole_, 10).empty());
  const int64_t gone = now_ns_ + kGapMinuteNs;
  ASSERT_TRUE(Play(without_disk_, 3).empty());
  const int64_t back = now_ns_ + kGapMinuteNs;
  std::vector<InstanceGap> gaps = Next(whole_);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0],
            (InstanceGap{
                .object_index = kGapObject, .instance = disk_, .gone_ns = gone, .back_ns = back}));
  // Back for good: nothing more, and a second gap is a second finding.
  EXPECT_TRUE(Play(whole_, 10).empty());
  ASSERT_TRUE(Play(without_disk_, 1).empty());
  EXPECT_EQ(Next(whole_).size(), 1u);
}

// Churn that is normal is not a gap: an instance that had been there for less than
// kSettledPresence, or that stayed away longer than kLongestGap (it went; a later one of the same
// name is another).
TEST_F(InstanceGapsTest, AnUnsettledInstanceOrALongAbsenceIsNoGap) {
  ASSERT_TRUE(Play(without_disk_, 2).empty());
  ASSERT_TRUE(Play(whole_, 3).empty());  // 3 minutes there
  ASSERT_TRUE(Play(without_disk_, 2).empty());
  EXPECT_TRUE(Next(whole_).empty());

  ASSERT_TRUE(Play(whole_, 10).empty());
  ASSERT_TRUE(Play(without_disk_, 16).empty());
  EXPECT_TRUE(Next(whole_).empty());
}

// A snapshot without the whole object says nothing of its instances: the object's own gap is the
// finding (object-came-and-went), not one per instance.
TEST_F(InstanceGapsTest, AnObjectThatWentIsNotAGapOfEachInstance) {
  ASSERT_TRUE(Play(whole_, 10).empty());
  ASSERT_TRUE(Play(without_object_, 3).empty());
  EXPECT_TRUE(Play(whole_, 3).empty());
}

// A clock stepped back: what was followed starts afresh, and no gap spans the step.
TEST_F(InstanceGapsTest, AClockSteppedBackStartsAfresh) {
  ASSERT_TRUE(Play(whole_, 10).empty());
  ASSERT_TRUE(Play(without_disk_, 1).empty());
  now_ns_ -= 30 * kGapMinuteNs;
  EXPECT_TRUE(Next(whole_).empty());
}

// Builder-made: an object with more instances than are followed (Process and Thread on a busy
// host) gives no gap, however its instances come and go.
TEST(InstanceGapsBuilderTest, ObjectsWithManyInstancesAreNotFollowed) {
  auto make = [](int instances, bool with_first) {
    SnapshotBuilder builder;
    ObjectBuilder& object = builder.AddObject(230);
    object.AddCounter({.name_index = 6, .type = winperf::kCounterRawcount});
    for (int i = with_first ? 0 : 1; i < instances; ++i) {
      object.AddInstance("p" + std::to_string(i));
    }
    return builder.Build();
  };
  for (int instances : {kMostInstancesFollowed, kMostInstancesFollowed + 2}) {
    SCOPED_TRACE(instances);
    InstanceGapTracker tracker;
    const std::vector<uint8_t> with = make(instances, true);
    const std::vector<uint8_t> without = make(instances, false);
    int64_t now = kGapStartNs;
    size_t gaps = 0;
    for (const std::vector<uint8_t>* raw :
         {&with, &with, &with, &with, &with, &with, &with, &without, &with}) {
      now += kGapMinuteNs;
      Result<SnapshotReader> reader = SnapshotReader::Open(*raw);
      ASSERT_TRUE(reader.ok());
      gaps += tracker.Note(*reader, now).size();
    }
    // At the limit (without p0 it has one fewer) it is followed; above, never.
    EXPECT_EQ(gaps, instances <= kMostInstancesFollowed ? 1u : 0u);
  }
}

}  // namespace
}  // namespace perfhive
