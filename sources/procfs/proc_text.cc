#include "sources/procfs/proc_text.h"

#include <charconv>

namespace perfhive {

std::string_view NextLine(std::string_view& text) {
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

std::string_view NextField(std::string_view& line) {
  // A plain loop: find_first_of(" \t") calls memchr once per character, which showed in
  // profiles of a snapshot.
  auto is_blank = [](char c) { return c == ' ' || c == '\t'; };
  size_t start = 0;
  while (start < line.size() && is_blank(line[start])) ++start;
  size_t end = start;
  while (end < line.size() && !is_blank(line[end])) ++end;
  std::string_view field = line.substr(start, end - start);
  line.remove_prefix(end);
  return field;
}

std::optional<uint64_t> ParseU64(std::string_view field) {
  uint64_t value = 0;
  const char* end = field.data() + field.size();
  auto [ptr, error] = std::from_chars(field.data(), end, value);
  if (field.empty() || error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<uint64_t> NextU64(std::string_view& line, uint64_t missing) {
  std::string_view field = NextField(line);
  if (field.empty()) return missing;
  return ParseU64(field);
}

std::optional<uint64_t> FindKeyedValue(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    std::string_view line = NextLine(text);
    std::string_view name = NextField(line);
    if (name.ends_with(':')) name.remove_suffix(1);
    if (name == key) return ParseU64(NextField(line));
  }
  return std::nullopt;
}

}  // namespace perfhive
