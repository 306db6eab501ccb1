#include "store/reader_pool.h"

namespace perfhive {

void ReaderPool::Lease::Release() {
  if (db_ != nullptr) pool_->Return(std::move(db_));
}

Result<std::unique_ptr<ReaderPool>> ReaderPool::Open(
    const std::string& path, int size, const std::function<Status(SqliteDb&)>& configure) {
  std::unique_ptr<ReaderPool> pool(new ReaderPool());
  for (int i = 0; i < std::max(size, 1); ++i) {
    Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(path);
    if (!db.ok()) return db.status();
    if (Status s = configure(**db); !s.ok()) return s;
    pool->idle_.push_back(std::move(db).value());
  }
  return pool;
}

ReaderPool::Lease ReaderPool::Acquire() {
  std::unique_lock lock(mutex_);
  returned_.wait(lock, [this] { return !idle_.empty(); });
  std::unique_ptr<SqliteDb> db = std::move(idle_.back());
  idle_.pop_back();
  return Lease(*this, std::move(db));
}

void ReaderPool::Return(std::unique_ptr<SqliteDb> db) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(db));
  }
  returned_.notify_one();
}

}  // namespace perfhive
