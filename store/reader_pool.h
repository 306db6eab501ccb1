// ReaderPool: the store's read-only connections to its database. A read leases one for as long
// as it needs it and gives it back; reads run side by side (WAL lets every reader go on while
// the writer commits), so a long range read of one host holds one connection, not the store:
// a Hello's lookups, /metrics and other hosts' reads take another. When every connection is
// leased, the next read waits for one.

#ifndef PERFHIVE_STORE_READER_POOL_H_
#define PERFHIVE_STORE_READER_POOL_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/sqlite.h"

namespace perfhive {

class ReaderPool {
 public:
  // One connection, the caller's until the lease ends (or Release()).
  class Lease {
   public:
    Lease(ReaderPool& pool, std::unique_ptr<SqliteDb> db) : pool_(&pool), db_(std::move(db)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() { Release(); }

    SqliteDb* operator->() const { return db_.get(); }
    SqliteDb& operator*() const { return *db_; }
    SqliteDb* get() const { return db_.get(); }
    // Gives the connection back before the lease ends: a read that restores what it read
    // needs no connection for that.
    void Release();

   private:
    ReaderPool* pool_;
    std::unique_ptr<SqliteDb> db_;
  };

  // `size` connections to the database at `path`, each set up by `configure`.
  static Result<std::unique_ptr<ReaderPool>> Open(
      const std::string& path, int size, const std::function<Status(SqliteDb&)>& configure);

  // Waits while every connection is leased.
  Lease Acquire();

 private:
  ReaderPool() = default;
  void Return(std::unique_ptr<SqliteDb> db);

  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<SqliteDb>> idle_;
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_READER_POOL_H_
