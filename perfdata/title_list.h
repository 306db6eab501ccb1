// The REG_MULTI_SZ "Counter"/"Help" lists the registry returns for a title database: parsed into
// a TitleDatabase, and written back from one (TitleDatabase::EncodeNames/EncodeHelps).
// docs/title_database.md describes the format and what the parser tolerates.

#ifndef PERFHIVE_PERFDATA_TITLE_LIST_H_
#define PERFHIVE_PERFDATA_TITLE_LIST_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "perfdata/title_parse_report.h"

namespace perfhive {

class TitleDatabase;

// Parses a "Counter"/"Help" MULTI_SZ list into the names (is_help false) or the help texts of
// `database`; "Explain 009" and Samba's REG_BINARY replies are the same format. The list is
// read as UTF-16LE, as RegQueryValueExW returns it; if that yields no index/text pair and the
// bytes do not look like UTF-16LE, as 8-bit text from the ANSI calls (UTF-8 where it is valid
// UTF-8, else Windows-1252); a leading byte order mark is skipped. Non-numeric indexes and an index
// without a text are skipped, a missing final empty string and trailing bytes tolerated, each with
// a warning; a list with no usable pair at all is an error.
Status ParseTitleList(std::span<const uint8_t> bytes, bool is_help, TitleDatabase& database,
                      TitleParseReport* report = nullptr);

// The MULTI_SZ bytes RegQueryValueExW returns for `entries`: UTF-16LE "index\0text\0" pairs in
// increasing index order, ending with an empty string. Empty texts are left out (one would end
// the list).
std::vector<uint8_t> EncodeTitleList(const std::map<uint32_t, std::string>& entries);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_LIST_H_
