#include "perfdata/title_database.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "perfdata/byte_order.h"
#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

// Folds case as PDH compares names: ASCII and the Latin-1 letters (À..Þ → à..þ, but not ×).
std::string FoldCase(std::string_view text) {
  std::string folded;
  folded.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 'A' && c <= 'Z') {
      folded.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (c == 0xC3 && i + 1 < text.size()) {
      // UTF-8 for U+00C0..U+00FF is C3 80..C3 BF; upper case letters are C3 80..C3 9E.
      unsigned char next = static_cast<unsigned char>(text[i + 1]);
      folded.push_back(static_cast<char>(c));
      folded.push_back(
          static_cast<char>(next >= 0x80 && next <= 0x9E && next != 0x97 ? next + 0x20 : next));
      ++i;
    } else {
      folded.push_back(static_cast<char>(c));
    }
  }
  return folded;
}

std::optional<uint32_t> ParseIndex(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

void Warn(TitleParseReport* report, std::string message) {
  if (report) report->warnings.push_back(std::move(message));
}

// A string of a MULTI_SZ list, with the byte offset where it starts.
struct ListString {
  std::string text;
  size_t offset;
};

// Looks like UTF-16LE: most odd bytes of the first characters are zero.
bool LooksLikeUtf16(std::span<const uint8_t> bytes) {
  size_t pairs = std::min<size_t>(bytes.size() / 2, 64);
  if (pairs == 0) return false;
  size_t zero_high = 0;
  for (size_t i = 0; i < pairs; ++i) zero_high += bytes[2 * i + 1] == 0;
  return zero_high * 4 >= pairs * 3;
}

// Splits a MULTI_SZ list into its strings, stopping at the empty string that ends it.
std::vector<ListString> SplitMultiSz(std::span<const uint8_t> bytes, bool utf16,
                                     TitleParseReport* report) {
  std::vector<ListString> strings;
  size_t unit = utf16 ? 2 : 1;
  size_t start = 0;
  size_t end = bytes.size() - bytes.size() % unit;
  if (end != bytes.size()) {
    Warn(report, "odd trailing byte at byte " + std::to_string(end) + " ignored");
  }
  for (size_t at = 0; at < end; at += unit) {
    bool nul = utf16 ? LoadU16(bytes.data() + at) == 0 : bytes[at] == 0;
    if (!nul) continue;
    if (at == start) return strings;  // the empty string: end of the list
    std::span<const uint8_t> piece = bytes.subspan(start, at - start);
    strings.push_back({utf16 ? Utf16LeToUtf8(piece) : CodePageToUtf8(piece, 65001), start});
    start = at + unit;
  }
  if (start < end) {
    std::span<const uint8_t> piece = bytes.subspan(start, end - start);
    strings.push_back({utf16 ? Utf16LeToUtf8(piece) : CodePageToUtf8(piece, 65001), start});
    Warn(report, "list does not end with an empty string (last string at byte " +
                     std::to_string(start) + ")");
  }
  return strings;
}

// Decodes a whole text file: UTF-16LE (with or without BOM), UTF-8 (with or without BOM), or
// else Latin-1 (code page 1252).
std::string DecodeText(std::span<const uint8_t> bytes) {
  if (bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE) {
    return Utf16LeToUtf8(bytes.subspan(2));
  }
  if (LooksLikeUtf16(bytes)) return Utf16LeToUtf8(bytes);
  if (bytes.size() >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF) {
    return CodePageToUtf8(bytes.subspan(3), 65001);
  }
  // Valid UTF-8 stays UTF-8; anything else is taken as Windows-1252.
  std::string utf8 = CodePageToUtf8(bytes, 65001);
  if (utf8.find("\xEF\xBF\xBD") == std::string::npos) return utf8;
  return CodePageToUtf8(bytes, 1252);
}

bool ContainsSection(std::string_view text) {
  return text.find("[Perflib]") != std::string_view::npos ||
         text.find("[PerfStrings_") != std::string_view::npos;
}

}  // namespace

void TitleDatabase::AddName(uint32_t index, std::string name) {
  auto [it, inserted] = names_.insert_or_assign(index, std::move(name));
  (void)inserted;
  std::vector<uint32_t>& indexes = indexes_by_folded_name_[FoldCase(it->second)];
  auto pos = std::lower_bound(indexes.begin(), indexes.end(), index);
  if (pos == indexes.end() || *pos != index) indexes.insert(pos, index);
}

void TitleDatabase::AddHelp(uint32_t index, std::string help) {
  helps_.insert_or_assign(index, std::move(help));
}

std::optional<std::string_view> TitleDatabase::Name(uint32_t index) const {
  auto it = names_.find(index);
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string_view> TitleDatabase::Help(uint32_t index) const {
  auto it = helps_.find(index);
  if (it == helps_.end()) return std::nullopt;
  return it->second;
}

std::vector<uint32_t> TitleDatabase::IndexesOf(std::string_view name) const {
  auto it = indexes_by_folded_name_.find(FoldCase(name));
  if (it == indexes_by_folded_name_.end()) return {};
  // A name replaced by AddName at the same index is no longer carried there.
  std::vector<uint32_t> indexes;
  for (uint32_t index : it->second) {
    auto current = names_.find(index);
    if (current != names_.end() && FoldCase(current->second) == it->first) indexes.push_back(index);
  }
  return indexes;
}

uint32_t TitleDatabase::last_name_index() const {
  return names_.empty() ? 0 : names_.rbegin()->first;
}
size_t TitleDatabase::num_names() const { return names_.size(); }
size_t TitleDatabase::num_helps() const { return helps_.size(); }

namespace {

std::vector<uint8_t> EncodeList(const std::map<uint32_t, std::string>& entries) {
  std::vector<uint8_t> out;
  auto append = [&](std::string_view text) {
    std::vector<uint8_t> utf16 = Utf8ToUtf16Le(text);
    out.insert(out.end(), utf16.begin(), utf16.end());
    out.insert(out.end(), {0, 0});
  };
  for (const auto& [index, text] : entries) {
    append(std::to_string(index));
    append(text);
  }
  out.insert(out.end(), {0, 0});
  return out;
}

}  // namespace

std::vector<uint8_t> TitleDatabase::EncodeNames() const { return EncodeList(names_); }
std::vector<uint8_t> TitleDatabase::EncodeHelps() const { return EncodeList(helps_); }

Status ParseTitleList(std::span<const uint8_t> bytes, bool is_help, TitleDatabase& database,
                      TitleParseReport* report) {
  bool utf16 = LooksLikeUtf16(bytes);
  std::vector<ListString> strings = SplitMultiSz(bytes, utf16, report);
  size_t kept = 0;
  size_t i = 0;
  while (i < strings.size()) {
    std::optional<uint32_t> index = ParseIndex(strings[i].text);
    if (!index) {
      Warn(report, "entry " + std::to_string(i) + " at byte " + std::to_string(strings[i].offset) +
                       ": \"" + strings[i].text.substr(0, 40) + "\" is not an index; skipped");
      ++i;
      continue;
    }
    if (i + 1 >= strings.size()) {
      Warn(report, "entry " + std::to_string(i) + " at byte " + std::to_string(strings[i].offset) +
                       ": index " + std::to_string(*index) + " has no text; skipped");
      break;
    }
    if (is_help) {
      database.AddHelp(*index, std::move(strings[i + 1].text));
    } else {
      database.AddName(*index, std::move(strings[i + 1].text));
    }
    ++kept;
    i += 2;
  }
  if (kept == 0) {
    return Status::Error(std::string("no index/text pair found in the ") +
                         (is_help ? "help" : "counter") + " list (" + std::to_string(bytes.size()) +
                         " bytes, " + (utf16 ? "UTF-16" : "8-bit") + ")");
  }
  return Status();
}

Result<LodctrDump> ParseLodctrDump(std::span<const uint8_t> bytes, TitleParseReport* report) {
  std::string text = DecodeText(bytes);
  if (!ContainsSection(text)) {
    return Status::Error("not a lodctr /S dump: no [Perflib] or [PerfStrings_...] section");
  }
  LodctrDump dump;
  enum class Section { kNone, kPerflib, kProvider, kStrings, kOther } section = Section::kNone;
  TitleDatabase* strings = nullptr;
  LodctrDump::Provider* provider = nullptr;
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.front() == '[') {
      size_t close = line.find(']');
      std::string_view name =
          line.substr(1, close == std::string_view::npos ? line.size() - 1 : close - 1);
      if (name == "Perflib") {
        section = Section::kPerflib;
      } else if (name.starts_with("PERF_")) {
        section = Section::kProvider;
        dump.providers.push_back({std::string(name.substr(5))});
        provider = &dump.providers.back();
      } else if (name.starts_with("PerfStrings_")) {
        section = Section::kStrings;
        strings = &dump.languages[std::string(name.substr(12))];
      } else {
        section = Section::kOther;
      }
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      Warn(report, "line " + std::to_string(line_number) + ": no '=' in \"" +
                       std::string(line.substr(0, 40)) + "\"; skipped");
      continue;
    }
    std::string_view key = line.substr(0, equals);
    std::string_view value = line.substr(equals + 1);
    if (section == Section::kStrings) {
      std::optional<uint32_t> index = ParseIndex(key);
      if (!index) {
        Warn(report, "line " + std::to_string(line_number) + ": \"" +
                         std::string(key.substr(0, 40)) + "\" is not an index; skipped");
        continue;
      }
      // Names have even indexes, help texts odd ones; but index 1 (the count) and the Base
      // Index ("End Marker", 1847) are names in the "Counter" list.
      if (*index % 2 == 1 && *index != 1 && *index != dump.base_index) {
        strings->AddHelp(*index, std::string(value));
      } else {
        strings->AddName(*index, std::string(value));
      }
      continue;
    }
    if (section != Section::kPerflib && section != Section::kProvider) continue;
    std::optional<uint32_t> number = ParseIndex(value);
    if (!number) {
      Warn(report, "line " + std::to_string(line_number) + ": " + std::string(key) + " = \"" +
                       std::string(value.substr(0, 40)) + "\" is not a number; skipped");
      continue;
    }
    if (section == Section::kPerflib) {
      if (key == "Base Index") dump.base_index = *number;
      if (key == "Last Counter") dump.last_counter = *number;
      if (key == "Last Help") dump.last_help = *number;
    } else {
      if (key == "First Counter") provider->first_counter = *number;
      if (key == "First Help") provider->first_help = *number;
      if (key == "Last Counter") provider->last_counter = *number;
      if (key == "Last Help") provider->last_help = *number;
    }
  }
  if (dump.languages.empty()) {
    return Status::Error("lodctr /S dump has no [PerfStrings_...] section");
  }
  return dump;
}

Result<TitleDatabase> LoadTitleDatabase(std::span<const uint8_t> bytes, TitleParseReport* report) {
  if (ContainsSection(DecodeText(bytes))) {
    Result<LodctrDump> dump = ParseLodctrDump(bytes, report);
    if (!dump.ok()) return dump.status();
    auto english = dump->languages.find("009");
    if (english == dump->languages.end()) english = dump->languages.begin();
    return std::move(english->second);
  }
  TitleDatabase database;
  if (Status s = ParseTitleList(bytes, false, database, report); !s.ok()) {
    return Status::Error("neither a lodctr /S dump nor a \"Counter\" list: " + s.message());
  }
  return database;
}

}  // namespace perfhive
