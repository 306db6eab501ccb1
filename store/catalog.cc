#include "store/catalog.h"

#include <algorithm>

#include "codec/zstd_codec.h"
#include "store/awaited.h"
#include "store/host_key.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"
#include "wire/title_digest.h"

namespace perfhive {

namespace {

constexpr const char* kHostColumns =
    "SELECT name, os, os_version, source_kind, agent_version, instance_id, first_seen, last_seen,"
    " last_error, last_error_time, snapshots_received, raw_bytes_received, snapshots_stored,"
    " raw_bytes_stored, stored_bytes, refusals, plan_revision, plan_report, plan_reported_time"
    " FROM hosts";

HostRecord HostFromRow(const SqliteStatement& row) {
  HostRecord host;
  host.info = {row.Text(0), row.Text(1), row.Text(2), row.Text(3), row.Text(4), row.Text(5)};
  host.first_seen_ns = row.Int(6);
  host.last_seen_ns = row.Int(7);
  host.last_error = row.Text(8);
  host.last_error_ns = row.Int(9);
  host.snapshots_received = row.Int(10);
  host.raw_bytes_received = row.Int(11);
  host.snapshots_stored = row.Int(12);
  host.raw_bytes_stored = row.Int(13);
  host.stored_bytes = row.Int(14);
  host.refusals = row.Int(15);
  host.plan_revision = row.Text(16);
  host.plan_report = row.Text(17);
  host.plan_reported_ns = row.Int(18);
  return host;
}

// zstd's level for title databases: written once per content, read at every query's start; 9
// takes a 316 KB Exchange 2007 names list to 40.5 KB in about 10 ms (19: 35.7 KB, 130 ms).
constexpr int kTitleDatabaseLevel = 9;
// The largest half (names or helps) of a stored title database that a read restores.
constexpr size_t kMaxTitleDatabaseBytes = 256 * 1024 * 1024;

}  // namespace

Status Catalog::UpsertHost(const HostInfo& host, int64_t now_ns) {
  return Awaited<Status>(
      [&](std::function<void(Status)> done) { UpsertHostAsync(host, now_ns, std::move(done)); });
}

void Catalog::UpsertHostAsync(HostInfo host, int64_t now_ns, std::function<void(Status)> done) {
  if (host.name.empty()) return done(Status::Error("host: no name"));
  const bool labelled = host.labels.has_value();
  writer_.run(
      [this, host = std::move(host), now_ns]() -> Status {
        Result<SqliteStatement*> upsert = db().Prepare(
            "INSERT INTO hosts (name, name_key, os, os_version, source_kind, agent_version,"
            " instance_id, first_seen, last_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)"
            " ON CONFLICT (name_key) DO UPDATE SET name = ?1, os = ?3, os_version = ?4,"
            " source_kind = ?5, agent_version = ?6, instance_id = ?7,"
            " last_seen = MAX(last_seen, ?8)");
        if (!upsert.ok()) return upsert.status();
        std::string key = HostKey(host.name);
        Status upserted = (*upsert)
                              ->Bind(1, host.name)
                              .Bind(2, key)
                              .Bind(3, host.os)
                              .Bind(4, host.os_version)
                              .Bind(5, host.source_kind)
                              .Bind(6, host.agent_version)
                              .Bind(7, host.instance_id)
                              .Bind(8, now_ns)
                              .Run();
        if (!upserted.ok() || !host.labels) return upserted;
        return ReplaceHostLabels(host.name, *host.labels, now_ns);
      },
      [this, labelled, done = std::move(done)](Status status) {
        // Counted once durable: a reader that read the labels before then sees the count move.
        if (labelled && status.ok()) ++host_labels_changes_;
        done(std::move(status));
      });
}

Status Catalog::ReplaceHostLabels(const std::string& host, const query::HostLabels& labels,
                                  int64_t now_ns) {
  Result<int64_t> id = HostId(host, true, now_ns);
  if (!id.ok()) return id.status();
  Result<SqliteStatement*> clear = db().Prepare("DELETE FROM host_labels WHERE host_id = ?1");
  if (!clear.ok()) return clear.status();
  if (Status s = (*clear)->Bind(1, *id).Run(); !s.ok()) return s;
  for (const auto& [key, value] : labels) {
    Result<SqliteStatement*> insert =
        db().Prepare("INSERT INTO host_labels (host_id, key, value) VALUES (?1, ?2, ?3)");
    if (!insert.ok()) return insert.status();
    if (Status s = (*insert)->Bind(1, *id).Bind(2, key).Bind(3, value).Run(); !s.ok()) return s;
  }
  return Status();
}

Status Catalog::UpdateHostRow(const std::string& host, int64_t time_ns, const char* update_sql,
                              const std::function<void(SqliteStatement&)>& bind_values) {
  return Write([&]() -> Status {
    Result<int64_t> id = HostId(host, true, time_ns);
    if (!id.ok()) return id.status();
    Result<SqliteStatement*> update = db().Prepare(update_sql);
    if (!update.ok()) return update.status();
    (*update)->Bind(1, *id);
    bind_values(**update);
    return (*update)->Run();
  });
}

Status Catalog::RecordHostError(const std::string& host, const std::string& message,
                                int64_t time_ns) {
  return UpdateHostRow(host, time_ns,
                       "UPDATE hosts SET last_error = ?2, last_error_time = ?3 WHERE id = ?1",
                       [&](SqliteStatement& update) { update.Bind(2, message).Bind(3, time_ns); });
}

Status Catalog::RecordRefusal(const std::string& host, const std::string& message,
                              int64_t time_ns) {
  return UpdateHostRow(host, time_ns,
                       "UPDATE hosts SET refusals = refusals + 1, last_error = ?2,"
                       " last_error_time = ?3 WHERE id = ?1",
                       [&](SqliteStatement& update) { update.Bind(2, message).Bind(3, time_ns); });
}

Status Catalog::RecordHostPlan(const std::string& host, const std::string& revision,
                               const std::string& report, int64_t now_ns) {
  return UpdateHostRow(
      host, now_ns,
      "UPDATE hosts SET plan_revision = ?2, plan_report = ?3,"
      " plan_reported_time = ?4 WHERE id = ?1",
      [&](SqliteStatement& update) { update.Bind(2, revision).Bind(3, report).Bind(4, now_ns); });
}

Result<std::vector<HostRecord>> Catalog::ListHosts() {
  ReaderPool::Lease reader = readers_.Acquire();
  static const std::string sql = std::string(kHostColumns) + " ORDER BY name_key";
  Result<SqliteStatement*> select = reader->Prepare(sql.c_str());
  if (!select.ok()) return select.status();
  std::vector<HostRecord> hosts;
  Status read =
      (*select)->ForEachRow([&](const SqliteStatement& row) { hosts.push_back(HostFromRow(row)); });
  if (!read.ok()) return read;
  // Every host's labels in one statement, in the hosts' order.
  Result<SqliteStatement*> labels = reader->Prepare(
      "SELECT h.name_key, l.key, l.value FROM host_labels l JOIN hosts h ON h.id = l.host_id"
      " ORDER BY h.name_key");
  if (!labels.ok()) return labels.status();
  auto host = hosts.begin();
  read = (*labels)->ForEachRow([&](const SqliteStatement& row) {
    const std::string key = row.Text(0);
    while (host != hosts.end() && HostKey(host->info.name) < key) ++host;
    if (host != hosts.end() && HostKey(host->info.name) == key) {
      host->labels.emplace(row.Text(1), row.Text(2));
    }
  });
  if (!read.ok()) return read;
  return hosts;
}

Result<std::optional<HostRecord>> Catalog::FindHost(const std::string& host) {
  ReaderPool::Lease reader = readers_.Acquire();
  static const std::string sql = std::string(kHostColumns) + " WHERE name_key = ?1";
  Result<SqliteStatement*> select = reader->Prepare(sql.c_str());
  if (!select.ok()) return select.status();
  std::string key = HostKey(host);
  (*select)->Bind(1, key);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<HostRecord>();
  HostRecord record = HostFromRow(**select);
  (*select)->Reset();
  Result<SqliteStatement*> labels = reader->Prepare(
      "SELECT l.key, l.value FROM host_labels l JOIN hosts h ON h.id = l.host_id"
      " WHERE h.name_key = ?1");
  if (!labels.ok()) return labels.status();
  (*labels)->Bind(1, key);
  Status read = (*labels)->ForEachRow(
      [&](const SqliteStatement& label) { record.labels.emplace(label.Text(0), label.Text(1)); });
  if (!read.ok()) return read;
  return std::optional<HostRecord>(std::move(record));
}

Result<Sha256Digest> Catalog::PutTitleDatabase(const std::string& language,
                                               std::span<const uint8_t> counters,
                                               std::span<const uint8_t> helps) {
  Sha256Digest digest = TitleDigest(language, counters, helps);
  // Many hosts share a database: one stored already is not compressed again for nothing.
  Result<bool> stored = HasTitleDatabase(digest);
  if (!stored.ok()) return stored.status();
  if (*stored) return digest;
  // Compressed here, on the caller's thread, not on the writer's.
  const std::vector<uint8_t> counters_frame = ZstdCompress(counters, kTitleDatabaseLevel);
  const std::vector<uint8_t> helps_frame = ZstdCompress(helps, kTitleDatabaseLevel);
  Status status = Write([&]() -> Status {
    Result<SqliteStatement*> insert = db().Prepare(
        "INSERT INTO title_databases (digest, language, counters, helps, encoding)"
        " VALUES (?1, ?2, ?3, ?4, 1) ON CONFLICT (digest) DO NOTHING");
    if (!insert.ok()) return insert.status();
    return (*insert)
        ->BindBlob(1, digest)
        .Bind(2, language)
        .BindBlob(3, counters_frame)
        .BindBlob(4, helps_frame)
        .Run();
  });
  if (!status.ok()) return status;
  return digest;
}

Result<bool> Catalog::HasTitleDatabase(const Sha256Digest& digest) {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select =
      reader->Prepare("SELECT 1 FROM title_databases WHERE digest = ?1");
  if (!select.ok()) return select.status();
  (*select)->BindBlob(1, digest);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  (*select)->Reset();
  return *row;
}

Result<TitleDatabaseRecord> Catalog::GetTitleDatabase(const Sha256Digest& digest) {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT language, counters, helps, encoding FROM title_databases WHERE digest = ?1");
  if (!select.ok()) return select.status();
  (*select)->BindBlob(1, digest);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Error("no title database " + ToHex(digest));
  TitleDatabaseRecord record;
  record.digest = digest;
  record.language = (*select)->Text(0);
  std::vector<uint8_t> counters((*select)->Blob(1).begin(), (*select)->Blob(1).end());
  std::vector<uint8_t> helps((*select)->Blob(2).begin(), (*select)->Blob(2).end());
  const int64_t encoding = (*select)->Int(3);
  (*select)->Reset();
  reader.Release();
  if (encoding == 0) {
    record.counters = std::move(counters);
    record.helps = std::move(helps);
    return record;
  }
  auto data_loss = [&](const std::string& message) {
    return Status::DataLoss("store " + path() + ": title database " + ToHex(digest) + ": " +
                            message);
  };
  if (encoding != 1) return data_loss("unknown encoding " + std::to_string(encoding));
  Result<std::vector<uint8_t>> counters_raw = ZstdDecompress(counters, kMaxTitleDatabaseBytes);
  if (!counters_raw.ok()) return data_loss(counters_raw.error());
  Result<std::vector<uint8_t>> helps_raw = ZstdDecompress(helps, kMaxTitleDatabaseBytes);
  if (!helps_raw.ok()) return data_loss(helps_raw.error());
  record.counters = std::move(counters_raw).value();
  record.helps = std::move(helps_raw).value();
  if (TitleDigest(record.language, record.counters, record.helps) != digest) {
    return data_loss("its bytes do not give its digest back");
  }
  return record;
}

Status Catalog::SetTitlesInForce(const std::string& host, const std::string& language,
                                 const Sha256Digest& digest, int64_t since_ns) {
  return Write([&]() -> Status {
    Result<bool> exists = TitleDatabaseStored(digest);
    if (!exists.ok()) return exists.status();
    if (!*exists) return Status::Error("no title database " + ToHex(digest) + " to put in force");
    Result<int64_t> id = HostId(host, true, since_ns);
    if (!id.ok()) return id.status();
    return PutTitlesInForce(*id, language, digest, since_ns);
  });
}

Result<bool> Catalog::TitleDatabaseStored(const Sha256Digest& digest) {
  Result<SqliteStatement*> known = db().Prepare("SELECT 1 FROM title_databases WHERE digest = ?1");
  if (!known.ok()) return known.status();
  (*known)->BindBlob(1, digest);
  Result<bool> exists = (*known)->Step();
  (*known)->Reset();
  return exists;
}

Status Catalog::PutTitlesInForce(int64_t host_id, const std::string& language,
                                 const Sha256Digest& digest, int64_t since_ns) {
  // Nothing to record when the version in force at `since_ns` is already this one.
  Result<SqliteStatement*> current = db().Prepare(
      "SELECT digest FROM host_titles WHERE host_id = ?1 AND language = ?2 AND since <= ?3"
      " ORDER BY since DESC LIMIT 1");
  if (!current.ok()) return current.status();
  (*current)->Bind(1, host_id).Bind(2, language).Bind(3, since_ns);
  Result<bool> row = (*current)->Step();
  if (!row.ok()) return row.status();
  if (*row) {
    bool same = (*current)->Digest(0) == digest;
    (*current)->Reset();
    if (same) return Status();
  }
  Result<SqliteStatement*> insert = db().Prepare(
      "INSERT INTO host_titles (host_id, language, since, digest) VALUES (?1, ?2, ?3, ?4)"
      " ON CONFLICT (host_id, language, since) DO UPDATE SET digest = ?4");
  if (!insert.ok()) return insert.status();
  return (*insert)->Bind(1, host_id).Bind(2, language).Bind(3, since_ns).BindBlob(4, digest).Run();
}

Result<std::optional<TitleDatabaseRecord>> Catalog::TitlesInForce(const std::string& host,
                                                                  const std::string& language,
                                                                  int64_t sample_time_ns) {
  Sha256Digest digest;
  int64_t since = 0;
  {
    ReaderPool::Lease reader = readers_.Acquire();
    // The latest version at or before the sample, else the earliest.
    Result<SqliteStatement*> select = reader->Prepare(
        "SELECT t.digest, t.since FROM host_titles t JOIN hosts h ON h.id = t.host_id"
        " WHERE h.name_key = ?1 AND t.language = ?2"
        " ORDER BY (t.since <= ?3) DESC,"
        " CASE WHEN t.since <= ?3 THEN -t.since ELSE t.since END LIMIT 1");
    if (!select.ok()) return select.status();
    std::string key = HostKey(host);
    (*select)->Bind(1, key).Bind(2, language).Bind(3, sample_time_ns);
    Result<bool> row = (*select)->Step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<TitleDatabaseRecord>();
    digest = (*select)->Digest(0);
    since = (*select)->Int(1);
    (*select)->Reset();
  }
  Result<TitleDatabaseRecord> record = GetTitleDatabase(digest);
  if (!record.ok()) return record.status();
  record->since_ns = since;
  return std::optional<TitleDatabaseRecord>(std::move(*record));
}

Result<std::vector<TitleVersion>> Catalog::TitleHistory(const std::string& host,
                                                        const std::string& language) {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT t.since, t.digest FROM host_titles t JOIN hosts h ON h.id = t.host_id"
      " WHERE h.name_key = ?1 AND t.language = ?2 ORDER BY t.since");
  if (!select.ok()) return select.status();
  std::string key = HostKey(host);
  (*select)->Bind(1, key).Bind(2, language);
  std::vector<TitleVersion> history;
  for (;;) {
    Result<bool> row = (*select)->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    history.push_back({(*select)->Int(0), (*select)->Digest(1)});
  }
  return history;
}

const TitleVersion* VersionInForce(std::span<const TitleVersion> history, int64_t sample_time_ns) {
  if (history.empty()) return nullptr;
  auto after = std::upper_bound(
      history.begin(), history.end(), sample_time_ns,
      [](int64_t time, const TitleVersion& version) { return time < version.since_ns; });
  return after == history.begin() ? &history.front() : &*(after - 1);
}

const std::string& Catalog::path() const { return db().path(); }

Status Catalog::Write(std::function<Status()> write) {
  return Awaited<Status>(
      [&](std::function<void(Status)> done) { writer_.run(std::move(write), std::move(done)); });
}

Result<int64_t> Catalog::HostId(const std::string& host, bool create, int64_t now_ns) {
  std::string key = HostKey(host);
  Result<SqliteStatement*> select = db().Prepare("SELECT id FROM hosts WHERE name_key = ?1");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, key);
  Result<bool> row = (*select)->Step();
  if (!row.ok()) return row.status();
  if (*row) {
    int64_t id = (*select)->Int(0);
    (*select)->Reset();
    return id;
  }
  if (!create) return Status::Error("no host " + host);
  Result<SqliteStatement*> insert = db().Prepare(
      "INSERT INTO hosts (name, name_key, first_seen, last_seen) VALUES (?1, ?2, ?3, ?3)");
  if (!insert.ok()) return insert.status();
  if (Status s = (*insert)->Bind(1, host).Bind(2, key).Bind(3, now_ns).Run(); !s.ok()) return s;
  return db().LastInsertId();
}

}  // namespace perfhive
