// Catalog: instances that went and came back (docs/store_format.md, "Instance gaps"): written with
// the snapshot that closed the gap, read for the fleet's counter health.

#include <map>
#include <string>
#include <vector>

#include "store/catalog.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {

Status Catalog::RecordInstanceGaps(int64_t host_id, const std::string& query,
                                   const std::vector<InstanceGap>& gaps) {
  for (const InstanceGap& gap : gaps) {
    // A snapshot sent again closes the same gap again: the row is there already.
    Result<SqliteStatement*> insert = db().Prepare(
        "INSERT OR IGNORE INTO instance_gaps (host_id, query, object_index, instance, gone, back)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!insert.ok()) return insert.status();
    (*insert)
        ->Bind(1, host_id)
        .Bind(2, query)
        .Bind(3, int64_t{gap.object_index})
        .Bind(4, gap.instance)
        .Bind(5, gap.gone_ns)
        .Bind(6, gap.back_ns);
    if (Status s = (*insert)->Run(); !s.ok()) return s;
  }
  return Status();
}

Result<std::map<std::string, std::vector<InstanceGap>>> Catalog::InstanceGaps(int64_t at_ns) {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT h.name, g.object_index, g.instance, g.gone, g.back"
      " FROM instance_gaps g JOIN hosts h ON h.id = g.host_id WHERE g.back <= ?1"
      " ORDER BY h.name, g.gone, g.object_index, g.instance");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, at_ns);
  std::map<std::string, std::vector<InstanceGap>> hosts;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    hosts[row.Text(0)].push_back({.object_index = static_cast<uint32_t>(row.Int(1)),
                                  .instance = row.Text(2),
                                  .gone_ns = row.Int(3),
                                  .back_ns = row.Int(4)});
  });
  if (!read.ok()) return read;
  return hosts;
}

}  // namespace perfhive
