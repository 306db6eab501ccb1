// TitleDatabase: one host's performance title database in one language, the index → name and
// index → help text tables that "Counter 009" / "Help 009" hold. Names repeat (hundreds of
// names map to more than one index on a real host), so a name looks up to every index that
// carries it; callers narrow by scope (the counters an object actually defines).
//
// Parsers for the forms a title database arrives in: the REG_MULTI_SZ lists the registry
// returns (UTF-16LE, or 8-bit from the ANSI calls), and the text dump `lodctr /S` writes
// (UTF-16LE with BOM or an 8-bit code page), which can hold several languages.

#ifndef PERFHIVE_PERFDATA_TITLE_DATABASE_H_
#define PERFHIVE_PERFDATA_TITLE_DATABASE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/status.h"

namespace perfhive {

class TitleDatabase {
 public:
  // Index → text entries; even indexes are names, odd ones help texts, as Windows numbers them.
  void AddName(uint32_t index, std::string name);
  void AddHelp(uint32_t index, std::string help);

  std::optional<std::string_view> Name(uint32_t index) const;
  std::optional<std::string_view> Help(uint32_t index) const;
  // Every index whose name equals `name`, ignoring case as PDH does, in increasing order.
  std::vector<uint32_t> IndexesOf(std::string_view name) const;

  // The largest index with a name (the "Last Counter" the database implies).
  uint32_t last_name_index() const;
  size_t num_names() const;
  size_t num_helps() const;

  // The MULTI_SZ bytes RegQueryValueExW returns for "Counter <lang>" (UTF-16LE "index\0name\0"
  // pairs, in increasing index order, ending with an empty string), and likewise for "Help".
  std::vector<uint8_t> EncodeNames() const;
  std::vector<uint8_t> EncodeHelps() const;

 private:
  std::map<uint32_t, std::string> names_;
  std::map<uint32_t, std::string> helps_;
  std::unordered_map<std::string, std::vector<uint32_t>> indexes_by_folded_name_;
};

// What a parser kept and what it skipped: junk is reported, the rest is kept.
struct TitleParseReport {
  std::vector<std::string> warnings;  // each names the entry and its byte offset
};

// Parses a "Counter"/"Help" MULTI_SZ list (UTF-16LE, or 8-bit Latin-1 / UTF-8, told apart by
// content) into `names` (is_help false) or helps of `database`. Pairs with a non-numeric index,
// a missing text or odd trailing data are skipped with a warning; a list with no usable pair
// at all is an error.
Status ParseTitleList(std::span<const uint8_t> bytes, bool is_help, TitleDatabase& database,
                      TitleParseReport* report = nullptr);

// A parsed `lodctr /S` dump: [Perflib] numbers, one [PERF_<service>] section per extensible
// provider, and a title database per [PerfStrings_<lang>] section (lang as written, e.g. "009").
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

Result<LodctrDump> ParseLodctrDump(std::span<const uint8_t> bytes,
                                   TitleParseReport* report = nullptr);

// For `--titles FILE`: the English ("009") database from either a `lodctr /S` dump or the raw
// bytes "Counter 009" returns, told apart by content. If the dump has no "009" section, its
// first language.
Result<TitleDatabase> LoadTitleDatabase(std::span<const uint8_t> bytes,
                                        TitleParseReport* report = nullptr);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_DATABASE_H_
