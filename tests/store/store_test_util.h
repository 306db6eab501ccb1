// Helpers shared by the store tests: a fresh directory per test and small valid snapshots.

#ifndef PERFHIVE_TESTS_STORE_STORE_TEST_UTIL_H_
#define PERFHIVE_TESTS_STORE_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/snapshot_builder.h"
#include "store/block_members.h"
#include "store/store.h"

namespace perfhive::testing {

// A directory under the system's temporary folder, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "perfhive-store-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A small valid snapshot taken at 2025-03-01 10:00:`second` UTC whose values depend on `seed`.
// Two with the same second and PerfTime are the same sample to the store.
inline std::vector<uint8_t> SmallSnapshot(int second, uint64_t seed = 0, int processes = 20,
                                          int64_t perf_time = 0) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST")
      .set_system_time({2025, 3, 6, 1, 10, 0, static_cast<uint16_t>(second), 0})
      .set_perf_time(perf_time);
  ObjectBuilder& process = builder.AddObject(230);
  for (uint32_t c = 0; c < 4; ++c) {
    process.AddCounter({.name_index = 6 + 2 * c, .type = winperf::kCounterLargeRawcount});
  }
  for (int p = 0; p < processes; ++p) {
    uint32_t i = process.AddInstance("proc" + std::to_string(p), p);
    for (uint32_t c = 0; c < 4; ++c) process.SetValue(i, c, seed * 1000 + p * 10 + c);
  }
  return builder.Build();
}

// Opens a store in `dir`; a failure fails the test and returns null.
inline std::unique_ptr<Store> OpenStore(const std::string& dir, const StoreOptions& options = {}) {
  Result<std::unique_ptr<Store>> store = Store::Open(dir, options);
  EXPECT_TRUE(store.ok()) << store.error();
  return store.ok() ? std::move(*store) : nullptr;
}

// Snapshot `id` of `host` as ListSnapshots gives it (snapshots are known by their host and time;
// a compacted one has no row of its own to find it by id).
inline Result<SnapshotInfo> InfoOf(Store& store, const std::string& host, int64_t id) {
  Result<std::vector<SnapshotInfo>> listed = store.ListSnapshots(host, 0, INT64_MAX);
  if (!listed.ok()) return listed.status();
  for (const SnapshotInfo& info : *listed) {
    if (info.id == id) return info;
  }
  return Status::Error("host " + host + " has no snapshot " + std::to_string(id));
}

// The raw bytes of snapshot `id` of `host`, read back.
inline Result<std::vector<uint8_t>> ReadBack(Store& store, const std::string& host, int64_t id) {
  Result<SnapshotInfo> info = InfoOf(store, host, id);
  if (!info.ok()) return info.status();
  return store.ReadSnapshot(*info);
}

// Unix nanoseconds of 2025-03-01 10:00:`second` UTC (1740823200 is 2025-03-01T10:00:00Z).
inline int64_t SampleNs(int second) { return (1'740'823'200LL + second) * 1'000'000'000LL; }

inline SnapshotToAppend MakeAppend(std::string host, std::string instance, uint64_t sequence,
                                   std::vector<uint8_t> raw, std::string query = "Global") {
  SnapshotToAppend append;
  append.host = std::move(host);
  append.query = std::move(query);
  append.instance_id = std::move(instance);
  append.sequence = sequence;
  append.receive_time_ns = 1'000'000'000LL * (1'740'823'200LL + static_cast<int64_t>(sequence));
  append.raw = std::move(raw);
  return append;
}

// Puts the members of every compacted group back in rows of their own, as schema version 13 and
// before kept them (with `block_index`), and drops the table of block rows. True when it worked.
inline bool BlocksBackToRows(sqlite3* db) {
  sqlite3_stmt* select = nullptr;
  sqlite3_stmt* insert = nullptr;
  bool ok =
      sqlite3_prepare_v2(db, "SELECT id, host_id, query, stored_size, members FROM blocks", -1,
                         &select, nullptr) == SQLITE_OK &&
      sqlite3_prepare_v2(db,
                         "INSERT INTO snapshots (id, host_id, query, sample_time, perf_time,"
                         " perf_time_100ns, receive_time, instance_id, sequence, sha256, raw_size,"
                         " stored_size, keyframe_id, block_index)"
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                         -1, &insert, nullptr) == SQLITE_OK;
  while (ok && sqlite3_step(select) == SQLITE_ROW) {
    const int64_t block = sqlite3_column_int64(select, 0);
    const auto* members_bytes = static_cast<const uint8_t*>(sqlite3_column_blob(select, 4));
    Result<std::vector<BlockMember>> members = DecodeBlockMembers(std::span<const uint8_t>(
        members_bytes, static_cast<size_t>(sqlite3_column_bytes(select, 4))));
    ok = members.ok() && !members->empty();
    const auto count = ok ? static_cast<int64_t>(members->size()) : 1;
    const int64_t share = sqlite3_column_int64(select, 3) / count;
    for (int64_t i = 0; ok && i < count; ++i) {
      const BlockMember& member = (*members)[static_cast<size_t>(i)];
      sqlite3_reset(insert);
      sqlite3_bind_int64(insert, 1, member.id);
      sqlite3_bind_int64(insert, 2, sqlite3_column_int64(select, 1));
      sqlite3_bind_text(insert, 3, reinterpret_cast<const char*>(sqlite3_column_text(select, 2)),
                        -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(insert, 4, member.sample_time_ns);
      if (member.perf_time)
        sqlite3_bind_int64(insert, 5, *member.perf_time);
      else
        sqlite3_bind_null(insert, 5);
      if (member.perf_time_100ns)
        sqlite3_bind_int64(insert, 6, *member.perf_time_100ns);
      else
        sqlite3_bind_null(insert, 6);
      sqlite3_bind_int64(insert, 7, member.receive_time_ns);
      sqlite3_bind_text(insert, 8, member.instance_id.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(insert, 9, static_cast<int64_t>(member.sequence));
      sqlite3_bind_blob(insert, 10, member.sha256.data(), static_cast<int>(member.sha256.size()),
                        SQLITE_TRANSIENT);
      sqlite3_bind_int64(insert, 11, member.raw_size);
      sqlite3_bind_int64(insert, 12,
                         i == 0 ? sqlite3_column_int64(select, 3) - share * (count - 1) : share);
      if (member.id == block)
        sqlite3_bind_null(insert, 13);
      else
        sqlite3_bind_int64(insert, 13, block);
      sqlite3_bind_int64(insert, 14, i);
      ok = sqlite3_step(insert) == SQLITE_DONE;
    }
  }
  sqlite3_finalize(select);
  sqlite3_finalize(insert);
  return ok && sqlite3_exec(db, "DROP TABLE blocks;", nullptr, nullptr, nullptr) == SQLITE_OK;
}

// Makes the closed store in `dir` what schema version `version` (1 to 13) wrote: version 13 keeps
// a compacted group's members in rows of their own; version 12 also keeps
// no instance gaps; version 11 also no invalid counters nor object timings; version 10 also no
// disabled providers nor collection losses; version 9 also no inventories; version 8 also no host
// labels; version 7 also finds a run's last sequence by an index over the snapshots, not in `runs`;
// version 6 also stores title databases raw (the store must hold none compressed); version 5 also
// has no index of uncompacted groups; version 4 also no columnar blocks (the store must hold none);
// version 3 also no host plans; version 2 also no clocks, (host, instance, sequence) unique;
// version 1 also lacks export_positions. True when it worked.
inline bool RewindSchema(const std::string& dir, int version) {
  std::string sql;
  if (version <= 12) sql += "DROP TABLE instance_gaps;";
  if (version <= 11) {
    sql += "DROP TABLE invalid_counters; DROP TABLE object_sweeps; DROP TABLE object_timings;";
  }
  if (version <= 10) sql += "DROP TABLE disabled_providers; DROP TABLE collection_losses;";
  if (version <= 9) sql += "DROP TABLE inventories;";
  if (version <= 8) sql += "DROP TABLE host_labels;";
  if (version <= 7) {
    sql +=
        "DROP TABLE runs;"
        "CREATE INDEX snapshots_by_sequence ON snapshots (host_id, instance_id, sequence);";
  }
  if (version <= 6) {
    // json() of a text that is not JSON fails the script: compressed rows are not rewound.
    sql +=
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM title_databases WHERE encoding != 0)"
        " THEN json('compressed title databases cannot be rewound') END;"
        "ALTER TABLE title_databases DROP COLUMN encoding;";
  }
  if (version <= 5) sql += "DROP INDEX snapshots_uncompacted;";
  if (version <= 4) sql += "ALTER TABLE snapshots DROP COLUMN block_index;";
  if (version <= 3) {
    sql +=
        "ALTER TABLE hosts DROP COLUMN plan_revision; ALTER TABLE hosts DROP COLUMN plan_report;"
        "ALTER TABLE hosts DROP COLUMN plan_reported_time;";
  }
  if (version <= 2) {
    sql +=
        "DROP INDEX snapshots_by_sequence; ALTER TABLE snapshots DROP COLUMN perf_time;"
        "ALTER TABLE snapshots DROP COLUMN perf_time_100ns;"
        "CREATE UNIQUE INDEX snapshots_by_sequence ON snapshots (host_id, instance_id, sequence);";
  }
  if (version == 1) sql += "DROP TABLE export_positions;";
  sql += "PRAGMA user_version=" + std::to_string(version) + ";";
  sqlite3* db = nullptr;
  bool ok = sqlite3_open((dir + "/perfhive.db").c_str(), &db) == SQLITE_OK &&
            BlocksBackToRows(db) &&
            sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_STORE_STORE_TEST_UTIL_H_
