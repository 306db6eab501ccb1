#include "server/alerts/alert_store.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace perfhive {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS alerts (
  rule TEXT NOT NULL,
  series TEXT NOT NULL,
  active_since INTEGER NOT NULL,
  alert TEXT NOT NULL,
  PRIMARY KEY (rule, series, active_since)
);
)sql";

std::string AlertDocument(const Alert& alert) {
  nlohmann::json document = {
      {"state", AlertStateName(alert.state)},
      {"labels", alert.labels},
      {"annotations", alert.annotations},
      {"firing_since", alert.firing_since_ns},
      {"resolved", alert.resolved_ns},
      {"last_held", alert.last_held_ns},
      {"value", alert.value},
      {"delivered", alert.delivered},
  };
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<Alert> AlertFromRow(const SqliteStatement& row) {
  Alert alert;
  alert.rule = row.Text(0);
  alert.series = row.Text(1);
  alert.active_since_ns = row.Int(2);
  nlohmann::json document = nlohmann::json::parse(row.Text(3), nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return Status::DataLoss("an alert that is not a JSON object");
  try {
    const std::string state = document.at("state").get<std::string>();
    bool known = false;
    for (Alert::State candidate :
         {Alert::State::kPending, Alert::State::kFiring, Alert::State::kResolved}) {
      if (state != AlertStateName(candidate)) continue;
      alert.state = candidate;
      known = true;
    }
    if (!known) return Status::DataLoss("an alert in state \"" + state + "\"");
    alert.labels = document.at("labels").get<std::map<std::string, std::string>>();
    alert.annotations = document.at("annotations").get<std::map<std::string, std::string>>();
    alert.firing_since_ns = document.at("firing_since").get<int64_t>();
    alert.resolved_ns = document.at("resolved").get<int64_t>();
    alert.last_held_ns = document.at("last_held").get<int64_t>();
    alert.value = document.at("value").get<double>();
    alert.delivered = document.at("delivered").get<bool>();
  } catch (const nlohmann::json::exception& error) {
    return Status::DataLoss(std::string("an alert without what it needs: ") + error.what());
  }
  return alert;
}

}  // namespace

Result<std::unique_ptr<AlertStore>> AlertStore::Open(const std::string& data_dir) {
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) return Status::Error("alerts: cannot create " + data_dir + ": " + error.message());
  Result<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open((std::filesystem::path(data_dir) / "alerts.db").string());
  if (!db.ok()) return db.status();
  if (Status s = (*db)->Exec("PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL;"
                             "PRAGMA synchronous=FULL;");
      !s.ok()) {
    return s;
  }
  const char* const upgrades[] = {kSchema};
  static_assert(std::size(upgrades) == kSchemaVersion);
  if (Status s = UpgradeSchema(**db, upgrades, "alerts " + (*db)->path()); !s.ok()) return s;
  return std::unique_ptr<AlertStore>(new AlertStore(std::move(*db)));
}

Result<std::vector<Alert>> AlertStore::Load() {
  Result<SqliteStatement*> select = db_->Prepare(
      "SELECT rule, series, active_since, alert FROM alerts ORDER BY rule, series, active_since");
  if (!select.ok()) return select.status();
  std::vector<Alert> alerts;
  Status bad;
  Status listed = (*select)->ForEachRow([&](const SqliteStatement& row) {
    Result<Alert> alert = AlertFromRow(row);
    if (!alert.ok()) {
      if (bad.ok()) bad = alert.status().Prefixed("alerts " + db_->path() + ": ");
      return;
    }
    alerts.push_back(std::move(alert).value());
  });
  if (!listed.ok()) return listed;
  if (!bad.ok()) return bad;
  return alerts;
}

Status AlertStore::Save(const std::vector<Alert>& alerts) {
  SqliteTransaction transaction(db_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  if (Status s = db_->Exec("DELETE FROM alerts"); !s.ok()) return s;
  Result<SqliteStatement*> insert = db_->Prepare(
      "INSERT OR REPLACE INTO alerts (rule, series, active_since, alert) VALUES (?, ?, ?, ?)");
  if (!insert.ok()) return insert.status();
  for (const Alert& alert : alerts) {
    const std::string document = AlertDocument(alert);
    Status s = (*insert)
                   ->Bind(1, alert.rule)
                   .Bind(2, alert.series)
                   .Bind(3, alert.active_since_ns)
                   .Bind(4, document)
                   .Run();
    if (!s.ok()) return s;
  }
  return transaction.Commit();
}

}  // namespace perfhive
