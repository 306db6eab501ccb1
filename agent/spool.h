// Spool: the snapshots the server has not answered yet, on disk, so they survive a lost
// connection, a restart and a crash. One file per snapshot, written atomically and named by a
// counter so the order they were taken in is kept; the title databases they refer to beside
// them. The spool is bounded: past its limit the oldest snapshots are dropped, counted and
// logged. Files that are torn or damaged are skipped with a warning and removed.
//
// A spool folder belongs to one agent process at a time (a lock file, LOCK, holds its process
// id) and its snapshots to the owners they were taken for. Opened for one owner, it hands back
// only that owner's snapshots; another owner's (a host renamed, a folder given to two agents one
// after the other) are kept aside, never shipped as this owner, never dropped, and a warning
// says how to ship them (`perfhive-agent drain`). Opened for no owner (drain), it hands back
// every snapshot, each with its owner.

#ifndef PERFHIVE_AGENT_SPOOL_H_
#define PERFHIVE_AGENT_SPOOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/logger.h"
#include "agent/snapshot_record.h"
#include "base/status.h"
#include "perfdata/title_bytes.h"
#include "port/env.h"

namespace perfhive {

class Spool {
 public:
  // A snapshot in the spool: its place in the order and its size on disk.
  struct Entry {
    uint64_t id = 0;
    uint64_t bytes = 0;
    SnapshotRecord record;  // without its raw bytes (Read has them)
  };
  struct Appended {
    uint64_t id = 0;
    std::vector<uint64_t> dropped;  // older entries removed to stay within the limit
  };

  // The lock file's name in the folder.
  static constexpr const char* kLockFile = "LOCK";

  // Creates `dir` if needed, takes its lock (FAILED_PRECONDITION naming the process that holds
  // it) and reads what an earlier run left there: `owner`'s snapshots, or with no owner all.
  static Result<std::unique_ptr<Spool>> Open(Env& env, std::string dir, uint64_t max_bytes,
                                             std::optional<SnapshotOwner> owner, Logger& log);
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;

  // The snapshots found by Open that are the spool's to ship, oldest first; once.
  std::vector<Entry> TakeRecovered();
  // Snapshots of other owners left in the folder, not this spool's to ship or drop.
  size_t kept_aside() const { return kept_aside_; }

  // Writes `record` after every other; drops the oldest entries while the spool would exceed
  // its limit. A record larger than the whole limit is refused (ResourceExhausted) and counted
  // as dropped.
  Result<Appended> Append(const SnapshotRecord& record);
  // DataLoss when the file is torn or damaged (it is removed then).
  Result<SnapshotRecord> Read(uint64_t id);
  void Remove(uint64_t id);

  // Keeps a title database that spooled snapshots refer to; once per digest.
  Status WriteTitles(const TitleBytes& titles, const Sha256Digest& digest);
  Result<TitleBytes> ReadTitles(const Sha256Digest& digest);

  const std::string& dir() const { return dir_; }
  // A new limit (a central plan's); a lower one drops the oldest snapshots at the next Append.
  void SetMaxBytes(uint64_t max_bytes);
  uint64_t bytes() const;
  size_t size() const;
  uint64_t dropped() const;  // snapshots dropped to stay within the limit, since Open

 private:
  Spool(Env& env, std::string dir, uint64_t max_bytes, std::unique_ptr<FileLock> lock, Logger& log)
      : env_(env), dir_(std::move(dir)), lock_(std::move(lock)), log_(log), max_bytes_(max_bytes) {}
  Status Recover(const std::optional<SnapshotOwner>& owner);
  std::string SnapshotPath(uint64_t id) const;
  std::string TitlesPath(const Sha256Digest& digest) const;
  void RemoveLocked(uint64_t id);

  Env& env_;
  const std::string dir_;
  const std::unique_ptr<FileLock> lock_;
  Logger& log_;
  size_t kept_aside_ = 0;

  mutable std::mutex mutex_;
  uint64_t max_bytes_;
  std::map<uint64_t, uint64_t> sizes_;  // id -> bytes, oldest first; this spool's own only
  uint64_t bytes_ = 0;
  uint64_t next_id_ = 1;
  uint64_t dropped_ = 0;
  std::set<Sha256Digest> titles_;
  std::vector<Entry> recovered_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SPOOL_H_
