// The local and remote Windows sources through the registry seam: keys kept open and closed,
// remote connections, the errors of unreachable hosts, backoff with an injected clock,
// reconnection, and hosts that fail without holding up the others.

#include "sources/hkpd/hkpd_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/sources/fake_registry.h"
#include "tests/sources/hkpd_test_util.h"
#include "tests/support/fake_clock_env.h"

namespace perfhive {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using testing::FakeRegistry;
using ::testing::HasSubstr;
using testing::NameList;
using testing::SnapshotOfAbout;

HkpdSourceOptions Options() {
  HkpdSourceOptions options;
  options.reader = testing::TestReaderOptions();
  options.first_backoff = std::chrono::seconds(1);
  options.max_backoff = std::chrono::seconds(4);
  return options;
}

int Count(const std::vector<std::string>& calls, const std::string& call) {
  return static_cast<int>(std::count(calls.begin(), calls.end(), call));
}

TEST(LocalHkpdSourceTest, KeepsThePerformanceKeyOpenAndClosesItOnShutdown) {
  FakeRegistry registry;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(500)};
  registry.values[{"HKPD", "Counter 009"}] = {NameList({{2, "System"}}), kRegMultiSz};
  registry.values[{"HKPD", "Help 009"}] = {testing::HelpList({{3, "help"}}), kRegMultiSz};
  testing::FakeClockEnv env;
  {
    LocalHkpdSource source(registry, env, Options());
    for (int sample = 0; sample < 3; ++sample) {
      Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
      ASSERT_TRUE(bytes.ok()) << bytes.error();
      EXPECT_EQ(*bytes, (registry.values[{"HKPD", "Global"}].bytes));
    }
    Result<std::optional<std::vector<TitleBytes>>> titles = source.ReadTitlesIfChanged();
    ASSERT_TRUE(titles.ok()) << titles.error();
    ASSERT_TRUE(titles->has_value());
    ASSERT_EQ((*titles)->size(), 1u);
    EXPECT_EQ((*titles)->front().counters, NameList({{2, "System"}}));
    EXPECT_FALSE(source.ReadTitlesIfChanged()->has_value());
    EXPECT_EQ(Count(registry.calls, "close HKPD"), 0);
  }
  EXPECT_EQ(registry.calls.back(), "close HKPD");
  EXPECT_EQ(Count(registry.calls, "close HKPD"), 1);
}

TEST(RemoteHkpdSourceTest, UnreachableHostIsReportedAndRetriedWithBackoff) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  RemoteHkpdSource source(registry, env, "nosuchhost", Options());
  EXPECT_EQ(source.machine(), "\\\\nosuchhost");

  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "\\\\nosuchhost: RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed "
            "with 53 (ERROR_BAD_NETPATH: the network path was not found)");
  // Within the backoff, no new connection attempt.
  env.Advance(std::chrono::milliseconds(500));
  bytes = source.TakeSnapshot("Global");
  EXPECT_EQ(bytes.error(),
            "\\\\nosuchhost: not connected (last error 53 (ERROR_BAD_NETPATH: the "
            "network path was not found)); waiting 1000 ms between attempts");
  EXPECT_EQ(Count(registry.calls, "connect \\\\nosuchhost"), 1);
  // Backoff doubles: 1 s, 2 s, 4 s, then stays at the 4 s ceiling.
  std::vector<long> waits;
  for (int attempt = 0; attempt < 4; ++attempt) {
    env.Advance(std::chrono::seconds(10));
    ASSERT_FALSE(source.TakeSnapshot("Global").ok());
    env.Advance(std::chrono::milliseconds(1));
    std::string error = source.TakeSnapshot("Global").error();
    waits.push_back(std::stol(error.substr(error.find("waiting ") + 8)));
  }
  EXPECT_THAT(waits, ElementsAre(2000, 4000, 4000, 4000));
  EXPECT_EQ(Count(registry.calls, "connect \\\\nosuchhost"), 5);
}

// Regression: the error of a host in backoff carried a countdown ("next attempt in 730 ms"), so
// the agent's per-host log, which folds repeated lines, wrote it again at every sample.
TEST(RemoteHkpdSourceTest, TheWaitingErrorIsTheSameAtEverySampleOfOneWait) {
  FakeRegistry registry;
  testing::FakeClockEnv env;
  RemoteHkpdSource source(registry, env, "nosuchhost", Options());
  ASSERT_FALSE(source.TakeSnapshot("Global").ok());
  std::vector<std::string> errors;
  for (int tick = 0; tick < 4; ++tick) {
    env.Advance(std::chrono::milliseconds(200));
    errors.push_back(source.TakeSnapshot("Global").error());
  }
  EXPECT_THAT(errors, Each(errors[0]));
  EXPECT_EQ(Count(registry.calls, "connect \\\\nosuchhost"), 1);
}

TEST(RemoteHkpdSourceTest, ConnectionErrorsNameTheirNumberAndMeaning) {
  testing::FakeClockEnv env;
  for (auto [code, text] :
       {std::pair{5L, "5 (ERROR_ACCESS_DENIED: access is denied)"},
        std::pair{1722L, "1722 (RPC_S_SERVER_UNAVAILABLE: the RPC server is unavailable)"},
        std::pair{1326L, "1326 (ERROR_LOGON_FAILURE: unknown user name or bad password)"}}) {
    FakeRegistry registry;
    registry.connect_error = code;
    RemoteHkpdSource source(registry, env, "\\\\winhost", Options());
    EXPECT_EQ(
        source.TakeSnapshot("Global").error(),
        std::string("\\\\winhost: RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed with ") + text);
    EXPECT_EQ(source.ReadTitles().error(), std::string("\\\\winhost: not connected (last error ") +
                                               text + "); waiting 1000 ms between attempts");
  }
}

TEST(RemoteHkpdSourceTest, ReconnectsAfterALostConnectionAndOtherHostsGoOn) {
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\good", "\\\\flaky", "\\\\down"};
  registry.values[{"\\\\good:HKPD", "Global"}] = {SnapshotOfAbout(500)};
  registry.values[{"\\\\flaky:HKPD", "Global"}] = {SnapshotOfAbout(600)};
  testing::FakeClockEnv env;
  RemoteHkpdSource good(registry, env, "\\\\good", Options());
  RemoteHkpdSource flaky(registry, env, "flaky", Options());
  RemoteHkpdSource unknown(registry, env, "unknown", Options());

  ASSERT_TRUE(flaky.TakeSnapshot("Global").ok());
  registry.scripted_errors["Global"] = {win_error::kRpcServerUnavailable};
  Result<std::vector<uint8_t>> lost = flaky.TakeSnapshot("Global");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error(),
            "\\\\flaky\\HKEY_PERFORMANCE_DATA \"Global\": RegQueryValueExW failed with 1722 "
            "(RPC_S_SERVER_UNAVAILABLE: the RPC server is unavailable)");
  EXPECT_FALSE(flaky.connected());
  EXPECT_EQ(registry.open_keys, 0);  // both of flaky's keys were closed

  // The other hosts are unaffected: one answers, one fails on its own.
  EXPECT_FALSE(unknown.TakeSnapshot("Global").ok());
  Result<std::vector<uint8_t>> other = good.TakeSnapshot("Global");
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_EQ(*other, (registry.values[{"\\\\good:HKPD", "Global"}].bytes));

  env.Advance(std::chrono::seconds(1));
  Result<std::vector<uint8_t>> again = flaky.TakeSnapshot("Global");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(*again, (registry.values[{"\\\\flaky:HKPD", "Global"}].bytes));
  EXPECT_TRUE(flaky.connected());
  EXPECT_EQ(Count(registry.calls, "connect \\\\flaky"), 4);  // HKPD and HKLM, twice
}

TEST(RemoteHkpdSourceTest, AnAnswerThatIsAnErrorKeepsTheConnection) {
  // Samba answers "Costly" with 2; a malformed block also comes over a working connection.
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\samba"};
  registry.values[{"\\\\samba:HKPD", "Global"}] = {SnapshotOfAbout(500)};
  registry.values[{"\\\\samba:HKPD", "230"}] = {std::vector<uint8_t>(100, 0xEE)};
  testing::FakeClockEnv env;
  RemoteHkpdSource source(registry, env, "samba", Options());
  ASSERT_TRUE(source.TakeSnapshot("Global").ok());
  EXPECT_EQ(source.TakeSnapshot("Costly").error(),
            "\\\\samba\\HKEY_PERFORMANCE_DATA \"Costly\": RegQueryValueExW failed with 2 "
            "(ERROR_FILE_NOT_FOUND: no such value or key)");
  EXPECT_TRUE(source.connected());
  EXPECT_THAT(source.TakeSnapshot("230").error(), HasSubstr("returned a malformed block"));
  EXPECT_TRUE(source.connected());
  EXPECT_TRUE(source.TakeSnapshot("Global").ok());
  EXPECT_EQ(Count(registry.calls, "connect \\\\samba"), 2);
}

TEST(RemoteHkpdSourceTest, BackoffGrowsUntilAReadSucceedsNotJustAConnection) {
  // The host accepts connections, but every query fails: the waits still grow.
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\broken"};
  registry.values[{"\\\\broken:HKPD", "Global"}] = {SnapshotOfAbout(500)};
  registry.scripted_errors["Global"] = {1726, 1726, 1726};
  testing::FakeClockEnv env;
  RemoteHkpdSource source(registry, env, "broken", Options());
  std::vector<std::string> errors;
  for (int sample = 0; sample < 3; ++sample) {
    ASSERT_FALSE(source.TakeSnapshot("Global").ok());
    errors.push_back(source.TakeSnapshot("Global").error());
    env.Advance(std::chrono::seconds(10));
  }
  EXPECT_THAT(errors[0], HasSubstr("last error 1726 (RPC_S_CALL_FAILED"));
  EXPECT_THAT(errors[0], HasSubstr("waiting 1000 ms between attempts"));
  EXPECT_THAT(errors[1], HasSubstr("waiting 2000 ms between attempts"));
  EXPECT_THAT(errors[2], HasSubstr("waiting 4000 ms between attempts"));
  // A successful read ends the backoff: the next failure waits the first wait again.
  ASSERT_TRUE(source.TakeSnapshot("Global").ok());
  registry.scripted_errors["Global"] = {1726};
  ASSERT_FALSE(source.TakeSnapshot("Global").ok());
  EXPECT_THAT(source.TakeSnapshot("Global").error(), HasSubstr("waiting 1000 ms between attempts"));
}

TEST(RemoteHkpdSourceTest, ReadsTitlesThroughTheRemotePerflibKey) {
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\winhost"};
  std::string perflib = "\\\\winhost:" + std::string(testing::kPerflib);
  registry.values[{perflib + "\\009", "Counter"}] = {NameList({{2, "System"}}), kRegMultiSz};
  registry.values[{perflib + "\\009", "Help"}] = {testing::HelpList({{3, "help"}}), kRegMultiSz};
  registry.values[{perflib, "Last Counter"}] = {testing::DwordValue(2), kRegDword};
  testing::FakeClockEnv env;
  RemoteHkpdSource source(registry, env, "winhost", Options());
  Result<std::optional<std::vector<TitleBytes>>> titles = source.ReadTitlesIfChanged();
  ASSERT_TRUE(titles.ok()) << titles.error();
  ASSERT_TRUE(titles->has_value());
  EXPECT_EQ((*titles)->front().counters, NameList({{2, "System"}}));
  EXPECT_FALSE(source.ReadTitlesIfChanged()->has_value());
}

TEST(RemoteHkpdSourceTest, AHostThatRefusesHklmStillGivesTitlesFromThePerformanceKey) {
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\winhost"};
  registry.local_machine_connect_error = win_error::kAccessDenied;
  registry.values[{"\\\\winhost:HKPD", "Counter 009"}] = {NameList({{2, "System"}})};
  registry.values[{"\\\\winhost:HKPD", "Help 009"}] = {testing::HelpList({{3, "help"}})};
  testing::FakeClockEnv env;
  RemoteHkpdSource source(registry, env, "winhost", Options());
  Result<std::vector<TitleBytes>> titles = source.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  ASSERT_EQ(titles->size(), 1u);
  EXPECT_EQ(titles->front().counters, NameList({{2, "System"}}));
  EXPECT_TRUE(source.connected());
}

TEST(RemoteHkpdSourceTest, ClosesItsKeysOnShutdown) {
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\good"};
  registry.values[{"\\\\good:HKPD", "Global"}] = {SnapshotOfAbout(500)};
  testing::FakeClockEnv env;
  { RemoteHkpdSource never_used(registry, env, "good", Options()); }
  EXPECT_TRUE(registry.calls.empty());
  {
    RemoteHkpdSource source(registry, env, "good", Options());
    ASSERT_TRUE(source.TakeSnapshot("Global").ok());
    EXPECT_EQ(registry.open_keys, 2);
  }
  EXPECT_EQ(registry.open_keys, 0);
}

}  // namespace
}  // namespace perfhive
