// TitleDatabase: one host's performance title database in one language, the index → name and
// index → help text tables that "Counter 009" / "Help 009" hold. Names repeat (hundreds of
// names map to more than one index on a real host), so a name looks up to every index that
// carries it; callers narrow by scope (the counters an object actually defines).
//
// The forms it arrives in have their own files: title_list.h (the registry's MULTI_SZ lists,
// which EncodeNames/EncodeHelps write), lodctr_dump.h (`lodctr /S`), title_database_file.h
// (either, told apart by content).

#ifndef PERFHIVE_PERFDATA_TITLE_DATABASE_H_
#define PERFHIVE_PERFDATA_TITLE_DATABASE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perfdata/case_folding.h"

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

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_DATABASE_H_
