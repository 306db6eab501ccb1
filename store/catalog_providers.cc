// Catalog: the performance counter providers hosts' agents report disabled (docs/store_format.md,
// "Disabled providers"), read for the fleet's counter health.

#include <map>
#include <string>
#include <vector>

#include "perfdata/index_list.h"
#include "store/catalog.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {

Status Catalog::RecordDisabledProviders(const std::string& host,
                                        const std::vector<DisabledProvider>& disabled,
                                        int64_t now_ns) {
  return Write([&]() -> Status {
    Result<int64_t> id = HostId(host, true, now_ns);
    if (!id.ok()) return id.status();
    // What was disabled before, and since when: a provider still disabled keeps its time.
    std::map<std::string, int64_t> since;
    Result<SqliteStatement*> before =
        db().Prepare("SELECT service, since FROM disabled_providers WHERE host_id = ?1");
    if (!before.ok()) return before.status();
    (*before)->Bind(1, *id);
    Status read = (*before)->ForEachRow(
        [&](const SqliteStatement& row) { since.emplace(row.Text(0), row.Int(1)); });
    if (!read.ok()) return read;
    Result<SqliteStatement*> clear =
        db().Prepare("DELETE FROM disabled_providers WHERE host_id = ?1");
    if (!clear.ok()) return clear.status();
    if (Status s = (*clear)->Bind(1, *id).Run(); !s.ok()) return s;
    for (const DisabledProvider& provider : disabled) {
      Result<SqliteStatement*> insert = db().Prepare(
          "INSERT OR REPLACE INTO disabled_providers"
          " (host_id, service, disable_value, library, object_indexes, since)"
          " VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
      if (!insert.ok()) return insert.status();
      auto known = since.find(provider.service);
      // Bound, not copied: the text must outlive Run().
      const std::string objects = FormatIndexList(provider.object_indexes);
      (*insert)
          ->Bind(1, *id)
          .Bind(2, provider.service)
          .Bind(3, static_cast<int64_t>(provider.disable_value))
          .Bind(4, provider.library)
          .Bind(5, objects)
          .Bind(6, known != since.end() ? known->second : now_ns);
      if (Status s = (*insert)->Run(); !s.ok()) return s;
    }
    return Status();
  });
}

Result<std::map<std::string, std::vector<query::DisabledProviderSince>>>
Catalog::DisabledProviders() {
  ReaderPool::Lease reader = readers_.Acquire();
  Result<SqliteStatement*> select = reader->Prepare(
      "SELECT h.name, p.service, p.disable_value, p.library, p.object_indexes, p.since"
      " FROM disabled_providers p JOIN hosts h ON h.id = p.host_id ORDER BY h.name_key, p.service");
  if (!select.ok()) return select.status();
  std::map<std::string, std::vector<query::DisabledProviderSince>> hosts;
  Status read = (*select)->ForEachRow([&](const SqliteStatement& row) {
    hosts[row.Text(0)].push_back(
        {.provider = {.service = row.Text(1),
                      .disable_value = static_cast<uint32_t>(row.Int(2)),
                      .library = row.Text(3),
                      .object_indexes =
                          ParseIndexList(row.Text(4)).value_or(std::vector<uint32_t>{})},
         .since_ns = row.Int(5)});
  });
  if (!read.ok()) return read;
  return hosts;
}

}  // namespace perfhive
