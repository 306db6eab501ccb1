// Catalog: what hosts' agents report they lost of their data (docs/store_format.md, "Collection
// losses"), read for the fleet's counter health.

#include <map>
#include <string>

#include "store/catalog.h"
#include "store/reader_pool.h"
#include "store/sqlite.h"

namespace perfhive {
namespace {

// The counts in the table's column order, from agent_started on.
constexpr char kLossColumns[] =
    "agent_started, skipped_ticks, failed_reads, dropped, refused, unreadable, unspoolable, grew";

query::CollectionLosses LossesFromRow(const SqliteStatement& row, int first) {
  auto count = [&](int column) { return static_cast<uint64_t>(row.Int(first + column)); };
  return {.agent_started_ns = row.Int(first),
          .skipped_ticks = count(1),
          .failed_reads = count(2),
          .dropped = count(3),
          .refused = count(4),
          .unreadable = count(5),
          .unspoolable = count(6),
          .grew_ns = row.Int(first + 7)};
}

bool AnyGrew(const query::CollectionLosses& before, const query::CollectionLosses& now) {
  return now.skipped_ticks > before.skipped_ticks || now.failed_reads > before.failed_reads ||
         now.dropped > before.dropped || now.refused > before.refused ||
         now.unreadable > before.unreadable || now.unspoolable > before.unspoolable;
}

}  // namespace

Status Catalog::RecordCollectionLosses(const std::string& host, query::CollectionLosses losses,
                                       int64_t now_ns) {
  return Write([&]() -> Status {
    Result<int64_t> id = HostId(host, true, now_ns);
    if (!id.ok()) return id.status();
    // Statements are cached by their text's address: the texts are static.
    static const std::string select_sql =
        std::string("SELECT ") + kLossColumns + " FROM collection_losses WHERE host_id = ?1";
    Result<SqliteStatement*> before = db().Prepare(select_sql.c_str());
    if (!before.ok()) return before.status();
    (*before)->Bind(1, *id);
    Result<bool> found = (*before)->Step();
    if (!found.ok()) return found.status();
    query::CollectionLosses last = *found ? LossesFromRow(**before, 0) : query::CollectionLosses{};
    (*before)->Reset();
    // Another start (or none before) counts from 0.
    if (last.agent_started_ns != losses.agent_started_ns) last = {.grew_ns = last.grew_ns};
    losses.grew_ns = AnyGrew(last, losses) ? now_ns : last.grew_ns;
    static const std::string write_sql =
        std::string("INSERT OR REPLACE INTO collection_losses (host_id, ") + kLossColumns +
        ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    Result<SqliteStatement*> write = db().Prepare(write_sql.c_str());
    if (!write.ok()) return write.status();
    (*write)
        ->Bind(1, *id)
        .Bind(2, losses.agent_started_ns)
        .Bind(3, static_cast<int64_t>(losses.skipped_ticks))
        .Bind(4, static_cast<int64_t>(losses.failed_reads))
        .Bind(5, static_cast<int64_t>(losses.dropped))
        .Bind(6, static_cast<int64_t>(losses.refused))
        .Bind(7, static_cast<int64_t>(losses.unreadable))
        .Bind(8, static_cast<int64_t>(losses.unspoolable))
        .Bind(9, losses.grew_ns);
    return (*write)->Run();
  });
}

Result<std::map<std::string, query::CollectionLosses>> Catalog::CollectionLosses() {
  ReaderPool::Lease reader = readers_.Acquire();
  static const std::string sql = std::string("SELECT h.name, ") + kLossColumns +
                                 " FROM collection_losses l JOIN hosts h ON h.id = l.host_id";
  Result<SqliteStatement*> select = reader->Prepare(sql.c_str());
  if (!select.ok()) return select.status();
  std::map<std::string, query::CollectionLosses> hosts;
  Status read = (*select)->ForEachRow(
      [&](const SqliteStatement& row) { hosts.emplace(row.Text(0), LossesFromRow(row, 1)); });
  if (!read.ok()) return read;
  return hosts;
}

}  // namespace perfhive
