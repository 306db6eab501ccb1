// A thin RAII layer over SQLite's C API for the store: a connection with its prepared statements
// kept for reuse, and errors as Status values that name the database file, so that a full disk
// or an I/O error reaches the caller as "store /data/perfhive.db: database or disk is full".

#ifndef PERFHIVE_STORE_SQLITE_H_
#define PERFHIVE_STORE_SQLITE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "port/sha256.h"

struct sqlite3;
struct sqlite3_stmt;

namespace perfhive {

class SqliteDb;

// One prepared statement. Binding does not copy: bound text and blobs must stay alive until the
// statement is reset (Reset(), or the next Step() that returns no row).
class SqliteStatement {
 public:
  SqliteStatement(SqliteDb* db, sqlite3_stmt* statement) : db_(db), statement_(statement) {}
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters are numbered from 1, as in SQL.
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, std::string_view text);
  SqliteStatement& BindBlob(int index, std::span<const uint8_t> blob);
  SqliteStatement& BindNull(int index);

  // True when a row is ready, false when the statement is done (and was reset).
  Result<bool> Step();
  // Calls `visit` on every row until the statement is done (and was reset).
  Status ForEachRow(const std::function<void(const SqliteStatement&)>& visit);
  // Runs a statement that returns no rows.
  Status Run();
  // Forgets the current row and the bindings.
  void Reset();

  // Columns are numbered from 0, as SQLite does.
  bool IsNull(int column) const;
  int64_t Int(int column) const;
  std::string Text(int column) const;
  // Valid until the next Step() or Reset().
  std::span<const uint8_t> Blob(int column) const;
  // A SHA-256 stored as a blob (zeros past a shorter one).
  Sha256Digest Digest(int column) const;

 private:
  SqliteDb* db_;
  sqlite3_stmt* statement_;
};

// A connection to one database file. Not thread-safe: one thread at a time.
class SqliteDb {
 public:
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements without parameters.
  Status Exec(const char* sql);
  // The statement for `sql`, prepared on first use and kept; it comes back reset.
  Result<SqliteStatement*> Prepare(const char* sql);
  // A one-value query ("PRAGMA page_count").
  Result<int64_t> QueryInt(const char* sql);

  int64_t LastInsertId() const;

  // The last error as "store PATH: message (code)", with `what` said first if given.
  Status Error(std::string_view what) const;
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
  // Keyed by the SQL text's address: every caller passes a string literal.
  std::map<const char*, std::unique_ptr<SqliteStatement>> statements_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back unless Commit() succeeded.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb* db) : db_(db) {}
  ~SqliteTransaction();
  Status Begin();
  // A deferred BEGIN, for several reads: they see one state of the database and take the file
  // lock once instead of once per statement. Ended by the destructor (nothing to commit).
  Status BeginRead();
  Status Commit();

 private:
  SqliteDb* db_;
  bool open_ = false;
};

// Brings the schema of `db` to version `upgrades.size()` (its PRAGMA user_version): each upgrade
// after the database's version runs in order, all in one transaction. The version is read again
// under the write lock, so that two processes opening a new file make its tables once. A newer
// version than this build knows is refused, naming `what` ("store /data/perfhive.db").
// `finish`, given the version the database had, runs in the same transaction after the
// statements: the part of an upgrade that SQL alone cannot do.
Status UpgradeSchema(SqliteDb& db, std::span<const char* const> upgrades, std::string_view what,
                     const std::function<Status(int64_t from_version)>& finish = {});

}  // namespace perfhive

#endif  // PERFHIVE_STORE_SQLITE_H_
