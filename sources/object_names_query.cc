#include "sources/object_names_query.h"

#include <charconv>
#include <set>

#include "perfdata/title_database.h"
#include "perfdata/title_list.h"

namespace perfhive {

Result<std::string> QueryForObjectNames(const TitleBytes& titles,
                                        std::span<const std::string> objects) {
  if (objects.empty()) return Status::Error("no objects asked for");
  TitleDatabase database;
  if (Status status = ParseTitleList(titles.counters, false, database); !status.ok()) {
    return Status::Error("the host's title database is unusable: " + status.message());
  }
  std::set<uint32_t> indexes;
  for (const std::string& object : objects) {
    uint32_t index = 0;
    const char* end = object.data() + object.size();
    if (auto [ptr, ec] = std::from_chars(object.data(), end, index);
        !object.empty() && ec == std::errc() && ptr == end) {
      indexes.insert(index);
      continue;
    }
    std::vector<uint32_t> named = database.IndexesOf(object);
    if (named.empty()) {
      return Status::Error("no object named \"" + object + "\" in the host's title database (" +
                           titles.language + ")");
    }
    indexes.insert(named.begin(), named.end());
  }
  std::string query;
  for (uint32_t index : indexes) {
    if (!query.empty()) query += ' ';
    query += std::to_string(index);
  }
  return query;
}

}  // namespace perfhive
