// The text dump `lodctr /S` writes of a host's title database (UTF-16LE with or without BOM, or
// an 8-bit code page): its numbers, its extensible providers, and a TitleDatabase per language.
// docs/title_database.md describes the format and what the parser tolerates.

#ifndef PERFHIVE_PERFDATA_LODCTR_DUMP_H_
#define PERFHIVE_PERFDATA_LODCTR_DUMP_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "perfdata/title_database.h"
#include "perfdata/title_parse_report.h"

namespace perfhive {

// A parsed `lodctr /S` dump: [Perflib] numbers, one [PERF_<service>] section per extensible
// provider, and a title database per [PerfStrings_<lang>] section (lang as written, e.g. "009").
// In a strings section odd indexes are help texts and even ones names, but index 1 (the count)
// is a name, as in the "Counter" list.
struct LodctrDump {
  struct Provider {
    std::string service;
    uint32_t first_counter = 0, first_help = 0, last_counter = 0, last_help = 0;
  };
  uint32_t base_index = 0;
  uint32_t last_counter = 0;
  uint32_t last_help = 0;
  std::vector<Provider> providers;
  std::map<std::string, TitleDatabase> languages;
};

// Lines that are not `key=value`, non-numeric indexes or numbers, and repeated indexes are
// skipped with a warning; input without a [PerfStrings_<lang>] section holding an entry is an
// error.
Result<LodctrDump> ParseLodctrDump(std::span<const uint8_t> bytes,
                                   TitleParseReport* report = nullptr);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_LODCTR_DUMP_H_
