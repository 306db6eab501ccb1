#include "perfdata/title_database_file.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfdata/lodctr_dump.h"
#include "perfdata/text_encoding.h"
#include "perfdata/title_list.h"

namespace perfhive {
namespace {

// `needle` appears in the bytes as 8-bit or as UTF-16LE text.
bool Contains(std::span<const uint8_t> bytes, std::string_view needle) {
  std::string_view haystack(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (haystack.find(needle) != std::string_view::npos) return true;
  std::vector<uint8_t> wide = Utf8ToUtf16Le(needle);
  return haystack.find(std::string_view(reinterpret_cast<const char*>(wide.data()), wide.size())) !=
         std::string_view::npos;
}

}  // namespace

Result<TitleDatabase> LoadTitleDatabase(std::span<const uint8_t> bytes, TitleParseReport* report) {
  if (Contains(bytes, "[Perflib]") || Contains(bytes, "[PerfStrings_")) {
    Result<LodctrDump> dump = ParseLodctrDump(bytes, report);
    if (!dump.ok()) return dump.status();
    auto chosen = dump->languages.find("009");
    if (chosen == dump->languages.end()) chosen = dump->languages.begin();
    if (chosen->second.num_names() == 0) {
      return Status::Error("the dump's [PerfStrings_" + chosen->first + "] section has no names");
    }
    return std::move(chosen->second);
  }
  TitleDatabase database;
  if (Status status = ParseTitleList(bytes, false, database, report); !status.ok()) {
    return Status::Error("neither a lodctr /S dump nor a \"Counter\" list: " + status.message());
  }
  return database;
}

}  // namespace perfhive
