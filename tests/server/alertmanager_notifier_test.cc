// The Alertmanager notifier: the body it posts (Alertmanager's postable alerts), and delivery
// through a real Debian prometheus-alertmanager to a webhook the test serves: a firing alert
// and its resolution arrive as notifications, and an Alertmanager that was down for a while
// gets the state once it is back, resolved alerts included.

#include "server/alerts/alertmanager_notifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "export/http_server.h"
#include "tests/support/alertmanager_process.h"
#include "tests/support/alertmanager_webhook.h"
#include "tests/support/loopback_port.h"
#include "tests/support/temporary_folder.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr int64_t kSecondNs = 1'000'000'000;
constexpr int64_t kNowNs = 1'795'341'600LL * kSecondNs;  // 2026-11-22T10:00:00Z

Alert MakeAlert(const std::string& host, Alert::State state) {
  Alert alert;
  alert.rule = "HighProcessorTime";
  alert.series = "\\\\" + host + "\\Processor(_Total)\\% Processor Time";
  alert.state = state;
  alert.labels = {{"alertname", "HighProcessorTime"}, {"severity", "warning"}, {"host", host}};
  alert.annotations = {{"summary", host + " busy"}, {"value", "97.5"}};
  alert.active_since_ns = kNowNs - 600 * kSecondNs;
  alert.firing_since_ns = state == Alert::State::kPending ? 0 : kNowNs - 300 * kSecondNs;
  alert.resolved_ns = state == Alert::State::kResolved ? kNowNs - 10 * kSecondNs : 0;
  alert.value = 97.5;
  return alert;
}

TEST(AlertmanagerPostBodyTest, PendingIsNotSentFiringEndsAfterTheResendWindowResolvedAtItsEnd) {
  json body = json::parse(AlertmanagerPostBody(
      {MakeAlert("web01", Alert::State::kPending), MakeAlert("web02", Alert::State::kFiring),
       MakeAlert("web03", Alert::State::kResolved)},
      kNowNs, 120 * kSecondNs, "http://perfhive:7480/"));
  ASSERT_EQ(body.size(), 2u) << body.dump();
  EXPECT_EQ(body[0]["labels"]["host"], "web02");
  EXPECT_EQ(body[0]["labels"]["alertname"], "HighProcessorTime");
  EXPECT_EQ(body[0]["annotations"]["summary"], "web02 busy");
  EXPECT_EQ(body[0]["startsAt"], "2026-11-22T09:50:00.000Z");
  EXPECT_EQ(body[0]["endsAt"], "2026-11-22T10:02:00.000Z");
  EXPECT_EQ(body[0]["generatorURL"], "http://perfhive:7480/");
  EXPECT_EQ(body[1]["labels"]["host"], "web03");
  EXPECT_EQ(body[1]["endsAt"], "2026-11-22T09:59:50.000Z");
}

TEST(AlertmanagerPostBodyTest, TextThatIsNotUtf8IsReplacedNotRefused) {
  Alert alert = MakeAlert("web02", Alert::State::kFiring);
  alert.labels["instance"] = std::string("java\xff#1");
  json body = json::parse(AlertmanagerPostBody({alert}, kNowNs, kSecondNs, ""));
  EXPECT_EQ(body[0]["labels"]["instance"], "java\xEF\xBF\xBD#1");
  EXPECT_FALSE(body[0].contains("generatorURL"));
}

// The hosts of the resolved alerts `notifier` says were delivered.
struct DeliveredLog {
  std::mutex mutex;
  std::vector<std::string> hosts;

  void Follow(AlertmanagerNotifier& notifier) {
    notifier.set_delivered([this](const std::vector<Alert>& resolved) {
      std::lock_guard lock(mutex);
      for (const Alert& alert : resolved) hosts.push_back(alert.labels.at("host"));
    });
  }

  bool Has(const std::string& host) {
    std::lock_guard lock(mutex);
    return std::find(hosts.begin(), hosts.end(), host) != hosts.end();
  }
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(AlertmanagerNotifierTest, AFiringAlertAndItsResolutionReachAReceiverThroughAlertmanager) {
  SKIP_WITHOUT_ALERTMANAGER();
  testing::TemporaryFolder dir("perfhive-am");
  testing::Webhook webhook;
  testing::Alertmanager alertmanager(dir.path(), webhook.Url());
  ASSERT_TRUE(alertmanager.Start());
  AlertmanagerNotifier notifier({.url = alertmanager.Url(), .http = {}, .generator_url = ""},
                                nullptr);
  DeliveredLog delivered;
  delivered.Follow(notifier);
  const int64_t now = NowNs();
  Alert firing = MakeAlert("web02", Alert::State::kFiring);
  firing.active_since_ns = now - 300 * kSecondNs;
  notifier.Notify({firing, MakeAlert("web01", Alert::State::kPending)}, now, 300 * kSecondNs);
  ASSERT_TRUE(webhook.WaitFor("firing", "web02"));

  Alert resolved = firing;
  resolved.state = Alert::State::kResolved;
  resolved.resolved_ns = NowNs();
  notifier.Notify({resolved}, NowNs(), 300 * kSecondNs);
  ASSERT_TRUE(webhook.WaitFor("resolved", "web02"));
  EXPECT_TRUE(delivered.Has("web02"));
  EXPECT_FALSE(delivered.Has("web01"));  // pending: never sent
  AlertmanagerNotifier::Stats stats = notifier.stats();
  EXPECT_EQ(stats.failed_posts, 0u) << stats.last_error;
  EXPECT_GE(stats.posts, 2u);
}

TEST(AlertmanagerNotifierTest, AnAlertmanagerThatWasDownGetsTheStateOnceBack) {
  SKIP_WITHOUT_ALERTMANAGER();
  testing::TemporaryFolder dir("perfhive-am");
  testing::Webhook webhook;
  // A port nothing listens on yet: the notifier's posts fail until Alertmanager starts there.
  const uint16_t port = testing::UnusedLoopbackPort();
  testing::Alertmanager alertmanager(dir.path(), webhook.Url(), port);
  AlertmanagerNotifier notifier(
      {.url = "http://127.0.0.1:" + std::to_string(port), .http = {}, .generator_url = ""},
      nullptr);
  DeliveredLog delivered;
  delivered.Follow(notifier);
  const int64_t now = NowNs();
  Alert firing = MakeAlert("sql01", Alert::State::kFiring);
  firing.active_since_ns = now - 60 * kSecondNs;
  Alert resolved = MakeAlert("web03", Alert::State::kResolved);
  resolved.active_since_ns = now - 120 * kSecondNs;
  resolved.resolved_ns = now - 5 * kSecondNs;
  notifier.Notify({firing, resolved}, now, 300 * kSecondNs);
  for (int i = 0; i < 100 && notifier.stats().failed_posts < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(notifier.stats().failed_posts, 2u);
  EXPECT_FALSE(delivered.Has("web03"));

  ASSERT_TRUE(alertmanager.Start());
  ASSERT_TRUE(webhook.WaitFor("firing", "sql01"));
  for (int i = 0; i < 300 && !delivered.Has("web03"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(delivered.Has("web03"));
  EXPECT_THAT(notifier.stats().last_error, HasSubstr("127.0.0.1"));
}

}  // namespace
}  // namespace perfhive
