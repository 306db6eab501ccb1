// ObjectSweep with a source the test controls: objects learnt from the snapshots, each timed
// asked for alone within the tick's budget, the sweep handed over when every one was timed, and
// the next an hour later.

#include "agent/object_sweep.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "perfdata/snapshot_builder.h"

namespace perfhive {
namespace {

using std::chrono::milliseconds;

// Objects 2 and 4 with data, 234 slow to collect, 9 metadata only (no data to time).
std::vector<uint8_t> Snapshot() {
  SnapshotBuilder builder;
  for (uint32_t index : {2u, 4u, 234u}) {
    ObjectBuilder& object = builder.AddObject(index);
    object.set_no_instances();
    object.SetValue(0, object.AddCounter({.name_index = index + 2}), 1);
  }
  builder.AddObject(9).set_metadata(-3);
  return builder.Build();
}

// Answers an index query with the whole snapshot; 234 after `slow`, 4 with an error.
class TimedSource : public SnapshotSource {
 public:
  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override {
    asked.emplace_back(query);
    if (query == "234") std::this_thread::sleep_for(slow);
    if (query == "4") return Status::Error("RegQueryValueExW(4): error 5");
    return Snapshot();
  }
  Result<std::vector<TitleBytes>> ReadTitles() override { return std::vector<TitleBytes>{}; }
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override {
    return std::optional<std::vector<TitleBytes>>();
  }
  std::vector<std::string> TakeWarnings() override { return {}; }
  Result<HostIdentity> Identity() override { return HostIdentity{}; }
  Result<std::vector<DisabledProvider>> DisabledProviders() override {
    return std::vector<DisabledProvider>{};
  }

  milliseconds slow{30};
  std::vector<std::string> asked;
};

TEST(ObjectSweepTest, EachObjectOfTheSnapshotsIsTimedAloneAndTheSweepEndsWhenAllAre) {
  TimedSource source;
  ObjectSweep sweep;
  const auto start = ObjectSweep::Clock::now();
  const std::vector<uint8_t> snapshot = Snapshot();
  // The first tick knows no object yet: it learns them from its snapshot.
  EXPECT_TRUE(sweep.Due(start).empty());
  EXPECT_FALSE(sweep.Note({}, &snapshot, start, milliseconds(10000)));
  const std::vector<uint32_t> due = sweep.Due(start);
  EXPECT_EQ(due, (std::vector<uint32_t>{2, 4, 234}));

  std::vector<v1::ObjectTiming> timed = ObjectSweep::Time(source, due, std::chrono::hours(1));
  EXPECT_EQ(source.asked, (std::vector<std::string>{"2", "4", "234"}));
  std::optional<v1::ObjectTimings> done =
      sweep.Note(std::move(timed), &snapshot, start, milliseconds(10000));
  ASSERT_TRUE(done);
  EXPECT_EQ(done->interval_nanos(), 10'000'000'000);
  ASSERT_EQ(done->objects_size(), 3);
  std::map<uint32_t, v1::ObjectTiming> by_index;
  for (const v1::ObjectTiming& object : done->objects()) by_index[object.object_index()] = object;
  EXPECT_GE(by_index[234].nanos(), 30'000'000);
  EXPECT_EQ(by_index[234].bytes(), snapshot.size());
  EXPECT_LT(by_index[2].nanos(), by_index[234].nanos());
  EXPECT_EQ(by_index[4].error(), "RegQueryValueExW(4): error 5");

  // The next sweep is an hour later.
  EXPECT_TRUE(sweep.Due(start + std::chrono::minutes(59)).empty());
  EXPECT_FALSE(sweep.Note({}, &snapshot, start + std::chrono::minutes(59), milliseconds(10000)));
  EXPECT_TRUE(sweep.Due(start + std::chrono::minutes(61)).empty());  // starts, learns again
  EXPECT_FALSE(sweep.Note({}, &snapshot, start + std::chrono::minutes(61), milliseconds(10000)));
  EXPECT_EQ(sweep.Due(start + std::chrono::minutes(61)), (std::vector<uint32_t>{2, 4, 234}));
}

TEST(ObjectSweepTest, ATickTimesObjectsWithinItsBudgetAndTheRestWait) {
  TimedSource source;
  ObjectSweep sweep;
  const auto now = ObjectSweep::Clock::now();
  const std::vector<uint8_t> snapshot = Snapshot();
  sweep.Due(now);
  sweep.Note({}, &snapshot, now, milliseconds(100));
  // A budget already spent still times the first: a slow object is what the sweep is for.
  std::vector<v1::ObjectTiming> timed =
      ObjectSweep::Time(source, sweep.Due(now), std::chrono::nanoseconds(0));
  ASSERT_EQ(timed.size(), 1u);
  EXPECT_FALSE(sweep.Note(std::move(timed), &snapshot, now, milliseconds(100)));
  EXPECT_EQ(sweep.Due(now), (std::vector<uint32_t>{4, 234}));
  timed = ObjectSweep::Time(source, sweep.Due(now), std::chrono::hours(1));
  std::optional<v1::ObjectTimings> done =
      sweep.Note(std::move(timed), nullptr, now, milliseconds(100));
  ASSERT_TRUE(done);
  EXPECT_EQ(done->objects_size(), 3);
}

}  // namespace
}  // namespace perfhive
