// Catalog: the inventories of hosts' snapshots (docs/store_format.md, "Inventories"): recorded by
// the writer as snapshots are appended, read for the fleet's counter health.

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>

#include "store/block_rows.h"
#include "store/catalog.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {
namespace {

struct InventoryRow {
  int64_t since_ns = 0;
  std::vector<uint8_t> inventory;
};

// The row of (host, query) nearest `sample_time_ns`: the latest at or before it (`after` false),
// or the earliest after it (`after` true).
Result<std::optional<InventoryRow>> NearestInventory(SqliteDb& db, int64_t host_id,
                                                     const std::string& query,
                                                     int64_t sample_time_ns, bool after) {
  Result<SqliteStatement*> select = after ? db.Prepare(
                                                "SELECT since, inventory FROM inventories"
                                                " WHERE host_id = ?1 AND query = ?2 AND since > ?3"
                                                " ORDER BY since ASC LIMIT 1")
                                          : db.Prepare(
                                                "SELECT since, inventory FROM inventories"
                                                " WHERE host_id = ?1 AND query = ?2 AND since <= ?3"
                                                " ORDER BY since DESC LIMIT 1");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, host_id).Bind(2, query).Bind(3, sample_time_ns);
  Result<bool> found = (*select)->Step();
  if (!found.ok()) return found.status();
  if (!*found) return std::optional<InventoryRow>();
  std::span<const uint8_t> bytes = (*select)->Blob(1);
  InventoryRow row{(*select)->Int(0), {bytes.begin(), bytes.end()}};
  (*select)->Reset();
  return std::optional<InventoryRow>(std::move(row));
}

}  // namespace

InventoryHash InventoryHash::Of(const std::vector<uint8_t>& encoded) {
  const std::string_view bytes(reinterpret_cast<const char*>(encoded.data()), encoded.size());
  return {encoded.size(), std::hash<std::string_view>()(bytes)};
}

Status Catalog::RecordInventory(int64_t host_id, const std::string& query, int64_t sample_time_ns,
                                const std::vector<uint8_t>& inventory,
                                const InventoryHash& inventory_hash) {
  const std::pair<int64_t, std::string> stream{host_id, query};
  auto latest = latest_inventories_.find(stream);
  if (latest == latest_inventories_.end()) {
    Result<std::optional<InventoryRow>> newest =
        NearestInventory(db(), host_id, query, INT64_MAX, false);
    if (!newest.ok()) return newest.status();
    if (*newest) {
      Result<SqliteStatement*> select = db().Prepare(
          "SELECT MAX(sample_time) FROM snapshots WHERE host_id = ?1 AND query = ?2"
          " AND sample_time != ?3");
      if (!select.ok()) return select.status();
      (*select)->Bind(1, host_id).Bind(2, query).Bind(3, sample_time_ns);
      Result<bool> row = (*select)->Step();
      if (!row.ok()) return row.status();
      int64_t newest_sample_ns = (*select)->IsNull(0) ? 0 : (*select)->Int(0);
      (*select)->Reset();
      Result<std::optional<int64_t>> in_blocks =
          NearestMemberTime(db(), host_id, query, INT64_MIN, INT64_MAX, true, sample_time_ns);
      if (!in_blocks.ok()) return in_blocks.status();
      if (*in_blocks) newest_sample_ns = std::max(newest_sample_ns, **in_blocks);
      latest = latest_inventories_
                   .emplace(stream, LatestInventory{InventoryHash::Of((*newest)->inventory),
                                                    newest_sample_ns})
                   .first;
    }
  }
  // The common case: a snapshot newer than every other of its stream. (A stream without a record
  // is one stored before inventories were, or a new one: its first record starts here.)
  const bool newest =
      latest == latest_inventories_.end() || sample_time_ns >= latest->second.newest_sample_ns;
  if (newest && latest != latest_inventories_.end() &&
      latest->second.inventory_hash == inventory_hash) {
    latest->second.newest_sample_ns = sample_time_ns;
    return Status();
  }

  Result<SqliteStatement*> host =
      db().Prepare("SELECT agent_version, os_version, plan_revision FROM hosts WHERE id = ?1");
  if (!host.ok()) return host.status();
  (*host)->Bind(1, host_id);
  Result<bool> host_found = (*host)->Step();
  if (!host_found.ok()) return host_found.status();
  std::string versions[3];
  if (*host_found) {
    for (int i = 0; i < 3; ++i) versions[i] = (*host)->Text(i);
    (*host)->Reset();
  }
  Result<SqliteStatement*> insert = db().Prepare(
      "INSERT OR REPLACE INTO inventories"
      " (host_id, query, since, inventory, agent_version, os_version, plan_revision)"
      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!insert.ok()) return insert.status();
  auto record = [&](int64_t since_ns, const std::vector<uint8_t>& bytes) {
    return (*insert)
        ->Bind(1, host_id)
        .Bind(2, query)
        .Bind(3, since_ns)
        .BindBlob(4, bytes)
        .Bind(5, versions[0])
        .Bind(6, versions[1])
        .Bind(7, versions[2])
        .Run();
  };

  if (newest) {
    if (Status s = record(sample_time_ns, inventory); !s.ok()) return s;
    latest_inventories_[stream] = LatestInventory{inventory_hash, sample_time_ns};
    return Status();
  }

  // A snapshot older than others of its stream (a spool sent after newer samples): the record in
  // force at its time may hold something else, and the snapshots stored after it still hold
  // what that record says until the next one. The records may change here: the stream's cache is
  // read again at its next append.
  latest_inventories_.erase(latest);
  Result<std::optional<InventoryRow>> in_force =
      NearestInventory(db(), host_id, query, sample_time_ns, false);
  if (!in_force.ok()) return in_force.status();
  if (*in_force && (*in_force)->inventory == inventory) return Status();
  Result<std::optional<InventoryRow>> next =
      NearestInventory(db(), host_id, query, sample_time_ns, true);
  if (!next.ok()) return next.status();
  if (Status s = record(sample_time_ns, inventory); !s.ok()) return s;
  if (!*in_force) {
    // Older than every record: the next record, holding the same, now starts here.
    if (*next && (*next)->inventory == inventory) {
      Result<SqliteStatement*> remove =
          db().Prepare("DELETE FROM inventories WHERE host_id = ?1 AND query = ?2 AND since = ?3");
      if (!remove.ok()) return remove.status();
      if (Status s = (*remove)->Bind(1, host_id).Bind(2, query).Bind(3, (*next)->since_ns).Run();
          !s.ok()) {
        return s;
      }
    }
    return Status();
  }
  Result<SqliteStatement*> following = db().Prepare(
      "SELECT MIN(sample_time) FROM snapshots"
      " WHERE host_id = ?1 AND query = ?2 AND sample_time > ?3");
  if (!following.ok()) return following.status();
  (*following)->Bind(1, host_id).Bind(2, query).Bind(3, sample_time_ns);
  Result<bool> row = (*following)->Step();
  if (!row.ok()) return row.status();
  // INT64_MAX: no snapshot follows.
  int64_t following_ns = *row && !(*following)->IsNull(0) ? (*following)->Int(0) : INT64_MAX;
  if (*row) (*following)->Reset();
  Result<std::optional<int64_t>> in_blocks =
      NearestMemberTime(db(), host_id, query, sample_time_ns + 1, INT64_MAX, false, INT64_MIN);
  if (!in_blocks.ok()) return in_blocks.status();
  if (*in_blocks) following_ns = std::min(following_ns, **in_blocks);
  if (following_ns != INT64_MAX && (!*next || following_ns < (*next)->since_ns)) {
    return record(following_ns, (*in_force)->inventory);
  }
  return Status();
}

Result<std::vector<query::HostInventories>> Catalog::Inventories(int64_t to_ns) {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT h.name, i.query, i.since, i.inventory, i.agent_version, i.os_version,"
      " i.plan_revision FROM inventories i JOIN hosts h ON h.id = i.host_id"
      " WHERE i.since <= ?1 ORDER BY h.name_key, i.host_id, i.query, i.since");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, to_ns);
  std::vector<query::HostInventories> hosts;
  Status decoding;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    if (!decoding.ok()) return;
    std::string host = row.Text(0);
    if (hosts.empty() || hosts.back().host != host) hosts.push_back({std::move(host), {}});
    std::string query = row.Text(1);
    const int64_t since_ns = row.Int(2);
    Result<SnapshotInventory> inventory = DecodeInventory(row.Blob(3));
    if (!inventory.ok()) {
      decoding =
          Status(inventory.status().code(),
                 "store " + path() + ": the inventory of host " + hosts.back().host + ", query " +
                     query + ", since " + std::to_string(since_ns) + ": " + inventory.error());
      return;
    }
    hosts.back().versions.push_back({std::move(query), since_ns, std::move(inventory).value(),
                                     row.Text(4), row.Text(5), row.Text(6)});
  });
  if (!read.ok()) return read;
  if (!decoding.ok()) return decoding;
  return hosts;
}

}  // namespace perfhive
