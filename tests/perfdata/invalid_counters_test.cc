// FindInvalidCounters: on real pairs of ../shared/fixtures (healthy in their order; WRXXCRPISAX01's
// pair read the wrong way round, which makes every clock-divided value invalid, as PDH would), and
// on builder-made pairs for what a real capture does not show (one instance still valid, new
// instances, types without a number).

#include "perfdata/invalid_counters.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/winperf.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";

std::vector<uint8_t> RealCapture(const std::string& name) {
  return testing::ReadSharedFixture(std::filesystem::path(kZenoss) / name);
}

std::vector<InvalidCounter> Find(const std::vector<uint8_t>& older,
                                 const std::vector<uint8_t>& newer) {
  Result<SnapshotReader> a = SnapshotReader::Open(older);
  Result<SnapshotReader> b = SnapshotReader::Open(newer);
  EXPECT_TRUE(a.ok() && b.ok());
  if (!a.ok() || !b.ok()) return {};
  return FindInvalidCounters(*a, *b);
}

TEST(InvalidCountersTest, RealPairsInTheirOrderHaveNone) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  // -1 is WRXXCRPISAX01's older sample; the others' older is -0.
  for (const auto& [older, newer] :
       std::map<std::string, std::string>{{"kinex01-0.perf", "kinex01-1.perf"},
                                          {"s-exch2007-64-0.perf", "s-exch2007-64-1.perf"},
                                          {"win2003-0.perf", "win2003-1.perf"},
                                          {"wprepw01-0.perf", "wprepw01-1.perf"},
                                          {"wrxxcrpisax01-1.perf", "wrxxcrpisax01-0.perf"}}) {
    SCOPED_TRACE(newer);
    EXPECT_TRUE(Find(RealCapture(older), RealCapture(newer)).empty());
  }
}

// The pair the wrong way round: every value divided by a clock reads
// PDH_CALC_NEGATIVE_DENOMINATOR and every 8-byte count PDH_CALC_NEGATIVE_VALUE, on every
// instance. The walk over every value (ComputeSnapshotValues, checked value by value against the
// raw bytes in realdata_test.cc) must find the same counters as the search that stops at a
// counter's first valid instance.
TEST(InvalidCountersTest, APairReadTheWrongWayRoundHasEveryClockDividedCounterInvalid) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  const std::vector<uint8_t> older = RealCapture("wrxxcrpisax01-0.perf");
  const std::vector<uint8_t> newer = RealCapture("wrxxcrpisax01-1.perf");
  const std::vector<InvalidCounter> invalid = Find(older, newer);

  std::map<std::pair<uint32_t, uint32_t>, bool> any_valid;  // by walking every value
  Result<SnapshotReader> a = SnapshotReader::Open(older);
  Result<SnapshotReader> b = SnapshotReader::Open(newer);
  ASSERT_TRUE(a.ok() && b.ok());
  ComputeSnapshotValues(&*a, *b, {}, [&](const ComputedValue& v) {
    if (v.value.status == PdhStatus::kNoData) return;
    bool& valid = any_valid[{v.object.name_index(), v.counter.name_index()}];
    valid = valid || IsSuccess(v.value.status);
  });
  std::vector<std::pair<uint32_t, uint32_t>> walked;
  for (const auto& [key, valid] : any_valid) {
    if (!valid) walked.push_back(key);
  }
  std::vector<std::pair<uint32_t, uint32_t>> found;
  std::map<PdhStatus, int> by_status;
  for (const InvalidCounter& counter : invalid) {
    found.push_back({counter.object_index, counter.counter_index});
    ++by_status[counter.status];
  }
  EXPECT_EQ(found, walked);
  EXPECT_EQ(invalid.size(), 126u);
  EXPECT_EQ(by_status[PdhStatus::kNegativeDenominator], 118);
  EXPECT_EQ(by_status[PdhStatus::kNegativeValue], 8);
  // System's File Read Operations/sec (2, 10), a rate over the block's clock.
  EXPECT_EQ(invalid.front(), (InvalidCounter{2, 10, PdhStatus::kNegativeDenominator}));
}

constexpr uint32_t kBuiltObject = 1000;
constexpr uint32_t kBackwards = 1002;  // 8-byte count going backwards on every instance
constexpr uint32_t kOneValid = 1004;   // going backwards on one instance only
constexpr uint32_t kInstant = 1006;    // a raw count: one sample, always valid
constexpr uint32_t kText = 1008;       // text: no number
constexpr uint32_t kNewObject = 1100;  // only in the newer snapshot

// Instances `names` with, per counter above, the values given (text left empty).
std::vector<uint8_t> Sample(int64_t perf_time, const std::vector<std::string>& names,
                            uint64_t backwards, uint64_t one_valid_first, bool new_object) {
  SnapshotBuilder builder;
  builder.set_perf_time(perf_time).set_perf_time_100ns(perf_time).set_perf_freq(10'000'000);
  ObjectBuilder& object = builder.AddObject(kBuiltObject);
  const uint32_t a =
      object.AddCounter({.name_index = kBackwards, .type = winperf::kCounterBulkCount});
  const uint32_t b =
      object.AddCounter({.name_index = kOneValid, .type = winperf::kCounterBulkCount});
  const uint32_t c = object.AddCounter({.name_index = kInstant, .type = winperf::kCounterRawcount});
  object.AddCounter({.name_index = kText, .type = winperf::kCounterText, .size = 8});
  for (uint32_t i = 0; i < names.size(); ++i) {
    object.AddInstance(names[i]);
    object.SetValue(i, a, backwards - i);
    object.SetValue(i, b, i == 0 ? one_valid_first : 1000);
    object.SetValue(i, c, 7);
  }
  if (new_object) {
    ObjectBuilder& added = builder.AddObject(kNewObject);
    added.set_no_instances();
    added.SetValue(
        0, added.AddCounter({.name_index = kBackwards, .type = winperf::kCounterBulkCount}), 5);
  }
  return builder.Build();
}

TEST(InvalidCountersTest, ACounterIsInvalidOnlyWhenNoInstanceHasAValidValue) {
  // b: instance 0 goes back (2000 → 1500), instance 1 stays at 1000 (a valid 0/s).
  const std::vector<uint8_t> older = Sample(10'000'000, {"x", "y"}, 900, 2000, false);
  const std::vector<uint8_t> newer = Sample(20'000'000, {"x", "y"}, 800, 1500, true);
  EXPECT_EQ(Find(older, newer),
            (std::vector<InvalidCounter>{{kBuiltObject, kBackwards, PdhStatus::kNegativeValue}}));
}

TEST(InvalidCountersTest, NewInstancesAndObjectsSayNothing) {
  // The newer sample's instances are all new: their first interval is invalid in PDH too.
  const std::vector<uint8_t> older = Sample(10'000'000, {"x", "y"}, 900, 2000, false);
  const std::vector<uint8_t> newer = Sample(20'000'000, {"z"}, 800, 1500, true);
  EXPECT_TRUE(Find(older, newer).empty());
}

TEST(InvalidCountersTest, AClockThatDoesNotAdvanceLeavesOnlyOneSampleTypesValid) {
  const std::vector<uint8_t> older = Sample(10'000'000, {"x"}, 900, 2000, false);
  const std::vector<uint8_t> newer = Sample(10'000'000, {"x"}, 1900, 3000, false);
  const std::vector<InvalidCounter> invalid = Find(older, newer);
  ASSERT_EQ(invalid.size(), 2u);
  EXPECT_EQ(invalid[0],
            (InvalidCounter{kBuiltObject, kBackwards, PdhStatus::kNegativeDenominator}));
  EXPECT_EQ(invalid[1], (InvalidCounter{kBuiltObject, kOneValid, PdhStatus::kNegativeDenominator}));
}

}  // namespace
}  // namespace perfhive
