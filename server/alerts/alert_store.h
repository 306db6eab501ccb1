// AlertStore: the rules' alerts kept across restarts of the server, in `alerts.db` beside the
// store in its data folder, so that a restart neither forgets a firing alert (and sends it again
// with the same start, which Alertmanager takes as the same alert) nor loses a resolution that
// Alertmanager has not yet taken. Each evaluation saves the whole set: it is small (the active
// alerts and the recently resolved ones), and one transaction keeps it consistent.
//
// The file is SQLite, one row per alert: its rule, series and start as the key, and the alert as
// a JSON document (labels, annotations, state, times, value). `PRAGMA user_version` is the
// schema's version; a newer one is refused, older ones are upgraded in order.

#ifndef PERFHIVE_SERVER_ALERTS_ALERT_STORE_H_
#define PERFHIVE_SERVER_ALERTS_ALERT_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "server/alerts/alert.h"
#include "store/sqlite.h"

namespace perfhive {

class AlertStore {
 public:
  static constexpr int kSchemaVersion = 1;

  // Opens (or makes) `data_dir`/alerts.db.
  static Result<std::unique_ptr<AlertStore>> Open(const std::string& data_dir);

  // The alerts saved last; a row that does not parse is an error naming the file.
  Result<std::vector<Alert>> Load();
  // Replaces what is saved with `alerts`, durably.
  Status Save(const std::vector<Alert>& alerts);

  const std::string& path() const { return db_->path(); }

 private:
  explicit AlertStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  std::unique_ptr<SqliteDb> db_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ALERTS_ALERT_STORE_H_
