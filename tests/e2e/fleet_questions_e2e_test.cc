// The fleet's questions end to end (issue 35): Windows hosts generated from the real machines of
// ../shared/fixtures (the fleet generator), at two intervals and with clocks of their own, one
// missing samples and one whose title database changes mid-range, replayed by real agents with
// labels to a real server; asked with `perfhive query --aggregate`, `--top` and `--compare`, and
// every answer compared with an independent computation from the per-series answer of the same
// range and steps. Skips without the fixtures.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "perfdata/time_text.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::testing {
namespace {

using json = nlohmann::json;
constexpr int64_t kSecond = 1'000'000'000;
const std::string kPath = "\\\\*\\Processor(_Total)\\% Processor Time";

// A generated host as the test replays it: its role, and the replay runs that deliver it.
struct FleetHost {
  std::string name;
  std::string role;
  std::vector<std::string> replays;  // replay directories, shipped in this order
};

// Writes `samples` (numbered from `first`) and `titles` as a replay directory.
std::string WriteReplay(const ScratchDir& scratch, const std::string& folder,
                        const std::vector<std::vector<uint8_t>>& samples,
                        const std::vector<uint8_t>& titles) {
  ReplayDir dir = WriteReplayFiles(scratch, folder, samples, titles);
  return dir.path;
}

class FleetQuestionsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!SharedFixturePresent("realdata")) return;
    scratch_ = new ScratchDir("fleet-questions");
    Result<std::vector<fleet::MachineLayout>> layouts =
        fleet::LoadMachineLayouts(SharedFixturesRoot());
    ASSERT_TRUE(layouts.ok()) << layouts.error();
    auto shared = std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(*layouts));
    // Six hosts at 10 s and two at 20 s, from the same start; each starts within its first
    // interval at a point of its own.
    for (const auto& [count, interval, prefix] : {std::tuple{6, 10, "A"}, std::tuple{2, 20, "B"}}) {
      fleet::FleetOptions options;
      options.seed = 35;
      options.hosts = count;
      options.interval_ns = interval * kSecond;
      options.start_unix_ns = kStart;
      options.layouts = {"wprepw01", "kinex01", "wrxxcrpisax01"};
      Result<fleet::FleetGenerator> generator = fleet::FleetGenerator::Create(shared, options);
      ASSERT_TRUE(generator.ok()) << generator.error();
      const int samples = static_cast<int>(kSpan / (interval * kSecond)) + 1;
      for (int h = 0; h < count; ++h) {
        fleet::HostSimulator simulator = generator->StartHost(h);
        FleetHost host;
        host.name = std::string(prefix) + "-" + simulator.profile().name;
        host.role = h % 2 == 0 ? "web" : "sql";
        std::vector<std::vector<uint8_t>> taken;
        for (int k = 0; k < samples; ++k) taken.push_back(simulator.Next().snapshot);
        const std::vector<uint8_t> titles = simulator.titles();
        if (host.name.starts_with("A") && h == 3) {
          // Down for a minute in the middle.
          taken.erase(taken.begin() + samples / 2, taken.begin() + samples / 2 + 6);
        }
        if (host.name.starts_with("A") && h == 1) {
          // A provider installed half way: the second half carries a new title database.
          std::vector<std::vector<uint8_t>> second(taken.begin() + samples / 2, taken.end());
          taken.resize(samples / 2);
          host.replays.push_back(WriteReplay(*scratch_, host.name + "-1", taken, titles));
          host.replays.push_back(WriteReplay(*scratch_, host.name + "-2", second,
                                             WithANewTitle(titles, "Perfhive Test Provider")));
        } else {
          host.replays.push_back(WriteReplay(*scratch_, host.name, taken, titles));
        }
        hosts_.push_back(host);
      }
    }
    server_ = new ServerProcess(*scratch_);
    ASSERT_TRUE(server_->Start());
    for (const FleetHost& host : hosts_) {
      for (const std::string& replay : host.replays) {
        CommandResult shipped = RunCommand(*scratch_,
                                           {AgentBinary(),
                                            "run",
                                            "--server",
                                            server_->address(),
                                            "--insecure",
                                            "--source",
                                            "replay",
                                            "--replay",
                                            replay,
                                            "--host-name",
                                            host.name,
                                            "--interval",
                                            "5ms",
                                            "--label",
                                            "role=" + host.role,
                                            "--label",
                                            "site=ams",
                                            "--spool-dir",
                                            *scratch_ / ("spool-" + host.name),
                                            "--timeout",
                                            "90s"},
                                           std::chrono::seconds(120));
        ASSERT_EQ(shipped.exit_code, 0) << host.name << ": " << shipped.err;
      }
    }
  }
  static void TearDownTestSuite() {
    delete server_;
    delete scratch_;
    server_ = nullptr;
    scratch_ = nullptr;
  }
  void SetUp() override { PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("realdata"); }

  // `perfhive query` with `options`, its JSON.
  static json Query(const std::vector<std::string>& options) {
    std::vector<std::string> argv = {CliBinary(),        "query",      kPath,      "--server",
                                     server_->address(), "--insecure", "--format", "json"};
    argv.insert(argv.end(), options.begin(), options.end());
    CommandResult answer = RunCommand(*scratch_, argv);
    EXPECT_EQ(answer.exit_code, 0) << answer.err;
    return json::parse(answer.out, nullptr, false);
  }
  static std::vector<std::string> Window(int64_t from_s, int64_t to_s, const char* step = "60s") {
    return {"--from", FormatRfc3339(kStart + from_s * kSecond),
            "--to",   FormatRfc3339(kStart + to_s * kSecond),
            "--step", step};
  }
  static std::string RoleOf(const std::string& host) {
    for (const FleetHost& one : hosts_) {
      if (one.name == host) return one.role;
    }
    ADD_FAILURE() << "an unknown host in the answer: " << host;
    return "";
  }

  static constexpr int64_t kStart = 1'767'571'200LL * kSecond;  // 2026-01-05T00:00:00Z
  static constexpr int64_t kSpan = 600 * kSecond;               // ten minutes of samples
  static inline ScratchDir* scratch_ = nullptr;
  static inline ServerProcess* server_ = nullptr;
  static inline std::vector<FleetHost> hosts_;
};

double NearestRank(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100 * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

TEST_F(FleetQuestionsTest, AGroupsStepsEqualItsMembersValuesCombinedByHand) {
  const std::vector<std::string> window = Window(60, 570);
  json members = Query(window);
  ASSERT_TRUE(members.contains("series")) << members.dump();
  // By hand: role → step time → the member values there.
  std::map<std::string, std::map<int64_t, std::vector<double>>> by_hand;
  std::map<std::string, std::set<std::string>> hosts_of;
  for (const json& series : members["series"]) {
    const std::string role = RoleOf(series["host"]);
    hosts_of[role].insert(series["host"]);
    for (size_t k = 0; k < series["times"].size(); ++k) {
      if (series["values"][k].is_null()) continue;
      by_hand[role][series["times"][k].get<int64_t>()].push_back(series["values"][k].get<double>());
    }
  }
  ASSERT_EQ(hosts_of["web"].size(), 4u);
  ASSERT_EQ(hosts_of["sql"].size(), 4u);

  std::vector<std::string> options = window;
  options.insert(options.end(), {"--select", "site=ams", "--aggregate", "avg,min,max,count,p95",
                                 "--group-by", "role"});
  json aggregated = Query(options);
  ASSERT_EQ(aggregated["series"].size(), 2u * 5u) << aggregated.dump();
  size_t compared = 0;
  bool some_step_misses_a_host = false;
  for (const json& series : aggregated["series"]) {
    const std::string role = series["aggregate"]["group"];
    const std::string function = series["aggregate"]["function"];
    EXPECT_EQ(series["aggregate"]["members"], hosts_of[role].size());
    const auto& steps = by_hand[role];
    ASSERT_EQ(series["times"].size(), steps.size()) << role << " " << function;
    size_t k = 0;
    for (const auto& [time, values] : steps) {
      EXPECT_EQ(series["times"][k].get<int64_t>(), time);
      EXPECT_EQ(series["aggregate"]["contributors"][k].get<size_t>(), values.size());
      if (values.size() < hosts_of[role].size()) some_step_misses_a_host = true;
      double sum = 0;
      for (double value : values) sum += value;
      const double expected = function == "avg"   ? sum / static_cast<double>(values.size())
                              : function == "min" ? *std::min_element(values.begin(), values.end())
                              : function == "max" ? *std::max_element(values.begin(), values.end())
                              : function == "count" ? static_cast<double>(values.size())
                                                    : NearestRank(values, 95);
      EXPECT_NEAR(series["values"][k].get<double>(), expected, 1e-9 * std::max(1.0, expected))
          << role << " " << function << " at " << time;
      ++k;
      ++compared;
    }
  }
  EXPECT_GT(compared, 50u);
  EXPECT_TRUE(some_step_misses_a_host) << "the host that was down misses steps, counted missing";
}

// The host whose title database changed half way is stored under both versions, and is a member
// of its group's steps before and after the change.
TEST_F(FleetQuestionsTest, AHostWhoseTitlesChangedMidRangeCountsOnBothSides) {
  const FleetHost& changed = hosts_[1];
  ASSERT_EQ(changed.replays.size(), 2u);
  json stored = StoredSnapshots(*scratch_, *server_, changed.name);
  ASSERT_GE(stored.size(), 10u);
  std::vector<std::vector<uint8_t>> titles;
  for (const json* at : {&stored.front(), &stored.back()}) {
    const std::string file = *scratch_ / ("titles-" + std::to_string(titles.size()) + ".bin");
    CommandResult raw = RunCommand(
        *scratch_, {CliBinary(), "raw", "\\\\" + changed.name, "--at",
                    (*at)["time"].get<std::string>(), "--output", *scratch_ / "raw.bin",
                    "--titles-output", file, "--server", server_->address(), "--insecure"});
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    std::ifstream in(file, std::ios::binary);
    titles.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_NE(titles[0], titles[1]) << "the second half's database is the new one";

  std::vector<std::string> options = Window(60, 570);
  options.insert(options.end(), {"--select", "host=" + changed.name, "--aggregate", "count"});
  json answer = Query(options);
  ASSERT_EQ(answer["series"].size(), 1u) << answer.dump();
  const json& times = answer["series"][0]["times"];
  const int64_t change_ms = (kStart + kSpan / 2) / 1'000'000;
  EXPECT_LT(times.front().get<int64_t>(), change_ms);
  EXPECT_GT(times.back().get<int64_t>(), change_ms);
}

TEST_F(FleetQuestionsTest, TheTopHostsByP95AreTheOnesTheirStatisticsRank) {
  const std::vector<std::string> window = Window(60, 570, "10s");
  std::vector<std::string> options = window;
  options.push_back("--stats");
  json all = Query(options);
  std::vector<std::pair<double, std::string>> by_hand;
  for (const json& series : all["series"]) {
    if (series["statistics"]["count"] == 0) continue;
    by_hand.emplace_back(series["statistics"]["p95"].get<double>(), series["path"]);
  }
  std::stable_sort(by_hand.begin(), by_hand.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  ASSERT_GE(by_hand.size(), 3u);
  options = window;
  options.insert(options.end(), {"--top", "3", "--rank-by", "p95", "--stats"});
  json top = Query(options);
  ASSERT_EQ(top["series"].size(), 3u) << top.dump();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(top["series"][i]["path"], by_hand[i].second);
    EXPECT_DOUBLE_EQ(top["series"][i]["statistics"]["p95"].get<double>(), by_hand[i].first);
  }
}

TEST_F(FleetQuestionsTest, AWindowComparedWithTheOneBeforeGivesEachHostsTwoMeans) {
  json compared = Query([] {
    std::vector<std::string> options = Window(330, 570);
    options.insert(options.end(), {"--compare", "4m"});
    return options;
  }());
  ASSERT_FALSE(compared["series"].empty()) << compared.dump();
  // The earlier window on its own, and this one, with their statistics.
  json earlier = Query([] {
    std::vector<std::string> options = Window(90, 330);
    options.push_back("--stats");
    return options;
  }());
  std::map<std::string, double> earlier_mean;
  for (const json& series : earlier["series"]) {
    if (series["statistics"]["count"] > 0)
      earlier_mean[series["path"]] = series["statistics"]["mean"];
  }
  size_t checked = 0;
  for (const json& series : compared["series"]) {
    if (!series.contains("baseline") || series["baseline"]["mean"].is_null()) continue;
    EXPECT_EQ(series["baseline"]["offset_ms"], 240000);
    ASSERT_TRUE(earlier_mean.contains(series["path"])) << series["path"];
    EXPECT_NEAR(series["baseline"]["mean"].get<double>(), earlier_mean[series["path"]], 1e-9)
        << series["path"];
    ++checked;
  }
  EXPECT_GE(checked, 6u);
}

}  // namespace
}  // namespace perfhive::testing
