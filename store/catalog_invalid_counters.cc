// Catalog: the runs of hosts' counters without a valid value (docs/store_format.md, "Invalid
// counters"): started, written and ended by the writer as pairs are appended, read for the fleet's
// counter health.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "store/catalog.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {

Status Catalog::RecordInvalidCounters(int64_t host_id, const std::string& query,
                                      int64_t sample_time_ns,
                                      const std::vector<InvalidCounter>& invalid) {
  StreamInvalidRuns& stream = invalid_runs_[{host_id, query}];
  if (!stream.loaded) {
    Result<SqliteStatement*> select = db().Prepare(
        "SELECT object_index, counter_index, status, since FROM invalid_counters"
        " WHERE host_id = ?1 AND query = ?2");
    if (!select.ok()) return select.status();
    (*select)->Bind(1, host_id).Bind(2, query);
    Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
      stream.runs[{static_cast<uint32_t>(row.Int(0)), static_cast<uint32_t>(row.Int(1))}] =
          InvalidRun{row.Int(3), static_cast<PdhStatus>(row.Int(2)), true};
    });
    if (!read.ok()) return read;
    stream.loaded = true;
  }
  // A pair older than the newest checked (a spool sent after newer samples) is not part of the
  // runs, which go forward in time only.
  if (sample_time_ns <= stream.newest_ns) return Status();
  stream.newest_ns = sample_time_ns;

  std::map<std::pair<uint32_t, uint32_t>, PdhStatus> now;
  for (const InvalidCounter& counter : invalid) {
    now.emplace(std::pair{counter.object_index, counter.counter_index}, counter.status);
  }
  for (auto run = stream.runs.begin(); run != stream.runs.end();) {
    if (now.contains(run->first)) {
      ++run;
      continue;
    }
    if (run->second.written) {
      Result<SqliteStatement*> erase = db().Prepare(
          "DELETE FROM invalid_counters"
          " WHERE host_id = ?1 AND query = ?2 AND object_index = ?3 AND counter_index = ?4");
      if (!erase.ok()) return erase.status();
      (*erase)
          ->Bind(1, host_id)
          .Bind(2, query)
          .Bind(3, int64_t{run->first.first})
          .Bind(4, int64_t{run->first.second});
      if (Status s = (*erase)->Run(); !s.ok()) return s;
    }
    run = stream.runs.erase(run);
  }
  for (const auto& [key, status] : now) {
    auto [run, started] = stream.runs.try_emplace(key, InvalidRun{sample_time_ns, status, false});
    if (started || run->second.written) continue;
    // The run's second pair: a fault rather than a reset, worth a row.
    Result<SqliteStatement*> insert = db().Prepare(
        "INSERT OR REPLACE INTO invalid_counters"
        " (host_id, query, object_index, counter_index, status, since)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!insert.ok()) return insert.status();
    (*insert)
        ->Bind(1, host_id)
        .Bind(2, query)
        .Bind(3, int64_t{key.first})
        .Bind(4, int64_t{key.second})
        .Bind(5, static_cast<int64_t>(run->second.status))
        .Bind(6, run->second.since_ns);
    if (Status s = (*insert)->Run(); !s.ok()) return s;
    run->second.written = true;
  }
  return Status();
}

Result<std::map<std::string, std::vector<query::InvalidCounterRun>>> Catalog::InvalidCounterRuns() {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT h.name, i.query, i.object_index, i.counter_index, i.status, i.since"
      " FROM invalid_counters i JOIN hosts h ON h.id = i.host_id"
      " ORDER BY h.name, i.query, i.object_index, i.counter_index");
  if (!select.ok()) return select.status();
  std::map<std::string, std::vector<query::InvalidCounterRun>> hosts;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    hosts[row.Text(0)].push_back(
        {.query = row.Text(1),
         .counter = {static_cast<uint32_t>(row.Int(2)), static_cast<uint32_t>(row.Int(3)),
                     static_cast<PdhStatus>(row.Int(4))},
         .since_ns = row.Int(5)});
  });
  if (!read.ok()) return read;
  return hosts;
}

}  // namespace perfhive
