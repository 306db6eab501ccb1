// AlertStore (server/alerts/alert_store.h): the alerts saved at one evaluation are the alerts a
// restarted server begins with, byte for byte in what it sends, and a file of a newer schema or
// with a damaged row is refused by name rather than read as no alerts.

#include "server/alerts/alert_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace perfhive {
namespace {

using ::testing::HasSubstr;

class AlertStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("alert-store-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

Alert FiringAlert() {
  Alert alert;
  alert.rule = "ProcessorBusy";
  alert.series = "\\\\web01\\Processor(_Total)\\% Processor Time";
  alert.state = Alert::State::kFiring;
  alert.labels = {{"alertname", "ProcessorBusy"}, {"host", "web01"}, {"instance", "caf\xc3\xa9"}};
  alert.annotations = {{"summary", "web01 at 97.25"}, {"value", "97.25"}};
  alert.active_since_ns = 1'796'000'000'123'456'789;
  alert.firing_since_ns = 1'796'000'300'123'456'789;
  alert.last_held_ns = 1'796'000'400'000'000'000;
  alert.value = 97.25000000000001;
  return alert;
}

TEST_F(AlertStoreTest, WhatIsSavedIsWhatTheNextStartLoads) {
  Alert resolved = FiringAlert();
  resolved.series = "p95(\\\\role=web\\Processor(_Total)\\% Processor Time)";
  resolved.state = Alert::State::kResolved;
  resolved.resolved_ns = resolved.last_held_ns;
  resolved.delivered = true;
  Alert pending = FiringAlert();
  pending.state = Alert::State::kPending;
  pending.firing_since_ns = 0;
  pending.active_since_ns += 1;  // the same series' next run
  {
    Result<std::unique_ptr<AlertStore>> store = AlertStore::Open(dir_.string());
    ASSERT_TRUE(store.ok()) << store.error();
    Result<std::vector<Alert>> empty = (*store)->Load();
    ASSERT_TRUE(empty.ok()) << empty.error();
    EXPECT_TRUE(empty->empty());
    ASSERT_TRUE((*store)->Save({FiringAlert(), resolved, pending}).ok());
  }
  Result<std::unique_ptr<AlertStore>> reopened = AlertStore::Open(dir_.string());
  ASSERT_TRUE(reopened.ok()) << reopened.error();
  Result<std::vector<Alert>> loaded = (*reopened)->Load();
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_EQ(loaded->size(), 3u);
  // In (rule, series, start) order.
  EXPECT_TRUE(loaded->at(0) == FiringAlert());
  EXPECT_TRUE(loaded->at(1) == pending);
  EXPECT_TRUE(loaded->at(2) == resolved);

  // A save replaces: an alert forgotten since is gone.
  ASSERT_TRUE((*reopened)->Save({pending}).ok());
  loaded = (*reopened)->Load();
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_TRUE(loaded->at(0) == pending);
}

TEST_F(AlertStoreTest, ANewerSchemaIsRefusedByName) {
  ASSERT_TRUE(AlertStore::Open(dir_.string()).ok());
  {
    Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open((dir_ / "alerts.db").string());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA user_version=7").ok());
  }
  Result<std::unique_ptr<AlertStore>> store = AlertStore::Open(dir_.string());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.error(),
              HasSubstr("alerts.db: schema version 7, this build reads versions up to 1"));
}

TEST_F(AlertStoreTest, ADamagedRowIsAnErrorNotNoAlerts) {
  {
    Result<std::unique_ptr<AlertStore>> store = AlertStore::Open(dir_.string());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Save({FiringAlert()}).ok());
    Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open((dir_ / "alerts.db").string());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("UPDATE alerts SET alert = '{\"state\": \"firing\"}'").ok());
  }
  Result<std::unique_ptr<AlertStore>> store = AlertStore::Open(dir_.string());
  ASSERT_TRUE(store.ok());
  Result<std::vector<Alert>> loaded = (*store)->Load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.error(), HasSubstr("alerts.db: an alert without what it needs"));
}

}  // namespace
}  // namespace perfhive
