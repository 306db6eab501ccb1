// Feeds arbitrary bytes to every title database parser: MULTI_SZ lists (as names and as help
// texts), lodctr /S dumps, and the content sniffing of LoadTitleDatabase. Whatever parses must
// survive the registry format: parsing what EncodeNames/EncodeHelps write gives it back.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "perfdata/lodctr_dump.h"
#include "perfdata/title_database.h"
#include "perfdata/title_database_file.h"
#include "perfdata/title_list.h"

namespace {

using perfhive::TitleDatabase;

void CheckRoundTrip(const TitleDatabase& database) {
  TitleDatabase back;
  if (database.num_names() > 0 &&
      !perfhive::ParseTitleList(database.EncodeNames(), false, back).ok()) {
    std::abort();
  }
  if (database.num_helps() > 0 &&
      !perfhive::ParseTitleList(database.EncodeHelps(), true, back).ok()) {
    std::abort();
  }
  if (!(back == database)) std::abort();
}

void CheckLookup(const TitleDatabase& database) {
  if (database.num_names() == 0) return;
  uint32_t last = database.last_name_index();
  bool found = false;
  for (uint32_t index : database.IndexesOf(*database.Name(last))) found = found || index == last;
  if (!found) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  perfhive::TitleParseReport report;
  for (bool is_help : {false, true}) {
    TitleDatabase database;
    if (perfhive::ParseTitleList(bytes, is_help, database, &report).ok()) {
      CheckRoundTrip(database);
      CheckLookup(database);
    }
  }
  perfhive::Result<perfhive::LodctrDump> dump = perfhive::ParseLodctrDump(bytes, &report);
  if (dump.ok()) {
    for (const auto& [language, database] : dump->languages) {
      CheckRoundTrip(database);
      CheckLookup(database);
    }
  }
  perfhive::Result<TitleDatabase> loaded = perfhive::LoadTitleDatabase(bytes, &report);
  if (loaded.ok()) CheckLookup(*loaded);
  return 0;
}
