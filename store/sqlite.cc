#include "store/sqlite.h"

#include <sqlite3.h>

#include <algorithm>

namespace perfhive {

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(statement_, index, value);
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, std::string_view text) {
  sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  return *this;
}

SqliteStatement& SqliteStatement::BindBlob(int index, std::span<const uint8_t> blob) {
  // A null pointer would bind NULL; an empty blob is still a blob.
  static const uint8_t kEmpty = 0;
  sqlite3_bind_blob64(statement_, index, blob.empty() ? &kEmpty : blob.data(), blob.size(),
                      SQLITE_STATIC);
  return *this;
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  sqlite3_bind_null(statement_, index);
  return *this;
}

Result<bool> SqliteStatement::Step() {
  int code = sqlite3_step(statement_);
  if (code == SQLITE_ROW) return true;
  if (code == SQLITE_DONE) {
    Reset();
    return false;
  }
  Status error = db_->Error(sqlite3_sql(statement_));
  Reset();
  return error;
}

Status SqliteStatement::ForEachRow(const std::function<void(const SqliteStatement&)>& visit) {
  for (;;) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status();
    visit(*this);
  }
}

Status SqliteStatement::Run() {
  Result<bool> row = Step();
  if (!row.ok()) return row.status();
  Reset();
  return Status();
}

void SqliteStatement::Reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

int64_t SqliteStatement::Int(int column) const { return sqlite3_column_int64(statement_, column); }

std::string SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

std::span<const uint8_t> SqliteStatement::Blob(int column) const {
  const void* blob = sqlite3_column_blob(statement_, column);
  if (blob == nullptr) return {};
  return {static_cast<const uint8_t*>(blob),
          static_cast<size_t>(sqlite3_column_bytes(statement_, column))};
}

Sha256Digest SqliteStatement::Digest(int column) const {
  Sha256Digest digest{};
  std::span<const uint8_t> bytes = Blob(column);
  std::copy_n(bytes.begin(), std::min(bytes.size(), digest.size()), digest.begin());
  return digest;
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int code = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (code != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
    sqlite3_close(db);
    return Status::Error("store " + path + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

SqliteDb::~SqliteDb() {
  statements_.clear();  // statements before the connection they belong to
  sqlite3_close(db_);
}

Status SqliteDb::Exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return Error(sql);
  return Status();
}

Result<SqliteStatement*> SqliteDb::Prepare(const char* sql) {
  auto found = statements_.find(sql);
  if (found != statements_.end()) return found->second.get();
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr) !=
      SQLITE_OK) {
    return Error(sql);
  }
  auto& slot = statements_[sql];
  slot = std::make_unique<SqliteStatement>(this, statement);
  return slot.get();
}

Result<int64_t> SqliteDb::QueryInt(const char* sql) {
  Result<SqliteStatement*> statement = Prepare(sql);
  if (!statement.ok()) return statement.status();
  Result<bool> row = (*statement)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Error("store " + path_ + ": no value from " + sql);
  int64_t value = (*statement)->Int(0);
  (*statement)->Reset();
  return value;
}

int64_t SqliteDb::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

Status SqliteDb::Error(std::string_view what) const {
  std::string message = "store " + path_ + ": " + sqlite3_errmsg(db_) + " (SQLite code " +
                        std::to_string(sqlite3_extended_errcode(db_)) + ")";
  if (!what.empty()) message += " in: " + std::string(what);
  return Status::Error(std::move(message));
}

SqliteTransaction::~SqliteTransaction() {
  if (open_) (void)db_->Exec("ROLLBACK");
}

Status SqliteTransaction::Begin() {
  Status status = db_->Exec("BEGIN IMMEDIATE");
  open_ = status.ok();
  return status;
}

Status SqliteTransaction::BeginRead() {
  Status status = db_->Exec("BEGIN");
  open_ = status.ok();
  return status;
}

Status SqliteTransaction::Commit() {
  Status status = db_->Exec("COMMIT");
  if (status.ok()) open_ = false;
  return status;
}

Status UpgradeSchema(SqliteDb& db, std::span<const char* const> upgrades, std::string_view what,
                     const std::function<Status(int64_t from_version)>& finish) {
  const auto latest = static_cast<int64_t>(upgrades.size());
  auto too_new = [&](int64_t version) {
    return Status::Error(std::string(what) + ": schema version " + std::to_string(version) +
                         ", this build reads versions up to " + std::to_string(latest) +
                         "; run the newer perfhive-server that wrote it");
  };
  Result<int64_t> version = db.QueryInt("PRAGMA user_version");
  if (!version.ok()) return version.status();
  if (*version == latest) return Status();
  SqliteTransaction transaction(&db);
  if (Status s = transaction.Begin(); !s.ok()) return s;
  version = db.QueryInt("PRAGMA user_version");
  if (!version.ok()) return version.status();
  if (*version > latest || *version < 0) return too_new(*version);
  for (int64_t v = *version; v < latest; ++v) {
    if (Status s = db.Exec(upgrades[static_cast<size_t>(v)]); !s.ok()) return s;
  }
  if (finish) {
    if (Status s = finish(*version); !s.ok()) return s;
  }
  const std::string pragma = "PRAGMA user_version=" + std::to_string(latest);
  if (Status s = db.Exec(pragma.c_str()); !s.ok()) return s;
  return transaction.Commit();
}

}  // namespace perfhive
