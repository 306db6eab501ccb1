// TitleDatabase: one host's performance title database in one language, the index → name and
// index → help text tables that "Counter 009" / "Help 009" hold. Names repeat (hundreds of
// names map to more than one index on a real host), so a name looks up to every index that
// carries it; callers narrow by scope (the counters an object actually defines).
//
// Parsers for the forms a title database arrives in: the REG_MULTI_SZ lists the registry
// returns (UTF-16LE, or 8-bit from the ANSI calls), and the text dump `lodctr /S` writes
// (UTF-16LE with or without BOM, or an 8-bit code page), which can hold several languages.
// docs/title_database.md describes the formats and what the parsers tolerate.

#ifndef PERFHIVE_PERFDATA_TITLE_DATABASE_H_
#define PERFHIVE_PERFDATA_TITLE_DATABASE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/case_folding.h"
#include "perfdata/status.h"

namespace perfhive {

class TitleDatabase {
 public:
  // Index → text entries (UTF-8); even indexes are names, odd ones help texts, as Windows
  // numbers them, but any index may be either. Adding at an index that has a text replaces it.
  // Index 1 of the "Counter" list holds the count (the Base Index, "1847"), and is kept as a
  // name like any other, as Windows returns it.
  void AddName(uint32_t index, std::string name);
  void AddHelp(uint32_t index, std::string help);

  std::optional<std::string_view> Name(uint32_t index) const;
  std::optional<std::string_view> Help(uint32_t index) const;
  // Every index whose name equals `name`, ignoring case as Windows does in every script
  // (perfdata/case_folding.h: "ПРОЦЕССОР" finds "Процессор"), in increasing order.
  std::vector<uint32_t> IndexesOf(std::string_view name) const;

  // The largest index with a name (the "Last Counter" the database implies).
  uint32_t last_name_index() const;
  size_t num_names() const;
  size_t num_helps() const;

  // The MULTI_SZ bytes RegQueryValueExW returns for "Counter <lang>" (UTF-16LE "index\0name\0"
  // pairs, in increasing index order, ending with an empty string), and likewise for "Help".
  // An empty text cannot be written (it would end the list): such entries are left out.
  std::vector<uint8_t> EncodeNames() const;
  std::vector<uint8_t> EncodeHelps() const;

  // Same names and help texts at the same indexes.
  bool operator==(const TitleDatabase& other) const {
    return names_ == other.names_ && helps_ == other.helps_;
  }

 private:
  std::map<uint32_t, std::string> names_;
  std::map<uint32_t, std::string> helps_;
  // Name → the indexes carrying it, keys compared and hashed ignoring case (the key is the first
  // spelling added), so lookups need no folded copy; always in step with names_. A set, not a
  // sorted vector: adding or renaming in any order stays O(log n), even for a hostile list of
  // one name at 200,000 indexes in decreasing order.
  std::unordered_map<std::string, std::set<uint32_t>, NameHashIgnoringCase, NameEqualIgnoringCase>
      indexes_by_name_;
};

// What a parser skipped: junk is reported, the rest is kept. Each warning names where the junk
// is: "entry 5 at byte 21: ..." in a list (the entry is the string's position in the list,
// from 0), "line 7 at byte 130: ..." in a dump (lines from 1; bytes from 0, in the input as
// given, byte order mark included).
struct TitleParseReport {
  std::vector<std::string> warnings;
};

// Parses a "Counter"/"Help" MULTI_SZ list into the names (is_help false) or the help texts of
// `database`; "Explain 009" and Samba's REG_BINARY replies are the same format. The list is
// read as UTF-16LE, as RegQueryValueExW returns it; if that yields no index/text pair and the
// bytes do not look like UTF-16LE, as 8-bit text from the ANSI calls (UTF-8 where it is valid
// UTF-8, else Windows-1252); a leading byte order mark is skipped. Non-numeric indexes and an index
// without a text are skipped, a missing final empty string and trailing bytes tolerated, each with
// a warning; a list with no usable pair at all is an error.
Status ParseTitleList(std::span<const uint8_t> bytes, bool is_help, TitleDatabase& database,
                      TitleParseReport* report = nullptr);

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

// For `--titles FILE`: the English ("009") database from either a `lodctr /S` dump (the bytes
// hold "[Perflib]" or "[PerfStrings_" in UTF-16LE or 8-bit) or the raw bytes "Counter 009"
// returns. If the dump has no "009" section, its first language in code order.
Result<TitleDatabase> LoadTitleDatabase(std::span<const uint8_t> bytes,
                                        TitleParseReport* report = nullptr);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_DATABASE_H_
