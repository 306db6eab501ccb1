// Catalog: what the store knows of its hosts apart from their samples, as Prometheus keeps its
// index apart from its chunks: hosts with their labels, health, plans and reports; title
// databases and the version each host has in force; export positions; and what the appends
// record about their host as they arrive (inventories, counters without a valid value, instance
// gaps). The sample log (store/store.h) keeps the snapshots themselves.
//
// It lives in the store's one SQLite database, so that an append and what it says of its host
// commit together. Reads take a connection of the store's reader pool. Writes go to the store's
// writer (CatalogWriter), which runs each in its next transaction, in a savepoint of its own,
// beside the appends, and returns once that commit is durable; what an append records runs on
// the writer inside the append's own transaction (the methods under "On the writer"). The
// tables are described in docs/store_format.md.

#ifndef PERFHIVE_STORE_CATALOG_H_
#define PERFHIVE_STORE_CATALOG_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "perfdata/instance_gaps.h"
#include "perfdata/invalid_counters.h"
#include "port/sha256.h"
#include "query/host_selector.h"
#include "query/inventory_history.h"

namespace perfhive {

class ReaderPool;
class SqliteDb;
class SqliteStatement;

// What an agent (or a poller, for an agentless host) says about a host.
struct HostInfo {
  std::string name;           // as the host spells it; unique ignoring case
  std::string os;             // "Windows Server 2022", "Linux"
  std::string os_version;     // "10.0.20348", "6.1.0-18-amd64"
  std::string source_kind;    // "agent", "agentless" or "poller" (proto/source_kind.h)
  std::string agent_version;  // of the agent that read it
  std::string instance_id;    // the agent's boot or instance id
  // The host's labels as its agent gave them, replacing those stored; unset: keep those stored
  // (a drain's stream, which does not know them).
  std::optional<query::HostLabels> labels = std::nullopt;
};

struct HostRecord {
  HostInfo info;
  int64_t first_seen_ns = 0;  // server clock, Unix nanoseconds UTC
  int64_t last_seen_ns = 0;
  std::string last_error;  // as reported by the agent or poller, or a refusal's message
  int64_t last_error_ns = 0;
  int64_t snapshots_received = 0;  // appended since the host was first seen, duplicates not
  int64_t raw_bytes_received = 0;
  int64_t snapshots_stored = 0;  // kept now, after retention
  int64_t raw_bytes_stored = 0;
  int64_t stored_bytes = 0;  // what they take in the database, compressed
  int64_t refusals = 0;
  // The collection plan the host's agent applied last; empty: its own settings.
  std::string plan_revision;
  // What it said about it: local settings the plan overrides, or why it could not apply it.
  std::string plan_report;
  int64_t plan_reported_ns = 0;  // server clock
  // The labels its agent gave in its last Hello that said (HostInfo::labels); not the policies'.
  query::HostLabels labels;
};

struct TitleDatabaseRecord {
  Sha256Digest digest{};  // wire/title_digest.h
  std::string language;   // "009"
  std::vector<uint8_t> counters;
  std::vector<uint8_t> helps;
  int64_t since_ns = 0;  // in force for its host from this sample time (TitlesInForce only)
};

// One version of a host's title database for one language: in force from `since_ns`.
struct TitleVersion {
  int64_t since_ns = 0;
  Sha256Digest digest{};
};

// The version in force at `sample_time_ns` among `history` (sorted by since_ns), by
// TitlesInForce's rule: the latest at or before it, else the earliest; null when empty.
const TitleVersion* VersionInForce(std::span<const TitleVersion> history, int64_t sample_time_ns);

// How far an exporter has delivered one host: every sample up to this sample time.
struct ExportPosition {
  std::string host;
  int64_t sample_time_ns = 0;
};

// What the writer compares an inventory's encoding by: its size and a 64-bit hash of its bytes.
struct InventoryHash {
  size_t size = 0;
  size_t hash = 0;

  static InventoryHash Of(const std::vector<uint8_t>& encoded);
  bool operator==(const InventoryHash&) const = default;
};

// How the catalog reaches the store's writer: `db` is the writer's connection, used only inside
// a write; `run` queues a write for the writer's next transaction and calls `done` with its
// outcome once that commit is durable (on the writer thread), or runs it at once in a
// transaction of its own when called from the writer itself or once the store is stopping.
struct CatalogWriter {
  SqliteDb* db = nullptr;
  std::function<void(std::function<Status()> write, std::function<void(Status)> done)> run;
};

class Catalog {
 public:
  Catalog(ReaderPool& readers, CatalogWriter writer)
      : readers_(readers), writer_(std::move(writer)) {}
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // Hosts. A host is named ignoring case; updating keeps first_seen and the counts, and replaces
  // the labels when the update has them.
  Status UpsertHost(const HostInfo& host, int64_t now_ns);
  // UpsertHost without waiting: `done` gets the outcome once the row is durable, on the store's
  // writer thread (so it must be quick), or at once when the store is stopping.
  void UpsertHostAsync(HostInfo host, int64_t now_ns, std::function<void(Status)> done);
  // How many times hosts' labels were replaced since the store opened, counted once each
  // replacement is durable: whoever keeps labels read before may keep them while it is unchanged.
  uint64_t host_labels_changes() const { return host_labels_changes_.load(); }
  // Health reported by an agent or poller (an empty message clears it).
  Status RecordHostError(const std::string& host, const std::string& message, int64_t time_ns);
  // A snapshot refused (malformed, oversized): counted, its message kept as the last error.
  Status RecordRefusal(const std::string& host, const std::string& message, int64_t time_ns);
  // The collection plan `host`'s agent applied last (an empty revision: its own settings) and
  // what it said about it, replacing what it said before.
  Status RecordHostPlan(const std::string& host, const std::string& revision,
                        const std::string& report, int64_t now_ns);
  // `host`'s disabled providers as its agent last reported them (none: an empty list), replacing
  // what it reported before; a provider still disabled keeps the time it was first reported.
  Status RecordDisabledProviders(const std::string& host,
                                 const std::vector<DisabledProvider>& disabled, int64_t now_ns);
  // Every host's disabled providers by host name, each host's by service; hosts with none are
  // left out.
  Result<std::map<std::string, std::vector<query::DisabledProviderSince>>> DisabledProviders();
  // What `host`'s agent reports it lost since it started (`grew_ns` is worked out here: `now_ns`
  // when a count grew since its last report of the same start, or when a new start reports
  // some), replacing its last report.
  Status RecordCollectionLosses(const std::string& host, query::CollectionLosses losses,
                                int64_t now_ns);
  // Every host's last report, by host name.
  Result<std::map<std::string, query::CollectionLosses>> CollectionLosses();
  // `host`'s object timings as its agent last reported them, replacing what it reported before.
  Status RecordObjectTimings(const std::string& host, const query::ObjectTimings& timings,
                             int64_t now_ns);
  // Every host's last report, by host name (hosts that sent none left out), objects by index.
  Result<std::map<std::string, query::ObjectTimings>> ObjectTimings();
  // Every host's counters without a valid value now, by host name (hosts with none left out),
  // each host's by query, object and counter index.
  Result<std::map<std::string, std::vector<query::InvalidCounterRun>>> InvalidCounterRuns();
  // Every host's instances that went and came back by `at_ns` (their `back`), by host name (hosts
  // with none left out), each host's by time.
  Result<std::map<std::string, std::vector<InstanceGap>>> InstanceGaps(int64_t at_ns);
  Result<std::vector<HostRecord>> ListHosts();
  Result<std::optional<HostRecord>> FindHost(const std::string& host);

  // Title databases, stored once per content.
  Result<Sha256Digest> PutTitleDatabase(const std::string& language,
                                        std::span<const uint8_t> counters,
                                        std::span<const uint8_t> helps);
  Result<bool> HasTitleDatabase(const Sha256Digest& digest);
  Result<TitleDatabaseRecord> GetTitleDatabase(const Sha256Digest& digest);
  // From `since_ns` (a sample time) on, `host` reads `language` with database `digest` (stored
  // before with PutTitleDatabase). Saying again what is already in force changes nothing.
  Status SetTitlesInForce(const std::string& host, const std::string& language,
                          const Sha256Digest& digest, int64_t since_ns);
  // The database in force at `sample_time_ns`: the latest set at or before it, or, for a sample
  // older than every version (spooled before the first was recorded), the earliest.
  Result<std::optional<TitleDatabaseRecord>> TitlesInForce(const std::string& host,
                                                           const std::string& language,
                                                           int64_t sample_time_ns);
  // Every version `host` has had for `language`, by `since`: a reader of many samples picks
  // each one's version with VersionInForce instead of asking TitlesInForce per sample.
  Result<std::vector<TitleVersion>> TitleHistory(const std::string& host,
                                                 const std::string& language);

  // Export positions, per receiver (any name the exporter chooses) and host. Setting several in
  // one transaction keeps an exporter of many hosts from paying a commit per host; a position
  // never moves back (the greater of the stored and the given time is kept).
  Status SetExportPositions(const std::string& receiver,
                            const std::vector<ExportPosition>& positions);
  // Every host's position for `receiver`; hosts never exported are absent.
  Result<std::vector<ExportPosition>> ExportPositions(const std::string& receiver);

  // Every host's inventory versions recorded up to `to_ns` (a sample time), hosts by name; hosts
  // with none are left out. The table holds a row per change, so this is small.
  Result<std::vector<query::HostInventories>> Inventories(int64_t to_ns);

  // On the writer, inside an append's transaction (the sample log's InsertOne).
  // The row id of `host` (named ignoring case), made when `create` and it has none.
  Result<int64_t> HostId(const std::string& host, bool create, int64_t now_ns);
  // After a new snapshot of (host, query) taken at `sample_time_ns` was stored: records its
  // inventory when it differs from the one in force then (store_inventories.cc).
  Status RecordInventory(int64_t host_id, const std::string& query, int64_t sample_time_ns,
                         const std::vector<uint8_t>& inventory,
                         const InventoryHash& inventory_hash);
  // After a new snapshot of (host, query) taken at `sample_time_ns` was stored, with the
  // counters that had no valid value against the snapshot before it: starts, writes and ends the
  // stream's runs (store_invalid_counters.cc).
  Status RecordInvalidCounters(int64_t host_id, const std::string& query, int64_t sample_time_ns,
                               const std::vector<InvalidCounter>& invalid);
  // Keeps the gaps a new snapshot of (host, query) closed (store_instance_gaps.cc).
  Status RecordInstanceGaps(int64_t host_id, const std::string& query,
                            const std::vector<InstanceGap>& gaps);
  Result<bool> TitleDatabaseStored(const Sha256Digest& digest);
  // From `since_ns` on, `host_id` reads `language` with `digest`, unless that is already so.
  Status PutTitlesInForce(int64_t host_id, const std::string& language, const Sha256Digest& digest,
                          int64_t since_ns);
  // After a batch whose transaction failed: forgets what it kept of rows that were not written.
  void ForgetUncommitted() { latest_inventories_.clear(); }

 private:
  // Runs `write` in the writer's next transaction and waits until that commit is durable.
  Status Write(std::function<Status()> write);
  // On the writer: `host`'s labels become `labels` (its row made if it has none).
  Status ReplaceHostLabels(const std::string& host, const query::HostLabels& labels,
                           int64_t now_ns);
  // Runs `update_sql` on the writer with ?1 bound to the host's row id (made if it has none)
  // and the rest bound by `bind_values`.
  Status UpdateHostRow(const std::string& host, int64_t time_ns, const char* update_sql,
                       const std::function<void(SqliteStatement&)>& bind_values);

  ReaderPool& readers_;
  const CatalogWriter writer_;
  SqliteDb& db() const { return *writer_.db; }
  // The database's file, for errors.
  const std::string& path() const;

  // The newest inventory recorded per (host id, query), by its encoding's size and 64-bit hash
  // (InventoryHash: 16 bytes a stream rather than kilobytes; equal inventories from one stream
  // whose hashes collide would only leave a change unrecorded, at odds of 2^-64), and the newest
  // sample time stored: most appends are newer, compare theirs with it and write nothing.
  struct LatestInventory {
    InventoryHash inventory_hash{};
    int64_t newest_sample_ns = 0;
  };
  std::map<std::pair<int64_t, std::string>, LatestInventory> latest_inventories_;
  // Per (host id, query): the counters without a valid value at the stream's newest checked
  // pair, by (object, counter) index, each with the sample time its run began and whether its row
  // is written; read from the table at the stream's first check after a start.
  struct InvalidRun {
    int64_t since_ns = 0;
    PdhStatus status = PdhStatus::kInvalidData;
    bool written = false;
  };
  struct StreamInvalidRuns {
    bool loaded = false;
    int64_t newest_ns = 0;
    std::map<std::pair<uint32_t, uint32_t>, InvalidRun> runs;
  };
  std::map<std::pair<int64_t, std::string>, StreamInvalidRuns> invalid_runs_;
  std::atomic<uint64_t> host_labels_changes_{0};
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_CATALOG_H_
