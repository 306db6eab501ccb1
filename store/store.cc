// Store: opening, the append queue and the writer thread. Hosts and titles are in
// store_catalog.cc, reads in store_reads.cc, retention in store_retention.cc, export positions
// in store_export_positions.cc.

#include "store/store.h"

#include <chrono>
#include <filesystem>
#include <system_error>

#include "perfdata/snapshot_reader.h"
#include "perfdata/time_text.h"
#include "store/awaited.h"
#include "store/block_row_cache.h"
#include "store/block_rows.h"
#include "store/framed_group.h"
#include "store/host_key.h"
#include "store/keyframe_cache.h"
#include "store/reader_pool.h"
#include "store/sample_time.h"
#include "store/schema.h"
#include "store/sectioned_frame.h"
#include "store/snapshot_sections.h"
#include "store/sqlite.h"

namespace perfhive {

namespace {

constexpr char kDatabaseFile[] = "perfhive.db";
// Compacted groups' members kept decoded for listings: some 180 merged blocks of an hour, about
// 12 MB.
constexpr size_t kCachedBlockMembers = 1 << 16;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status Configure(SqliteDb& db, const StoreOptions& options) {
  // WAL lets readers run beside the writer; synchronous=FULL syncs the WAL at every commit, so a
  // commit that returned survives a power cut, not only a crash of the process.
  if (Status s = db.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                         "PRAGMA foreign_keys=OFF; PRAGMA busy_timeout=10000;"
                         "PRAGMA journal_size_limit=67108864;");
      !s.ok()) {
    return s;
  }
  Result<int64_t> mode = db.QueryInt("PRAGMA synchronous");
  if (!mode.ok()) return mode.status();
  if (*mode != 2) return Status::Error("store " + db.path() + ": synchronous=FULL not in effect");
  if (options.max_page_count > 0) {
    std::string pragma = "PRAGMA max_page_count=" + std::to_string(options.max_page_count);
    if (Status s = db.Exec(pragma.c_str()); !s.ok()) return s;
  }
  return Status();
}

}  // namespace

Result<std::unique_ptr<Store>> Store::Open(const std::string& directory,
                                           const StoreOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) return Status::Error("store " + directory + ": cannot create: " + error.message());
  std::string path = (std::filesystem::path(directory) / kDatabaseFile).string();

  Result<std::unique_ptr<SqliteDb>> writer = SqliteDb::Open(path);
  if (!writer.ok()) return writer.status();
  // A new database gives the pages retention and compaction free back to the file system. This
  // is set before WAL mode, whose first write fixes the database's header: set after, it was
  // silently ignored, and stores made so keep their freed pages for later appends instead.
  Result<int64_t> pages = (*writer)->QueryInt("PRAGMA page_count");
  if (!pages.ok()) return pages.status();
  if (*pages == 0) {
    if (Status s = (*writer)->Exec("PRAGMA auto_vacuum=INCREMENTAL"); !s.ok()) return s;
  }
  if (Status s = Configure(**writer, options); !s.ok()) return s;
  // Each upgrade in order, from the database's version to this build's.
  const char* const upgrades[] = {kSchema,
                                  kSchemaExportPositions,
                                  kSchemaSampleIdentity,
                                  kSchemaHostPlans,
                                  kSchemaColumnarBlocks,
                                  kSchemaUncompactedGroups,
                                  kSchemaCompressedTitles,
                                  kSchemaRuns,
                                  kSchemaHostLabels,
                                  kSchemaInventories,
                                  kSchemaCollectionReports,
                                  kSchemaCollectionChecks,
                                  kSchemaInstanceGaps,
                                  kSchemaBlockRows};
  static_assert(std::size(upgrades) == kSchemaVersion);
  // The groups compacted before version 14 move into block rows.
  auto move_blocks = [&writer](int64_t from_version) {
    return from_version > 0 && from_version < 14 ? MoveOldCompactedGroups(**writer) : Status();
  };
  if (Status s = UpgradeSchema(**writer, upgrades, "store " + path, move_blocks); !s.ok()) {
    return s;
  }
  Result<std::unique_ptr<ReaderPool>> readers =
      ReaderPool::Open(path, options.readers, [&options](SqliteDb& db) {
        // Readers map the database rather than copy its pages through pread: on the side-by-side
        // fleet's question, 6% of a read's wall time (49.9-50.5 ms against 52.4-53.1, alternating
        // runs). The writer keeps pread and write, so a full disk still fails a write cleanly.
        Status configured = Configure(db, options);
        return configured.ok() ? db.Exec("PRAGMA mmap_size=1073741824") : configured;
      });
  if (!readers.ok()) return readers.status();
  Result<int64_t> auto_vacuum = (*writer)->QueryInt("PRAGMA auto_vacuum");
  if (!auto_vacuum.ok()) return auto_vacuum.status();
  Result<int64_t> last_id = (*writer)->QueryInt(
      "SELECT MAX(COALESCE((SELECT MAX(id) FROM snapshots), 0),"
      " COALESCE((SELECT MAX(last_id) FROM blocks), 0))");
  if (!last_id.ok()) return last_id.status();
  auto store = std::unique_ptr<Store>(
      new Store(options, std::move(*writer), std::move(*readers), *last_id + 1));
  store->gives_pages_back_ = *auto_vacuum == 2;  // INCREMENTAL
  return store;
}

Store::Store(const StoreOptions& options, std::unique_ptr<SqliteDb> writer,
             std::unique_ptr<ReaderPool> readers, int64_t next_id)
    : options_(options),
      writer_(std::move(writer)),
      next_id_(next_id),
      keyframes_(std::make_unique<KeyframeCache>(options.keyframe_cache_bytes)),
      readers_(std::move(readers)),
      catalog_(std::make_unique<Catalog>(
          *readers_, CatalogWriter{.db = writer_.get(),
                                   .run =
                                       [this](std::function<Status()> write,
                                              std::function<void(Status)> done) {
                                         WriteOnWriterAsync(std::move(write), std::move(done));
                                       }})),
      block_rows_(std::make_unique<BlockRowCache>(kCachedBlockMembers)),
      writer_thread_([this] { WriterLoop(); }) {}

Store::~Store() {
  {
    std::lock_guard lock(queue_mutex_);
    stopping_ = true;
  }
  queue_ready_.notify_all();
  writer_thread_.join();
}

const std::string& Store::path() const { return writer_->path(); }

void Store::AppendAsync(SnapshotToAppend snapshot, AppendCallback done) {
  // The checks and the digest run here, on the caller's thread, so that many streams spread
  // them over the cores while the single writer only encodes and writes.
  Result<SnapshotReader> reader = SnapshotReader::Open(snapshot.raw);
  if (!reader.ok()) {
    done(Status::InvalidArgument("snapshot refused: " + reader.error()));
    return;
  }
  Result<int64_t> sample_time = UnixNanosFromSystemTime(reader->system_time());
  if (!sample_time.ok()) {
    done(Status::InvalidArgument("snapshot refused: " + sample_time.error()));
    return;
  }
  if (snapshot.host.empty()) {
    done(Status::InvalidArgument("snapshot refused: no host name"));
    return;
  }
  if (snapshot.receive_time_ns == 0) snapshot.receive_time_ns = NowNs();
  Sha256Digest digest = snapshot.sha256 ? *snapshot.sha256 : Sha256(snapshot.raw);
  std::vector<SnapshotSection> sections = SplitIntoSections(*reader, snapshot.raw.size());
  Pending pending{.snapshot = std::move(snapshot),
                  .sample_time_ns = *sample_time,
                  .perf_time = reader->perf_time(),
                  .perf_time_100ns = reader->perf_time_100ns(),
                  .sha256 = digest,
                  .sections = std::move(sections),
                  .inventory = EncodeInventory(InventoryOf(*reader)),
                  .done = std::move(done)};
  pending.inventory_hash = InventoryHash::Of(pending.inventory);
  bool wake;
  {
    std::lock_guard lock(queue_mutex_);
    queue_.push_back(std::move(pending));
    // The writer waits for a first append, then (with a commit interval) for the interval or a
    // full batch: other appends need not wake it, and each wake-up costs a context switch.
    wake = queue_.size() == 1 || queue_.size() >= static_cast<size_t>(options_.max_batch);
  }
  if (wake) queue_ready_.notify_one();
}

Result<AppendResult> Store::Append(SnapshotToAppend snapshot) {
  return Awaited<Result<AppendResult>>(
      [&](AppendCallback done) { AppendAsync(std::move(snapshot), std::move(done)); });
}

void Store::WriterLoop() {
  std::chrono::steady_clock::time_point last_commit{};
  for (;;) {
    std::vector<Pending> batch;
    std::vector<CatalogWrite> writes;
    {
      std::unique_lock lock(queue_mutex_);
      auto queued = [this] { return !queue_.empty() || !catalog_writes_.empty(); };
      queue_ready_.wait(lock, [&] { return stopping_ || queued(); });
      // A catalog write is committed at once: its caller (a Hello's Welcome) waits for it.
      queue_ready_.wait_until(lock, last_commit + options_.commit_interval, [this] {
        return stopping_ || queue_.size() >= static_cast<size_t>(options_.max_batch) ||
               !catalog_writes_.empty();
      });
      if (!queued()) return;  // stopping, and everything queued was committed
      last_commit = std::chrono::steady_clock::now();
      while (!queue_.empty() && batch.size() < static_cast<size_t>(options_.max_batch)) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      while (!catalog_writes_.empty() && writes.size() < static_cast<size_t>(options_.max_batch)) {
        writes.push_back(std::move(catalog_writes_.front()));
        catalog_writes_.pop_front();
      }
    }
    std::vector<Result<AppendResult>> results;
    {
      std::lock_guard lock(write_mutex_);
      results = CommitBatch(batch, writes);
    }
    for (CatalogWrite& write : writes) write.done(std::move(write.status));
    for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(results[i]));
  }
}

void Store::WriteOnWriterAsync(std::function<Status()> write, std::function<void(Status)> done) {
  {
    std::lock_guard lock(queue_mutex_);
    if (!stopping_ && std::this_thread::get_id() != writer_thread_.get_id()) {
      catalog_writes_.push_back(
          {.write = std::move(write), .done = std::move(done), .status = Status()});
      if (catalog_writes_.size() == 1) queue_ready_.notify_one();
      return;
    }
  }
  Status status;
  {
    std::lock_guard lock(write_mutex_);
    SqliteTransaction transaction(writer_.get());
    status = transaction.Begin();
    if (status.ok()) status = write();
    if (status.ok()) status = transaction.Commit();
  }
  done(std::move(status));
}

std::vector<Result<AppendResult>> Store::CommitBatch(std::vector<Pending>& batch,
                                                     std::span<CatalogWrite> writes) {
  std::vector<Result<AppendResult>> results;
  results.reserve(batch.size());
  SqliteTransaction transaction(writer_.get());
  Status status = transaction.Begin();
  // Each catalog write in a savepoint of its own: one that fails leaves nothing behind, and the
  // rest of the batch goes on.
  for (CatalogWrite& write : writes) {
    if (!status.ok()) break;
    status = writer_->Exec("SAVEPOINT catalog_write");
    if (!status.ok()) break;
    write.status = write.write();
    status = writer_->Exec(write.status.ok() ? "RELEASE catalog_write"
                                             : "ROLLBACK TO catalog_write; RELEASE catalog_write");
  }
  for (size_t i = 0; status.ok() && i < batch.size(); ++i) {
    std::optional<Result<AppendResult>> result;
    status = InsertOne(batch[i], result);
    if (result) results.push_back(std::move(*result));
  }
  if (status.ok()) status = transaction.Commit();
  if (!status.ok()) {
    // Nothing of the batch was written, so the groups the cache holds may name keyframes that
    // do not exist, and the catalog's inventories rows that do not.
    keyframes_->Clear();
    catalog_->ForgetUncommitted();
    results.assign(batch.size(), status);
    for (CatalogWrite& write : writes) write.status = status;
  }
  return results;
}

Status Store::SameSampleOtherBytes(const SnapshotToAppend& snapshot, const Pending& pending) {
  return Status(StatusCode::kAlreadyExists,
                "host " + snapshot.host + " already has a \"" + snapshot.query +
                    "\" sample taken at " + FormatRfc3339(pending.sample_time_ns) + " (PerfTime " +
                    std::to_string(pending.perf_time) + ", PerfTime100nSec " +
                    std::to_string(pending.perf_time_100ns) +
                    ") with other bytes; this one (instance " + snapshot.instance_id +
                    ", sequence " + std::to_string(snapshot.sequence) + ") is not stored");
}

Status Store::InsertOne(Pending& pending, std::optional<Result<AppendResult>>& result) {
  const SnapshotToAppend& snapshot = pending.snapshot;
  Result<int64_t> host_id = catalog_->HostId(snapshot.host, true, snapshot.receive_time_ns);
  if (!host_id.ok()) return host_id.status();
  int64_t sequence = static_cast<int64_t>(snapshot.sequence);

  // The title databases it brings into force, recorded whatever becomes of the snapshot (the same
  // sample again still says which databases its host had), once all are known to be stored.
  for (const auto& [language, digest] : snapshot.titles_in_force) {
    Result<bool> stored = catalog_->TitleDatabaseStored(digest);
    if (!stored.ok()) return stored.status();
    if (!*stored) {
      result = Status(StatusCode::kFailedPrecondition,
                      "title database " + ToHex(digest) + " (" + language +
                          ") is not stored; its snapshot is not stored either");
      return Status();
    }
  }
  for (const auto& [language, digest] : snapshot.titles_in_force) {
    if (Status s = catalog_->PutTitlesInForce(*host_id, language, digest, pending.sample_time_ns);
        !s.ok()) {
      return s;
    }
  }

  // The sample's identity: the same host, query and clocks (SystemTime, PerfTime,
  // PerfTime100nSec) is the same sample, whichever run sends it. A row stored before the clocks
  // were kept (NULL) matches on its bytes alone.
  Result<SqliteStatement*> existing = writer_->Prepare(
      "SELECT id, sha256, perf_time, perf_time_100ns FROM snapshots"
      " WHERE host_id = ?1 AND sample_time = ?2 AND query = ?3");
  if (!existing.ok()) return existing.status();
  (*existing)->Bind(1, *host_id).Bind(2, pending.sample_time_ns).Bind(3, snapshot.query);
  for (;;) {
    Result<bool> found = (*existing)->Step();
    if (!found.ok()) return found.status();
    if (!*found) break;
    std::span<const uint8_t> stored = (*existing)->Blob(1);
    bool same_bytes =
        std::equal(stored.begin(), stored.end(), pending.sha256.begin(), pending.sha256.end());
    bool same_clocks = !(*existing)->IsNull(2) && !(*existing)->IsNull(3) &&
                       (*existing)->Int(2) == pending.perf_time &&
                       (*existing)->Int(3) == pending.perf_time_100ns;
    if (!same_bytes && !same_clocks) continue;
    if (same_bytes) {
      result = AppendResult{(*existing)->Int(0), true, pending.sample_time_ns};
    } else {
      result = SameSampleOtherBytes(snapshot, pending);
    }
    (*existing)->Reset();
    return Status();
  }
  (*existing)->Reset();
  // A compacted group keeps its members' identities in its block row.
  std::optional<BlockMember> in_block;
  Status blocks =
      ForEachBlockBetween(*writer_, *host_id, pending.sample_time_ns, pending.sample_time_ns + 1,
                          snapshot.query, false, [&](const BlockRow& block) {
                            for (const BlockMember& member : block.members) {
                              if (member.sample_time_ns != pending.sample_time_ns) continue;
                              if (member.sha256 == pending.sha256 ||
                                  (member.perf_time == pending.perf_time &&
                                   member.perf_time_100ns == pending.perf_time_100ns)) {
                                in_block = member;
                                return false;
                              }
                            }
                            return true;
                          });
  if (!blocks.ok()) return blocks;
  if (in_block) {
    if (in_block->sha256 == pending.sha256) {
      result = AppendResult{in_block->id, true, pending.sample_time_ns};
    } else {
      result = SameSampleOtherBytes(snapshot, pending);
    }
    return Status();
  }

  // Delta against the stream's keyframe, or a new keyframe.
  Keyframe* group = keyframes_->Find(*host_id, snapshot.query);
  if (group == nullptr) {
    // The stream's newest group, unless it is compacted: a compacted group takes no more
    // members (its frame is its block), and a new one starts.
    Result<SqliteStatement*> latest = writer_->Prepare(
        "SELECT k.id, f.frame, k.stored_size,"
        " (SELECT COUNT(*) FROM snapshots d WHERE d.keyframe_id = k.id)"
        " FROM snapshots k JOIN frames f ON f.id = k.id"
        " WHERE k.host_id = ?1 AND k.query = ?2 AND k.keyframe_id IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.host_id = ?1 AND b.query = ?2"
        "                 AND b.id > k.id)"
        " ORDER BY k.id DESC LIMIT 1");
    if (!latest.ok()) return latest.status();
    (*latest)->Bind(1, *host_id).Bind(2, snapshot.query);
    Result<bool> row = (*latest)->Step();
    if (!row.ok()) return row.status();
    if (*row) {
      FramedGroup restorer((*latest)->Int(0), std::vector<uint8_t>((*latest)->Blob(1).begin(),
                                                                   (*latest)->Blob(1).end()));
      Keyframe keyframe{
          (*latest)->Int(0), {}, {}, (*latest)->Int(2), static_cast<int>((*latest)->Int(3)) + 1};
      (*latest)->Reset();
      // A keyframe that no longer decodes, or one stored whole before sections, is left alone;
      // a new group starts.
      auto restored = restorer.SectionedKeyframe();
      if (restored.ok() && restored->has_value()) {
        keyframe.raw = std::move((*restored)->first);
        keyframe.sections = std::move((*restored)->second);
        keyframes_->Put(*host_id, snapshot.query, std::move(keyframe));
        group = keyframes_->Find(*host_id, snapshot.query);
      }
    }
  }
  std::vector<uint8_t> frame;
  std::optional<int64_t> keyframe_id;
  if (group != nullptr && group->members < options_.group_size) {
    SectionedBase base{group->raw, group->sections};
    frame = EncodeSectionedFrame(snapshot.raw, pending.sections, &base, options_.level);
    if (static_cast<double>(frame.size()) <=
        options_.max_delta_share * static_cast<double>(group->frame_size)) {
      keyframe_id = group->id;
    }
  }
  if (!keyframe_id) {
    frame = EncodeSectionedFrame(snapshot.raw, pending.sections, nullptr, options_.level);
  }

  Result<SqliteStatement*> insert = writer_->Prepare(
      "INSERT INTO snapshots (id, host_id, query, sample_time, perf_time, perf_time_100ns,"
      " receive_time, instance_id, sequence, sha256, raw_size, stored_size, keyframe_id)"
      " VALUES (?13, ?1, ?2, ?3, ?11, ?12, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!insert.ok()) return insert.status();
  const int64_t id = next_id_++;
  (*insert)
      ->Bind(13, id)
      .Bind(1, *host_id)
      .Bind(2, snapshot.query)
      .Bind(3, pending.sample_time_ns)
      .Bind(4, snapshot.receive_time_ns)
      .Bind(5, snapshot.instance_id)
      .Bind(6, sequence)
      .BindBlob(7, pending.sha256)
      .Bind(8, static_cast<int64_t>(snapshot.raw.size()))
      .Bind(9, static_cast<int64_t>(frame.size()))
      .Bind(11, pending.perf_time)
      .Bind(12, pending.perf_time_100ns);
  if (keyframe_id) {
    (*insert)->Bind(10, *keyframe_id);
  } else {
    (*insert)->BindNull(10);
  }
  if (Status s = (*insert)->Run(); !s.ok()) return s;
  Result<SqliteStatement*> insert_frame =
      writer_->Prepare("INSERT INTO frames (id, frame) VALUES (?1, ?2)");
  if (!insert_frame.ok()) return insert_frame.status();
  if (Status s = (*insert_frame)->Bind(1, id).BindBlob(2, frame).Run(); !s.ok()) return s;

  Result<SqliteStatement*> count = writer_->Prepare(
      "UPDATE hosts SET last_seen = MAX(last_seen, ?2),"
      " snapshots_received = snapshots_received + 1, raw_bytes_received = raw_bytes_received + ?3,"
      " snapshots_stored = snapshots_stored + 1, raw_bytes_stored = raw_bytes_stored + ?3,"
      " stored_bytes = stored_bytes + ?4 WHERE id = ?1");
  if (!count.ok()) return count.status();
  (*count)
      ->Bind(1, *host_id)
      .Bind(2, snapshot.receive_time_ns)
      .Bind(3, static_cast<int64_t>(snapshot.raw.size()))
      .Bind(4, static_cast<int64_t>(frame.size()));
  if (Status s = (*count)->Run(); !s.ok()) return s;
  Result<SqliteStatement*> run = writer_->Prepare(
      "INSERT INTO runs (host_id, instance_id, last_sequence) VALUES (?1, ?2, ?3)"
      " ON CONFLICT (host_id, instance_id) DO UPDATE SET"
      " last_sequence = MAX(last_sequence, excluded.last_sequence)");
  if (!run.ok()) return run.status();
  if (Status s = (*run)->Bind(1, *host_id).Bind(2, snapshot.instance_id).Bind(3, sequence).Run();
      !s.ok()) {
    return s;
  }
  if (Status s = catalog_->RecordInventory(*host_id, snapshot.query, pending.sample_time_ns,
                                           pending.inventory, pending.inventory_hash);
      !s.ok()) {
    return s;
  }
  if (Status s = catalog_->RecordInstanceGaps(*host_id, snapshot.query, snapshot.instance_gaps);
      !s.ok()) {
    return s;
  }
  if (snapshot.invalid_counters) {
    if (Status s = catalog_->RecordInvalidCounters(*host_id, snapshot.query, pending.sample_time_ns,
                                                   *snapshot.invalid_counters);
        !s.ok()) {
      return s;
    }
  }

  if (keyframe_id) {
    ++group->members;
  } else {
    keyframes_->Put(*host_id, snapshot.query,
                    Keyframe{id, snapshot.raw, std::move(pending.sections),
                             static_cast<int64_t>(frame.size()), 1});
  }
  result = AppendResult{id, false, pending.sample_time_ns};
  return Status();
}

}  // namespace perfhive
