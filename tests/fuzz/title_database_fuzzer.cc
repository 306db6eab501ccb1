// Feeds arbitrary bytes to every title database parser: MULTI_SZ lists (as names and as help),
// lodctr /S dumps, and the content sniffing of LoadTitleDatabase.

#include <cstddef>
#include <cstdint>
#include <span>

#include "perfdata/title_database.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  perfhive::TitleDatabase names;
  perfhive::TitleParseReport report;
  (void)perfhive::ParseTitleList(bytes, false, names, &report);
  (void)perfhive::ParseTitleList(bytes, true, names, &report);
  if (names.num_names() > 0) (void)names.IndexesOf(*names.Name(names.last_name_index()));
  (void)names.EncodeNames();
  (void)perfhive::ParseLodctrDump(bytes, &report);
  (void)perfhive::LoadTitleDatabase(bytes, &report);
  return 0;
}
