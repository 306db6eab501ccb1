// LiveSeries against the store's reads: a fleet generated from the real machines of
// ../shared/fixtures (processes that start and exit, `name#1` instances, title databases that
// change), each sample noted as the ingest notes it, and every read compared with the same read
// of the samples themselves.

#include "query/live_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfdata/title_list.h"
#include "query/read_engine.h"
#include "store/sample_time.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/query/memory_sample_reader.h"

#ifndef PERFHIVE_SHARED_DIR
#error "PERFHIVE_SHARED_DIR names the shared folder; tests/CMakeLists.txt sets it"
#endif

namespace perfhive::query {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMinute = 60 * kSecond;
constexpr int64_t kKeep = 4 * kMinute;

const std::vector<std::string> kPaths = {R"(\Processor(_Total)\% Processor Time)",
                                         R"(\Process(*)\% Processor Time)",
                                         R"(\Process(*)\Working Set)",
                                         R"(\Memory\Available Bytes)",
                                         R"(\PhysicalDisk(*)\Avg. Disk sec/Read)",
                                         R"(\System\Processor Queue Length)"};

// The real machines whose layouts have every path above.
const std::vector<std::string> kEveryPath = {"kinex01", "wprepw01"};

// Samples of a generated fleet, noted into `live` and added to `reader` as they are taken.
class FleetFeed {
 public:
  // Skips (false) without the shared fixtures. `machines`: the real machines copied (empty: all
  // six, round-robin).
  bool Start(int hosts, double title_changes, std::vector<std::string> machines = kEveryPath) {
    Result<std::vector<fleet::MachineLayout>> layouts =
        fleet::LoadMachineLayouts(std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures");
    if (!layouts.ok()) return false;
    fleet::FleetOptions options;
    options.seed = 11;
    options.hosts = hosts;
    options.process_starts_per_minute = 6;
    options.title_change_probability = title_changes;
    options.layouts = std::move(machines);
    Result<fleet::FleetGenerator> generator = fleet::FleetGenerator::Create(
        std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(layouts).value()),
        options);
    if (!generator.ok()) return false;
    generator_.emplace(std::move(generator).value());
    for (int h = 0; h < hosts; ++h) {
      hosts_.push_back({generator_->StartHost(h), generator_->profile(h).name, std::nullopt, {}});
    }
    return true;
  }

  // The next sample of every host; those of `skipped` are stored but not noted (a host whose
  // stream the live series did not see).
  void Round(const std::string& skipped = "") {
    for (Host& host : hosts_) {
      fleet::GeneratedSample generated = host.simulator.Next();
      if (generated.titles_changed || !host.titles) {
        auto titles = std::make_shared<TitleDatabase>();
        ASSERT_TRUE(ParseTitleList(host.simulator.titles(), false, *titles).ok());
        host.titles = titles;
      }
      Result<SnapshotReader> reader = SnapshotReader::Open(generated.snapshot);
      ASSERT_TRUE(reader.ok());
      Result<int64_t> time = UnixNanosFromSystemTime(reader->system_time());
      ASSERT_TRUE(time.ok());
      HostSample sample{*time,
                        std::make_shared<const std::vector<uint8_t>>(std::move(generated.snapshot)),
                        *host.titles, nullptr, "Global"};
      reader_.Add(host.name, sample);
      newest_ns_ = std::max(newest_ns_, *time);
      if (host.name == skipped) {
        host.previous.reset();
        continue;
      }
      live_.Note(host.name, host.previous ? &*host.previous : nullptr, sample);
      host.previous = sample;
    }
  }

  std::vector<std::string> names() const {
    std::vector<std::string> names;
    for (const Host& host : hosts_) names.push_back(host.name);
    return names;
  }
  LiveSeries& live() { return live_; }
  testing::MemorySampleReader& reader() { return reader_; }
  int64_t newest_ns() const { return newest_ns_; }

 private:
  struct Host {
    fleet::HostSimulator simulator;
    std::string name;
    std::optional<HostSample> previous;
    std::optional<std::shared_ptr<const TitleDatabase>> titles;
  };
  std::optional<fleet::FleetGenerator> generator_;
  std::vector<Host> hosts_;
  LiveSeries live_;
  testing::MemorySampleReader reader_;
  int64_t newest_ns_ = 0;
};

void Follow(LiveSeries& live) {
  std::vector<LiveSeries::Followed> followed;
  for (const std::string& path : kPaths) followed.push_back({path, {}, kKeep});
  live.Follow(followed);
}

// Processes of one name that start and exit have series of the same path: their identities
// tell them apart.
std::string KeyOf(const Series& series) {
  if (!series.aggregate) return series.path() + "|" + series.identity.key;
  return series.path() + "|" + series.aggregate->function + "|" + series.aggregate->group;
}

// The same answers, point by point (aggregates summed in another order may differ in the last
// bits).
void ExpectSameAnswer(const QueryAnswer& live, const QueryAnswer& stored, const std::string& what) {
  ASSERT_EQ(live.series.size(), stored.series.size()) << what;
  std::map<std::string, const Series*> by_path;
  for (const Series& series : stored.series) {
    by_path[KeyOf(series)] = &series;
  }
  for (const Series& series : live.series) {
    const std::string key = KeyOf(series);
    auto found = by_path.find(key);
    ASSERT_NE(found, by_path.end()) << what << ": " << key;
    const Series& other = *found->second;
    ASSERT_EQ(series.points.size(), other.points.size()) << what << ": " << key;
    for (size_t p = 0; p < series.points.size(); ++p) {
      const Point& a = series.points[p];
      const Point& b = other.points[p];
      EXPECT_EQ(a.time_ns, b.time_ns) << what << ": " << key << " point " << p;
      EXPECT_EQ(a.value.status, b.value.status) << what << ": " << key << " point " << p;
      EXPECT_NEAR(a.value.value, b.value.value, 1e-9 * std::max(1.0, std::fabs(b.value.value)))
          << what << ": " << key << " point " << p;
    }
    if (series.aggregate) {
      EXPECT_EQ(series.aggregate->contributors, other.aggregate->contributors) << what << key;
    }
  }
  EXPECT_EQ(live.warnings, stored.warnings) << what;
}

TEST(LiveSeriesTest, AnswersAsTheSamplesDoAcrossARealisticFleet) {
  FleetFeed feed;
  if (!feed.Start(6, 1.0 / 25, {})) GTEST_SKIP() << "no fixtures under " << PERFHIVE_SHARED_DIR;
  Follow(feed.live());
  for (int round = 0; round < 40; ++round) feed.Round();
  ReadEngine stored(feed.reader());
  ReadEngine live(feed.reader());
  live.set_live_series(&feed.live());
  const int64_t now = feed.newest_ns() + 2 * kSecond;
  size_t answered_live = 0;
  for (const std::string& path : kPaths) {
    for (int64_t back : {45 * kSecond, 2 * kMinute, 3 * kMinute}) {
      ReadRequest request;
      request.paths = {path};
      request.from_ns = now - back;
      const std::string what = path + " over the last " + std::to_string(back / kSecond) + " s";
      feed.reader().ClearLoaded();
      Result<QueryAnswer> from_live = live.Read(request);
      const size_t loaded = feed.reader().loaded().size();
      Result<QueryAnswer> from_samples = stored.Read(request);
      ASSERT_EQ(from_live.ok(), from_samples.ok()) << what;
      if (!from_live.ok()) continue;
      ExpectSameAnswer(*from_live, *from_samples, what);
      // Hosts that have the path are answered from memory; the others from their samples, which
      // explain why the path selected nothing there, and from memory at the next read.
      answered_live += feed.names().size() - loaded;
      feed.reader().ClearLoaded();
      Result<QueryAnswer> again = live.Read(request);
      ASSERT_TRUE(again.ok()) << what;
      ExpectSameAnswer(*again, *from_samples, what + ", again");
      EXPECT_EQ(feed.reader().loaded().size(), 0u) << what << ": a host read from its samples";
      // And aggregated by host and by counter, at 15 s and at a minute, aligned as rules align.
      for (int64_t step : {15 * kSecond, kMinute}) {
        for (const char* by : {"host", "counter"}) {
          ReadRequest grouped = request;
          grouped.from_ns -= grouped.from_ns % step;
          grouped.step_ns = step;
          grouped.aggregation = Aggregation{
              *ParseGroupBy(by),
              {AggregateFunction::kAvg, AggregateFunction::kP95, AggregateFunction::kCount}};
          Result<QueryAnswer> live_groups = live.Read(grouped);
          Result<QueryAnswer> stored_groups = stored.Read(grouped);
          ASSERT_EQ(live_groups.ok(), stored_groups.ok()) << what;
          if (live_groups.ok()) {
            ExpectSameAnswer(*live_groups, *stored_groups,
                             what + " by " + by + " at " + std::to_string(step / kSecond) + " s");
          }
        }
      }
    }
  }
  EXPECT_GT(answered_live, kPaths.size() * 3 * 3) << "the live series answered too few hosts";
}

TEST(LiveSeriesTest, RangesBeforeWhatWasFollowedAreTheStores) {
  FleetFeed feed;
  if (!feed.Start(2, 0)) GTEST_SKIP() << "no fixtures under " << PERFHIVE_SHARED_DIR;
  for (int round = 0; round < 10; ++round) feed.Round();
  const int64_t followed_from = feed.newest_ns();
  Follow(feed.live());
  for (int round = 0; round < 10; ++round) feed.Round();
  const std::string host = feed.names()[0];
  const std::string path = kPaths[0];
  // Reaching back before the first sample noted: not held here.
  EXPECT_FALSE(feed.live().Find(host, path, {}, followed_from - 30 * kSecond, INT64_MAX));
  // After it: held, and the read of it answers as the samples do.
  std::optional<LiveSeries::HostAnswer> held =
      feed.live().Find(host, path, {}, followed_from + 25 * kSecond, INT64_MAX);
  ASSERT_TRUE(held);
  ASSERT_EQ(held->series.size(), 1u);
  ReadEngine live(feed.reader());
  live.set_live_series(&feed.live());
  ReadEngine stored(feed.reader());
  ReadRequest request;
  request.paths = {path};
  request.from_ns = followed_from - 30 * kSecond;
  ExpectSameAnswer(*live.Read(request), *stored.Read(request), "before following");
}

TEST(LiveSeriesTest, AStreamTheLiveSeriesMissedIsReadFromTheSamples) {
  FleetFeed feed;
  if (!feed.Start(2, 0)) GTEST_SKIP() << "no fixtures under " << PERFHIVE_SHARED_DIR;
  Follow(feed.live());
  for (int round = 0; round < 12; ++round) feed.Round();
  const std::string host = feed.names()[1];
  // One sample stored while the live series did not see it (a stream it missed): the next one
  // is noted without its predecessor, so ranges reaching back over the gap are the store's.
  const int64_t before_gap = feed.newest_ns();
  feed.Round(host);
  for (int round = 0; round < 6; ++round) feed.Round();
  EXPECT_FALSE(feed.live().Find(host, kPaths[0], {}, before_gap, INT64_MAX));
  EXPECT_TRUE(feed.live().Find(feed.names()[0], kPaths[0], {}, before_gap, INT64_MAX));
  EXPECT_TRUE(feed.live().Find(host, kPaths[0], {}, feed.newest_ns() - 30 * kSecond, INT64_MAX));
  ReadEngine live(feed.reader());
  live.set_live_series(&feed.live());
  ReadEngine stored(feed.reader());
  ReadRequest request;
  request.paths = {kPaths[1]};
  request.from_ns = before_gap - 5 * kSecond;
  ExpectSameAnswer(*live.Read(request), *stored.Read(request), "across the gap");
}

TEST(LiveSeriesTest, ASampleOlderThanTheNewestNotedLeavesEarlierRangesToTheStore) {
  FleetFeed feed;
  if (!feed.Start(1, 0)) GTEST_SKIP() << "no fixtures under " << PERFHIVE_SHARED_DIR;
  Follow(feed.live());
  for (int round = 0; round < 12; ++round) feed.Round();
  const std::string host = feed.names()[0];
  const int64_t newest = feed.newest_ns();
  ASSERT_TRUE(feed.live().Find(host, kPaths[0], {}, newest - kMinute, INT64_MAX));
  // An agent's spool replayed: a sample taken before the newest arrives now.
  Result<HostSamples> stored = feed.reader().LoadRange(host, newest - kMinute, newest, nullptr);
  ASSERT_TRUE(stored.ok());
  feed.live().Note(host, nullptr, stored->samples[2]);
  EXPECT_FALSE(feed.live().Find(host, kPaths[0], {}, newest - kMinute, INT64_MAX));
  feed.Round();
  EXPECT_TRUE(feed.live().Find(host, kPaths[0], {}, newest + kSecond, INT64_MAX));
}

TEST(LiveSeriesTest, PathsNoLongerFollowedAreDroppedAndOthersKept) {
  FleetFeed feed;
  if (!feed.Start(1, 0)) GTEST_SKIP() << "no fixtures under " << PERFHIVE_SHARED_DIR;
  Follow(feed.live());
  for (int round = 0; round < 6; ++round) feed.Round();
  const std::string host = feed.names()[0];
  const int64_t from = feed.newest_ns() - 30 * kSecond;
  const size_t held = feed.live().size().series;
  feed.live().Follow({{kPaths[0], {}, kKeep}});
  EXPECT_TRUE(feed.live().Find(host, kPaths[0], {}, from, INT64_MAX));
  EXPECT_FALSE(feed.live().Find(host, kPaths[1], {}, from, INT64_MAX));
  EXPECT_LT(feed.live().size().series, held);
  // Another format is another path: values scaled otherwise.
  FormatOptions capped;
  capped.cap_100 = true;
  EXPECT_FALSE(feed.live().Find(host, kPaths[0], capped, from, INT64_MAX));
  feed.live().Follow({});
  EXPECT_EQ(feed.live().size().hosts, 0u);
  EXPECT_FALSE(feed.live().following());
}

TEST(LiveSeriesTest, KeepsOnlyItsWindow) {
  FleetFeed feed;
  if (!feed.Start(1, 0)) GTEST_SKIP() << "no fixtures under " << PERFHIVE_SHARED_DIR;
  feed.live().Follow({{kPaths[0], {}, kMinute}});
  for (int round = 0; round < 60; ++round) feed.Round();
  // A minute at 10 s, the sample before it, and the quarter minute trimmed at once.
  EXPECT_LE(feed.live().size().raw_samples, 9u);
  EXPECT_FALSE(
      feed.live().Find(feed.names()[0], kPaths[0], {}, feed.newest_ns() - 2 * kMinute, INT64_MAX));
}

}  // namespace
}  // namespace perfhive::query
