// Catalog: how far each exporter has delivered each host (docs/store_format.md, export_positions).

#include "store/catalog.h"
#include "store/host_key.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {

Status Catalog::SetExportPositions(const std::string& receiver,
                                   const std::vector<ExportPosition>& positions) {
  if (positions.empty()) return Status();
  return Write([&]() -> Status {
    Result<SqliteStatement*> upsert = db().Prepare(
        "INSERT INTO export_positions (receiver, host_id, sample_time)"
        " SELECT ?1, id, ?3 FROM hosts WHERE name_key = ?2"
        " ON CONFLICT (receiver, host_id) DO UPDATE SET sample_time = MAX(sample_time, ?3)");
    if (!upsert.ok()) return upsert.status();
    for (const ExportPosition& position : positions) {
      std::string key = HostKey(position.host);
      Status status =
          (*upsert)->Bind(1, receiver).Bind(2, key).Bind(3, position.sample_time_ns).Run();
      if (!status.ok()) return status;
    }
    return Status();
  });
}

Result<std::vector<ExportPosition>> Catalog::ExportPositions(const std::string& receiver) {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT h.name, p.sample_time FROM export_positions p JOIN hosts h ON h.id = p.host_id"
      " WHERE p.receiver = ?1 ORDER BY h.name_key");
  if (!select.ok()) return select.status();
  (*select)->Bind(1, receiver);
  std::vector<ExportPosition> positions;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    positions.push_back({row.Text(0), row.Int(1)});
  });
  if (!read.ok()) return read;
  return positions;
}

}  // namespace perfhive
