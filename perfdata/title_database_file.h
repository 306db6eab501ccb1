// A title database from a file of either form a person has at hand (`perfhive decode --titles
// FILE`): a `lodctr /S` dump or the raw "Counter 009" list, told apart by content.

#ifndef PERFHIVE_PERFDATA_TITLE_DATABASE_FILE_H_
#define PERFHIVE_PERFDATA_TITLE_DATABASE_FILE_H_

#include <cstdint>
#include <span>

#include "base/status.h"
#include "perfdata/title_database.h"
#include "perfdata/title_parse_report.h"

namespace perfhive {

// The English ("009") database from either a `lodctr /S` dump (the bytes hold "[Perflib]" or
// "[PerfStrings_" in UTF-16LE or 8-bit) or the raw bytes "Counter 009" returns. If the dump has
// no "009" section, its first language in code order.
Result<TitleDatabase> LoadTitleDatabase(std::span<const uint8_t> bytes,
                                        TitleParseReport* report = nullptr);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_DATABASE_FILE_H_
