// Store: the server's embedded, durable store, one SQLite database in one directory, in two
// parts. The sample log, this class, keeps the raw snapshots (the truth, restorable byte for
// byte and checked against their SHA-256): appends, reads, compaction and retention. The catalog
// (store/catalog.h, catalog()) keeps the hosts that sent them, every host's title databases with
// the time each came into force, and what else is known of hosts apart from their samples.
//
// Appends are group-committed: any number of threads call AppendAsync() (or Append()), one writer
// thread commits whatever is queued in one transaction, and a completion runs only once that
// transaction is durable (WAL, synchronous=FULL), so a caller that acknowledges from the
// completion never acknowledges anything a crash can lose. A sample is known by its host, query
// and clocks (SystemTime, PerfTime, PerfTime100nSec), whichever run sends it: the same sample
// again is reported as a duplicate, not stored twice, and one with the same identity but other
// bytes is refused as a conflict (ALREADY_EXISTS).
//
// Snapshots of one host and query are stored in groups: a keyframe, then deltas against that
// keyframe (codec/snapshot_delta.h), so any snapshot restores from one keyframe and one delta.
// Once a group is closed, CompactClosedGroups() rewrites it as one columnar block
// (store/group_columns.h), off the writer thread.
// Retention deletes oldest first and never leaves a delta without its keyframe.
//
// The catalog's writes (hosts, title databases, plans, export positions) go through the same
// writer: each runs in the next batch's transaction, in a savepoint of its own, and returns once
// that commit is durable, so a fleet reconnecting at once shares commits instead of queueing for
// one each.
//
// Reads run on their own connections and do not wait for the writer. Every method is
// thread-safe. The layout is described in docs/store_format.md.

#ifndef PERFHIVE_STORE_STORE_H_
#define PERFHIVE_STORE_STORE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"
#include "port/sha256.h"
#include "store/catalog.h"
#include "store/snapshot_sections.h"

namespace perfhive {

class BlockRowCache;
class SqliteDb;
class SqliteStatement;
class KeyframeCache;
class ReaderPool;

struct StoreOptions {
  // Snapshots in a group, its keyframe included.
  int group_size = 60;
  // A delta larger than this share of its keyframe's frame starts a new group instead (the
  // layout drifted too far from the keyframe's).
  double max_delta_share = 0.5;
  // zstd's level for keyframes and deltas. Higher levels barely help: a keyframe is one
  // snapshot in group_size, and deltas are mostly zeros (docs/store_format.md).
  int level = 3;
  // Appends committed in one transaction at most.
  int max_batch = 512;
  // Read-only connections: reads that run at the same time (one host's range, another's Hello,
  // /metrics) each take one (store/reader_pool.h).
  int readers = 4;
  // A commit starts no sooner than this after the previous one started: appends from all streams
  // that arrive meanwhile share its transaction and its fsync, instead of paying one each, at the
  // price of waiting up to this long. 0: commit whatever is queued at once (a lone appender that
  // waits for each append pays no delay).
  std::chrono::microseconds commit_interval{0};
  // Raw keyframes kept in memory to make deltas against; beyond it the least recently used are
  // dropped and read back from the database when needed.
  size_t keyframe_cache_bytes = 512 * 1024 * 1024;
  // A stream's compacted groups are merged into one block once they add up to this many
  // snapshots (an hour at 10 s): a block of many snapshots compresses better than several of
  // few (docs/store_format.md, "Merged blocks"). 0: blocks are never merged.
  size_t merged_block_snapshots = 360;
  // Caps the database at this many pages (0: no cap); tests use it to make a full disk.
  int64_t max_page_count = 0;
};

struct SnapshotToAppend {
  std::string host;
  std::string query;        // "Global", "Costly", "230 238"
  std::string instance_id;  // the run that sent it, and its place in that run
  uint64_t sequence = 0;
  int64_t receive_time_ns = 0;  // server clock; 0: now
  std::vector<uint8_t> raw;     // the exact PERF_DATA_BLOCK bytes
  // The SHA-256 of `raw`, given by a caller that has checked the bytes against it (an ingest
  // session checks every restored snapshot against the digest its agent sent), so that it is not
  // taken twice; unset: the store takes it.
  std::optional<Sha256Digest> sha256 = std::nullopt;
  // Title databases (language, digest; stored before with PutTitleDatabase) in force for the
  // host from this snapshot's sample time on, by SetTitlesInForce's rule. They are recorded in the
  // snapshot's transaction, on the writer, rather than in a commit of their own that waits for
  // the writer; a digest the store does not hold refuses the snapshot (FAILED_PRECONDITION).
  std::vector<std::pair<std::string, Sha256Digest>> titles_in_force = {};
  // The counters without a valid value against the stream's snapshot before this one
  // (perfdata/invalid_counters.h), found by a caller that holds that pair (an ingest session).
  // Unset: no pair was checked, and the store's record of the stream's runs stays as it is.
  std::optional<std::vector<InvalidCounter>> invalid_counters = std::nullopt;
  // The instances this snapshot has again after a gap (perfdata/instance_gaps.h), found by a
  // caller that follows the stream (an ingest session).
  std::vector<InstanceGap> instance_gaps = {};
};

struct AppendResult {
  int64_t id = 0;          // the stored snapshot's id
  bool duplicate = false;  // already stored by an earlier append: acknowledge, nothing written
  int64_t sample_time_ns = 0;
};

struct SnapshotInfo {
  int64_t id = 0;
  int64_t host_id = 0;  // the store's number for `host`
  std::string host;
  std::string query;
  int64_t sample_time_ns = 0;  // the snapshot's own SystemTime, Unix nanoseconds UTC
  int64_t receive_time_ns = 0;
  std::string instance_id;
  uint64_t sequence = 0;
  Sha256Digest sha256{};  // of the raw bytes
  int64_t raw_size = 0;
  // Its frame in the database; in a compacted group, its share of the group's block.
  int64_t stored_size = 0;
  // The keyframe it is a delta against, or the block of its compacted group; 0: it is that
  // keyframe.
  int64_t keyframe_id = 0;
  // Its place in its group's columnar block, stored under the group's keyframe; -1: it has a
  // frame of its own.
  int64_t block_index = -1;
};

struct RetentionPolicy {
  int64_t max_age_ns = 0;  // delete what was received longer ago than this (0: keep)
  int64_t max_bytes = 0;   // then delete oldest groups while stored frames exceed it (0: keep)
};

struct RetentionResult {
  int64_t snapshots_deleted = 0;
  int64_t bytes_deleted = 0;  // stored (compressed) bytes
  // Transactions it took, each holding the write lock alone: appends go on in between.
  int64_t transactions = 0;
};

// What a compaction pass did.
struct CompactionResult {
  int64_t groups = 0;       // rewritten as columnar blocks
  int64_t snapshots = 0;    // in those groups
  int64_t bytes_saved = 0;  // stored bytes the blocks take less than the frames they replaced
  // Compacted groups merged into an earlier group's block, and the stored bytes that saved.
  int64_t groups_merged = 0;
  int64_t merged_bytes_saved = 0;
  // Groups found changed when their block was ready (an append or retention came first): left
  // as they are, for the next pass.
  int64_t groups_changed = 0;
  // Transactions it took, each holding the write lock alone: appends go on in between.
  int64_t transactions = 0;
  // It stopped at its budget of groups: more closed groups may be waiting.
  bool more = false;
};

struct StoreTotals {
  int64_t snapshots = 0;
  int64_t keyframes = 0;
  int64_t raw_bytes = 0;
  int64_t stored_bytes = 0;  // frames only
  int64_t file_bytes = 0;    // the database's pages, what the directory holds
};

class Store {
 public:
  // Opens, or creates, the store in `directory` (created if missing).
  static Result<std::unique_ptr<Store>> Open(const std::string& directory,
                                             const StoreOptions& options = {});
  // Commits what is queued, then stops the writer.
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  using AppendCallback = std::function<void(Result<AppendResult>)>;
  // Validates the snapshot (perfdata's reader; its SystemTime is the sample time), then queues
  // it; `done` runs once on the writer thread when the append is durable or failed. A snapshot
  // that does not validate fails at once with INVALID_ARGUMENT, `done` running on the calling
  // thread; one whose identity is stored with other bytes fails with ALREADY_EXISTS, one whose
  // titles_in_force name a database not stored with FAILED_PRECONDITION. These are the
  // snapshot's fault: any other error is the store's, and the same append may work later.
  // An unknown host is added with just its name.
  void AppendAsync(SnapshotToAppend snapshot, AppendCallback done);
  // AppendAsync and wait.
  Result<AppendResult> Append(SnapshotToAppend snapshot);

  // What the store knows of its hosts apart from their samples.
  Catalog& catalog() { return *catalog_; }

  // Snapshots of `host` with from_ns <= sample time < to_ns, by sample time; `query` if given;
  // the first `limit` of them when a limit is given, or the last with `newest` (what a read of
  // the latest values needs, found without listing the whole range).
  Result<std::vector<SnapshotInfo>> ListSnapshots(const std::string& host, int64_t from_ns,
                                                  int64_t to_ns,
                                                  const std::optional<std::string>& query = {},
                                                  std::optional<size_t> limit = {},
                                                  bool newest = false);
  // The exact raw bytes of a snapshot as ListSnapshots gives it, checked against its SHA-256.
  Result<std::vector<uint8_t>> ReadSnapshot(const SnapshotInfo& info);
  // The raw bytes of many snapshots (as ListSnapshots gives them), for queries: a keyframe is
  // restored once for the run of its group's members that follow one another. Integrity rests
  // on each frame's zstd checksum; the SHA-256 check of the whole restored snapshot, a third of
  // the cost of a long read, is ReadSnapshot's (the exact bytes a client exports).
  //
  // With `wanted` (the position in `infos`, an object's title index: whether the read needs it),
  // each snapshot is restored in part where its frame allows: only the sections holding wanted
  // objects and their parents, behind a header that counts them (docs/store_format.md). A
  // query for one object of a large snapshot then decodes a small part of it. `wanted_runs`
  // (empty, or one number per position) says which positions `wanted` answers alike (the same
  // title databases): a columnar block chooses its pieces once per recipe and run.
  using ObjectsWanted = std::function<bool(size_t position, uint32_t title_index)>;
  Result<std::vector<std::vector<uint8_t>>> ReadSnapshots(
      std::span<const SnapshotInfo> infos, const ObjectsWanted& wanted = {},
      std::span<const uint32_t> wanted_runs = {});
  // The highest sequence stored for (host, instance id): where an agent resumes.
  Result<std::optional<uint64_t>> LastSequence(const std::string& host,
                                               const std::string& instance_id);

  // Deletes by age, then by size; run it periodically.
  Result<RetentionResult> ApplyRetention(const RetentionPolicy& policy, int64_t now_ns);
  Result<StoreTotals> Totals();

  // Rewrites closed groups as columnar blocks (docs/store_format.md, "Closed groups as columnar
  // blocks"). A group is closed once its stream has started another, or once nothing was
  // appended to it since `idle_before_ns` (server clock); the stream's next append then starts a
  // new group. Reading, restoring, encoding and checking the block run on the calling thread
  // without the write lock; then a few groups at a time replace their frames in one short
  // transaction, unless an append or retention changed the group meanwhile (then it is left for
  // the next pass). Groups that would not get smaller stay frames. Run it periodically; one pass
  // runs at a time. It encodes `max_groups` groups at most, so that a caller can stop between
  // calls (the first passes after an upgrade take every group stored before).
  Result<CompactionResult> CompactClosedGroups(int64_t idle_before_ns,
                                               size_t max_groups = SIZE_MAX);

  const std::string& path() const;
  // Whether retention and compaction give freed pages back to the file system
  // (auto_vacuum=INCREMENTAL). Stores made before that setting took effect reuse their freed
  // pages for later appends instead: the file does not shrink (docs/store_format.md, "Tables").
  bool gives_pages_back() const { return gives_pages_back_; }

 private:
  struct Pending {
    SnapshotToAppend snapshot;
    int64_t sample_time_ns = 0;
    // With the host, query and sample time, the sample's identity.
    int64_t perf_time = 0;
    int64_t perf_time_100ns = 0;
    Sha256Digest sha256{};
    std::vector<SnapshotSection> sections;  // how its frame cuts it
    std::vector<uint8_t> inventory;         // EncodeInventory of what it holds
    InventoryHash inventory_hash{};         // and its hash, taken on the caller's thread
    AppendCallback done;
  };

  // A write other than an append (a host's row, its health, titles, a plan): statements on
  // writer_, run by the writer inside its next transaction beside the appends.
  struct CatalogWrite {
    std::function<Status()> write;
    std::function<void(Status)> done;  // called with `status` once the commit is over
    Status status;                     // what `write` returned, or the commit's error
  };

  Store(const StoreOptions& options, std::unique_ptr<SqliteDb> writer,
        std::unique_ptr<ReaderPool> readers, int64_t next_id);
  void WriterLoop();
  // Runs a catalog write in the writer's next transaction, so that a fleet's Hellos and health
  // reports share the appends' commits instead of each paying a commit (and an fsync) under the
  // write lock; `done` gets the outcome after the commit, on the writer thread. From the writer
  // thread itself (an append's completion) or once the store is stopping, it runs at once in a
  // transaction of its own, and `done` on this thread.
  void WriteOnWriterAsync(std::function<Status()> write, std::function<void(Status)> done);
  // Everything below runs with write_mutex_ held.
  std::vector<Result<AppendResult>> CommitBatch(std::vector<Pending>& batch,
                                                std::span<CatalogWrite> writes);
  // A database error is returned and ends the batch; the outcome for this one snapshot (stored,
  // duplicate, or refused as a conflict) goes to `result`.
  Status InsertOne(Pending& pending, std::optional<Result<AppendResult>>& result);
  // ALREADY_EXISTS: the store holds the sample `pending` is, with other bytes.
  static Status SameSampleOtherBytes(const SnapshotToAppend& snapshot, const Pending& pending);
  // Replaces each group's frames with its block, in one transaction, skipping (and counting in
  // `result`) those changed since their members were read.
  struct CompactedGroup;
  Status ReplaceFramesWithBlocks(const std::vector<CompactedGroup>& groups,
                                 CompactionResult& result);
  // Merges the compacted groups of the stream (host id, query) into blocks of
  // options_.merged_block_snapshots, once enough of them are there (store_compaction.cc).
  struct MergedBlock;
  Status MergeStreamBlocks(int64_t host_id, const std::string& query, CompactionResult& result);
  Status ReplaceBlocksWithMerged(const MergedBlock& merged, CompactionResult& result);

  const StoreOptions options_;
  bool gives_pages_back_ = true;

  std::mutex write_mutex_;  // the writer connection, the keyframe cache and next_id_
  std::unique_ptr<SqliteDb> writer_;
  // The id of the next snapshot appended: above every id given before, also those of snapshots
  // now in a compacted group's row, whose ids SQLite would give again.
  int64_t next_id_;
  std::unique_ptr<KeyframeCache> keyframes_;
  std::unique_ptr<ReaderPool> readers_;
  std::unique_ptr<Catalog> catalog_;
  // Compacted groups' rows as listings decoded them (store/block_row_cache.h).
  std::unique_ptr<BlockRowCache> block_rows_;

  std::mutex compaction_mutex_;  // one compaction pass at a time, and the set below
  // Groups whose block would not be smaller, or that do not restore (ReadSnapshot reports
  // those): keyframe id → members then. Not tried again by this process unless they grow (an
  // idle group may still take members).
  std::map<int64_t, size_t> left_as_frames_;
  // The streams whose groups were compacted, to be looked at for merging; and the first groups
  // of runs whose merged block would not be smaller (by first keyframe → snapshots then).
  std::set<std::pair<int64_t, std::string>> streams_to_merge_;
  std::map<int64_t, size_t> left_unmerged_;

  std::mutex queue_mutex_;
  std::condition_variable queue_ready_;
  std::deque<Pending> queue_;
  std::deque<CatalogWrite> catalog_writes_;
  bool stopping_ = false;
  std::thread writer_thread_;
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_STORE_H_
