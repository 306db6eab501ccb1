// Catalog: how long each host's source took to return each object alone (docs/store_format.md,
// "Object timings"), as its agent last reported it, read for the fleet's counter health.

#include <map>
#include <string>

#include "store/catalog.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {

Status Catalog::RecordObjectTimings(const std::string& host, const query::ObjectTimings& timings,
                                    int64_t now_ns) {
  return Write([&]() -> Status {
    Result<int64_t> id = HostId(host, true, now_ns);
    if (!id.ok()) return id.status();
    Result<SqliteStatement*> sweep = db().Prepare(
        "INSERT OR REPLACE INTO object_sweeps (host_id, measured, interval, received)"
        " VALUES (?1, ?2, ?3, ?4)");
    if (!sweep.ok()) return sweep.status();
    (*sweep)
        ->Bind(1, *id)
        .Bind(2, timings.measured_ns)
        .Bind(3, timings.interval_ns)
        .Bind(4, now_ns);
    if (Status s = (*sweep)->Run(); !s.ok()) return s;
    Result<SqliteStatement*> clear = db().Prepare("DELETE FROM object_timings WHERE host_id = ?1");
    if (!clear.ok()) return clear.status();
    if (Status s = (*clear)->Bind(1, *id).Run(); !s.ok()) return s;
    for (const query::ObjectTiming& object : timings.objects) {
      Result<SqliteStatement*> insert = db().Prepare(
          "INSERT OR REPLACE INTO object_timings (host_id, object_index, nanos, bytes, error)"
          " VALUES (?1, ?2, ?3, ?4, ?5)");
      if (!insert.ok()) return insert.status();
      (*insert)
          ->Bind(1, *id)
          .Bind(2, int64_t{object.object_index})
          .Bind(3, object.nanos)
          .Bind(4, static_cast<int64_t>(object.bytes))
          .Bind(5, object.error);
      if (Status s = (*insert)->Run(); !s.ok()) return s;
    }
    return Status();
  });
}

Result<std::map<std::string, query::ObjectTimings>> Catalog::ObjectTimings() {
  ReaderPool::Lease reader = readers_.Acquire();
  std::map<std::string, query::ObjectTimings> hosts;
  Result<SqliteStatement*> sweeps = reader->Prepare(
      "SELECT h.name, s.measured, s.interval FROM object_sweeps s JOIN hosts h ON h.id = "
      "s.host_id");
  if (!sweeps.ok()) return sweeps.status();
  Status read = (*sweeps)->ForEachRow([&](const SqliteStatement& row) {
    query::ObjectTimings& timings = hosts[row.Text(0)];
    timings.measured_ns = row.Int(1);
    timings.interval_ns = row.Int(2);
  });
  if (!read.ok()) return read;
  Result<SqliteStatement*> objects = reader->Prepare(
      "SELECT h.name, t.object_index, t.nanos, t.bytes, t.error"
      " FROM object_timings t JOIN hosts h ON h.id = t.host_id"
      " ORDER BY h.name, t.object_index");
  if (!objects.ok()) return objects.status();
  read = (*objects)->ForEachRow([&](const SqliteStatement& row) {
    auto host = hosts.find(row.Text(0));
    if (host == hosts.end()) return;
    host->second.objects.push_back({.object_index = static_cast<uint32_t>(row.Int(1)),
                                    .nanos = row.Int(2),
                                    .bytes = static_cast<uint64_t>(row.Int(3)),
                                    .error = row.Text(4)});
  });
  if (!read.ok()) return read;
  return hosts;
}

}  // namespace perfhive
