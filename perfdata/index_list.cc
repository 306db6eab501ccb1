#include "perfdata/index_list.h"

#include <charconv>

namespace perfhive {

std::optional<std::vector<uint32_t>> ParseIndexList(std::string_view text) {
  std::vector<uint32_t> indexes;
  const char* at = text.data();
  const char* const end = at + text.size();
  while (at < end) {
    if (*at == ' ') {
      ++at;
      continue;
    }
    uint32_t index = 0;
    auto [next, error] = std::from_chars(at, end, index);
    if (error != std::errc() || (next != end && *next != ' ')) return std::nullopt;
    indexes.push_back(index);
    at = next;
  }
  return indexes;
}

std::string FormatIndexList(const std::vector<uint32_t>& indexes) {
  std::string text;
  for (uint32_t index : indexes) text += (text.empty() ? "" : " ") + std::to_string(index);
  return text;
}

}  // namespace perfhive
