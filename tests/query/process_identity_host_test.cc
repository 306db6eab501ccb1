// Process identity over a real recording of this machine: Global snapshots taken here by the
// Linux source, then queried as \Process(*)\*. Issue 20 (case 4): in one sample every process's
// raw start (Elapsed Time) came one 100 ns unit early, and each process's history split in two
// (2,278 series instead of about 1,200, 528 points invalid). A start that differs by less than
// the source's resolution is the same process; one that differs by more is a new one.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/pdh_status.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "query/series_query.h"
#include "sources/procfs/procfs_source.h"
#include "sources/procfs/procfs_titles.h"

namespace perfhive::query {
namespace {

namespace ti = title_index;

constexpr int kSamples = 24;
constexpr int kShiftedSample = kSamples / 2;

// kSamples Global snapshots of this host, 150 ms apart, taken once for the whole suite.
class HostRecordingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
    ASSERT_TRUE(source.ok()) << source.error();
    auto english = std::make_shared<const TitleDatabase>(ProcfsTitleDatabase());
    recording_ = new HostSamples{"thishost", {}};
    for (int i = 0; i < kSamples; ++i) {
      Result<std::vector<uint8_t>> bytes = (*source)->TakeSnapshot("Global");
      ASSERT_TRUE(bytes.ok()) << bytes.error();
      int64_t time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
      recording_->samples.push_back(
          {time_ns, std::make_shared<const std::vector<uint8_t>>(std::move(bytes).value()), english,
           nullptr});
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
    }
  }
  static void TearDownTestSuite() {
    delete recording_;
    recording_ = nullptr;
  }

  static HostSamples* recording_;
};
HostSamples* HostRecordingTest::recording_ = nullptr;

// The sample with `shift` added to the raw Elapsed Time of its processes (every one, or the
// one with ID Process `only_pid`).
HostSample WithStartsShifted(const HostSample& sample, int64_t shift,
                             std::optional<uint64_t> only_pid = std::nullopt) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(*sample.bytes);
  SnapshotReader reader = SnapshotReader::Open(*bytes).value();
  ObjectView process = *reader.FindObject(ti::kProcess);
  std::optional<CounterDefinitionView> start, pid;
  for (CounterDefinitionView counter : process.counters()) {
    if (counter.name_index() == ti::kElapsedTime) start = counter;
    if (counter.name_index() == ti::kIdProcess) pid = counter;
  }
  EXPECT_TRUE(start && pid && start->size() == 8);
  for (InstanceView instance : process.instances()) {
    if (only_pid && instance.counters().Value(*pid) != *only_pid) continue;
    uint64_t value = *instance.counters().Value(*start) + static_cast<uint64_t>(shift);
    std::memcpy(bytes->data() + instance.counters().position() + start->offset(), &value,
                sizeof value);
  }
  return {sample.time_ns, std::move(bytes), sample.english, sample.localized};
}

QueryAnswer AllProcessCounters(const HostSamples& host) {
  const std::vector<CounterPath> paths = {*ParseCounterPath("\\Process(*)\\*")};
  Result<QueryAnswer> answer = RunQuery(host, paths);
  EXPECT_TRUE(answer.ok()) << answer.error();
  return answer.ok() ? std::move(answer).value() : QueryAnswer();
}

// The statuses of the series' points, as PDH names them.
std::vector<std::string> Statuses(const Series& series) {
  std::vector<std::string> statuses;
  for (const Point& point : series.points) statuses.emplace_back(PdhStatusName(point.value.status));
  return statuses;
}

size_t InvalidPoints(const QueryAnswer& answer) {
  size_t invalid = 0;
  for (const Series& series : answer.series) {
    for (const Point& point : series.points) invalid += !IsSuccess(point.value.status);
  }
  return invalid;
}

TEST_F(HostRecordingTest, AStartOneUnitOffIsTheSameProcess) {
  HostSamples shifted = *recording_;
  shifted.samples[kShiftedSample] = WithStartsShifted(shifted.samples[kShiftedSample], -1);
  QueryAnswer recorded = AllProcessCounters(*recording_);
  QueryAnswer answer = AllProcessCounters(shifted);
  ASSERT_FALSE(recorded.series.empty());
  ASSERT_EQ(answer.series.size(), recorded.series.size());
  // Only what the recording explains is invalid (a process's first sample, one that started
  // during it), and at the same points.
  EXPECT_EQ(InvalidPoints(answer), InvalidPoints(recorded));
  for (size_t i = 0; i < answer.series.size(); ++i) {
    // Series come in order of first appearance: the same instances' in both.
    const Series& series = answer.series[i];
    const Series& want = recorded.series[i];
    SCOPED_TRACE(want.path());
    EXPECT_EQ(series.paths, want.paths);
    EXPECT_EQ(series.identity.pid, want.identity.pid);
    EXPECT_EQ(Statuses(series), Statuses(want));
  }
}

// The same process, whatever a start off by one unit does to the order of first sightings: the
// shifted start is seen first.
TEST_F(HostRecordingTest, AStartOneUnitOffInTheFirstSampleIsTheSameProcess) {
  HostSamples shifted = *recording_;
  shifted.samples[0] = WithStartsShifted(shifted.samples[0], 1);
  QueryAnswer recorded = AllProcessCounters(*recording_);
  QueryAnswer answer = AllProcessCounters(shifted);
  EXPECT_EQ(answer.series.size(), recorded.series.size());
  EXPECT_EQ(InvalidPoints(answer), InvalidPoints(recorded));
}

// PID reuse: this test's process "restarts" with its name and PID at the shifted sample, a
// second later. Each of its counters gets a new series there, whose first point has no older
// sample; the old series end at the sample before.
TEST_F(HostRecordingTest, AStartMovedByMoreThanATickIsANewProcess) {
  const uint64_t own = static_cast<uint64_t>(getpid());
  HostSamples reused = *recording_;
  for (int i = kShiftedSample; i < kSamples; ++i) {
    reused.samples[i] = WithStartsShifted(reused.samples[i], 10'000'000, own);
  }
  QueryAnswer recorded = AllProcessCounters(*recording_);
  QueryAnswer answer = AllProcessCounters(reused);
  size_t own_counters = 0;
  for (const Series& series : recorded.series) own_counters += series.identity.pid == own;
  ASSERT_GT(own_counters, 0u) << "this test's process is not in the recording";
  EXPECT_EQ(answer.series.size(), recorded.series.size() + own_counters);

  const int64_t reused_at = reused.samples[kShiftedSample].time_ns;
  size_t old_series = 0, new_series = 0;
  for (const Series& series : answer.series) {
    if (series.identity.pid != own) continue;
    SCOPED_TRACE(series.path());
    ASSERT_FALSE(series.points.empty());
    if (series.points.front().time_ns < reused_at) {
      ++old_series;
      EXPECT_LT(series.points.back().time_ns, reused_at);
    } else {
      ++new_series;
      EXPECT_EQ(series.points.front().time_ns, reused_at);
      if (NeedsTwoSamples(series.counter_type)) {
        EXPECT_EQ(series.points.front().value.status, PdhStatus::kInvalidData);
      }
    }
  }
  EXPECT_EQ(old_series, own_counters);
  EXPECT_EQ(new_series, own_counters);
}

}  // namespace
}  // namespace perfhive::query
