#include "perfdata/title_database.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "perfdata/byte_order.h"
#include "perfdata/case_folding.h"
#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A decimal number, blanks around it allowed; no sign, no overflow.
std::optional<uint32_t> ParseNumber(std::string_view text) {
  text = TrimBlanks(text);
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The start of a text for a warning, cut at a character boundary.
std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return "\"" + std::string(text) + "\"";
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "\"" + std::string(text.substr(0, cut)) + "...\"";
}

// 8-bit text from the ANSI calls or an ANSI file: UTF-8 if it is valid UTF-8 (decoding it then
// changes nothing), else Windows-1252, the Latin-1 superset Western Windows uses.
std::string DecodeEightBit(std::span<const uint8_t> bytes) {
  // Most lines are ASCII; they need no decoding (and this halves the time of an ANSI dump).
  if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0 && b < 0x80; })) {
    return std::string(bytes.begin(), bytes.end());
  }
  std::string utf8 = CodePageToUtf8(bytes, 65001);
  if (std::equal(utf8.begin(), utf8.end(), bytes.begin(), bytes.end(),
                 [](char a, uint8_t b) { return static_cast<uint8_t>(a) == b; })) {
    return utf8;
  }
  return CodePageToUtf8(bytes, 1252);
}

// Text as a span of code units in its own encoding, so that what is found in it keeps its
// byte offset in the input.
struct EncodedText {
  std::span<const uint8_t> bytes;  // the whole input
  size_t begin = 0;                // after a byte order mark
  size_t end = 0;                  // before an odd trailing byte of UTF-16LE
  bool utf16 = false;

  EncodedText(std::span<const uint8_t> input, size_t skip, bool is_utf16)
      : bytes(input), begin(std::min(skip, input.size())), utf16(is_utf16) {
    end = bytes.size() - (utf16 ? (bytes.size() - begin) % 2 : 0);
  }
  size_t unit() const { return utf16 ? 2 : 1; }
  char16_t At(size_t offset) const { return utf16 ? LoadU16(&bytes[offset]) : bytes[offset]; }
  std::string Decode(size_t from, size_t to) const {
    std::span<const uint8_t> piece = bytes.subspan(from, to - from);
    return utf16 ? Utf16LeToUtf8(piece) : DecodeEightBit(piece);
  }
};

void Warn(TitleParseReport* report, std::string message) {
  if (report) report->warnings.push_back(std::move(message));
}

bool StartsWith(std::span<const uint8_t> bytes, std::initializer_list<uint8_t> prefix) {
  return bytes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), bytes.begin());
}

// One reading of a MULTI_SZ list in one encoding: the pairs found and the junk skipped.
struct ListReading {
  std::vector<std::pair<uint32_t, std::string>> pairs;
  std::vector<std::string> warnings;
};

ListReading ReadList(std::span<const uint8_t> bytes, bool utf16) {
  ListReading reading;
  auto warn = [&reading](std::string message) { reading.warnings.push_back(std::move(message)); };
  // The registry writes no byte order mark, but a list saved to a file may start with one; read
  // as a string it would be junk that puts every later pair out of step.
  size_t bom = utf16 ? (StartsWith(bytes, {0xFF, 0xFE}) ? 2 : 0)
                     : (StartsWith(bytes, {0xEF, 0xBB, 0xBF}) ? 3 : 0);
  EncodedText text(bytes, bom, utf16);
  if (text.end != bytes.size()) {
    warn("odd trailing byte at byte " + std::to_string(text.end) + "; ignored");
  }
  // The strings, each with its byte offset, up to the empty string that ends the list.
  std::vector<std::pair<std::string, size_t>> strings;
  size_t start = text.begin;
  bool terminated = false;
  for (size_t at = text.begin; at < text.end; at += text.unit()) {
    if (text.At(at) != 0) continue;
    if (at == start) {
      terminated = true;
      size_t after = at + text.unit();
      // Zero padding after the end is common; anything else is reported.
      if (std::any_of(bytes.begin() + after, bytes.begin() + text.end,
                      [](uint8_t b) { return b != 0; })) {
        warn(std::to_string(text.end - after) + " bytes after the list's end at byte " +
             std::to_string(after) + "; ignored");
      }
      break;
    }
    strings.emplace_back(text.Decode(start, at), start);
    start = at + text.unit();
  }
  if (!terminated) {
    if (start < text.end) strings.emplace_back(text.Decode(start, text.end), start);
    warn("the list has no empty string at its end (byte " + std::to_string(text.end) +
         "); read up to there");
  }
  auto where = [&](size_t i) {
    return "entry " + std::to_string(i) + " at byte " + std::to_string(strings[i].second) + ": ";
  };
  for (size_t i = 0; i < strings.size();) {
    std::optional<uint32_t> index = ParseNumber(strings[i].first);
    if (!index) {
      warn(where(i) + Excerpt(strings[i].first) + " is not an index; skipped");
      ++i;
    } else if (i + 1 == strings.size()) {
      warn(where(i) + "index " + std::to_string(*index) + " has no text; skipped");
      ++i;
    } else {
      reading.pairs.emplace_back(*index, std::move(strings[i + 1].first));
      i += 2;
    }
  }
  return reading;
}

// Looks like UTF-16LE text: the high byte is zero in most of the first code units.
bool LooksLikeUtf16(std::span<const uint8_t> bytes) {
  size_t units = std::min<size_t>(bytes.size() / 2, 64);
  size_t zero_high = 0;
  for (size_t i = 0; i < units; ++i) zero_high += bytes[2 * i + 1] == 0;
  return units > 0 && zero_high * 4 >= units * 3;
}

// A dump's bytes in the encoding its byte order mark, or else its content, says.
EncodedText DetectDumpEncoding(std::span<const uint8_t> bytes) {
  if (StartsWith(bytes, {0xFF, 0xFE})) return EncodedText(bytes, 2, true);
  if (StartsWith(bytes, {0xEF, 0xBB, 0xBF})) return EncodedText(bytes, 3, false);
  return EncodedText(bytes, 0, LooksLikeUtf16(bytes));
}

// Walks the lines of a dump. Lines end at CR LF, as lodctr writes them; a bare LF belongs to
// the line, because help texts hold line breaks (the Arabic dump has some). A file without any
// CR LF has its lines end at LF.
class LineReader {
 public:
  explicit LineReader(const EncodedText& text) : text_(text), next_(text.begin) {
    for (size_t at = text.begin; at < text.end && !crlf_; at += text.unit()) crlf_ = IsCrLf(at);
  }

  // The next line's [begin, end) in bytes, without its terminator.
  bool Next(size_t& begin, size_t& end) {
    if (next_ >= text_.end) return false;
    begin = next_;
    size_t unit = text_.unit();
    for (end = begin; end < text_.end; end += unit) {
      if (crlf_ ? IsCrLf(end) : text_.At(end) == '\n') break;
    }
    next_ = std::min(text_.end, end + (crlf_ ? 2 * unit : unit));
    ++number_;
    return true;
  }
  size_t number() const { return number_; }

 private:
  bool IsCrLf(size_t at) const {
    return text_.At(at) == '\r' && at + text_.unit() < text_.end &&
           text_.At(at + text_.unit()) == '\n';
  }

  const EncodedText& text_;
  bool crlf_ = false;
  size_t next_;
  size_t number_ = 0;
};

// INI names compare ignoring ASCII case, as Windows reads them.
bool SameKey(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    return lower(x) == lower(y);
  });
}

bool StartsWithKey(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && SameKey(text.substr(0, prefix.size()), prefix);
}

// Where a [Perflib] or [PERF_<service>] key's number goes, if it is one the dump keeps.
uint32_t* NumberField(LodctrDump& dump, LodctrDump::Provider* provider, std::string_view key) {
  if (!provider) {
    if (SameKey(key, "Base Index")) return &dump.base_index;
    if (SameKey(key, "Last Counter")) return &dump.last_counter;
    if (SameKey(key, "Last Help")) return &dump.last_help;
    return nullptr;
  }
  if (SameKey(key, "First Counter")) return &provider->first_counter;
  if (SameKey(key, "First Help")) return &provider->first_help;
  if (SameKey(key, "Last Counter")) return &provider->last_counter;
  if (SameKey(key, "Last Help")) return &provider->last_help;
  return nullptr;
}

bool Contains(std::span<const uint8_t> bytes, std::string_view needle) {
  std::string_view haystack(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (haystack.find(needle) != std::string_view::npos) return true;
  std::vector<uint8_t> wide = Utf8ToUtf16Le(needle);
  return haystack.find(std::string_view(reinterpret_cast<const char*>(wide.data()), wide.size())) !=
         std::string_view::npos;
}

std::vector<uint8_t> EncodeList(const std::map<uint32_t, std::string>& entries) {
  std::vector<uint8_t> out;
  auto append = [&out](std::string_view text) {
    std::vector<uint8_t> utf16 = Utf8ToUtf16Le(text);
    out.insert(out.end(), utf16.begin(), utf16.end());
    out.insert(out.end(), {0, 0});
  };
  for (const auto& [index, text] : entries) {
    if (text.empty()) continue;
    append(std::to_string(index));
    append(text);
  }
  out.insert(out.end(), {0, 0});
  return out;
}

}  // namespace

void TitleDatabase::AddName(uint32_t index, std::string name) {
  auto [it, inserted] = names_.try_emplace(index);
  if (!inserted && !EqualIgnoringCase(it->second, name)) {
    auto old = indexes_by_name_.find(std::string_view(it->second));
    old->second.erase(index);
    if (old->second.empty()) indexes_by_name_.erase(old);
  }
  it->second = std::move(name);
  // Copies the name only when no name equal to it ignoring case is there yet.
  indexes_by_name_.try_emplace(it->second).first->second.insert(index);
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
  auto it = indexes_by_name_.find(name);
  if (it == indexes_by_name_.end()) return {};
  return std::vector<uint32_t>(it->second.begin(), it->second.end());
}

uint32_t TitleDatabase::last_name_index() const {
  return names_.empty() ? 0 : names_.rbegin()->first;
}

size_t TitleDatabase::num_names() const { return names_.size(); }

size_t TitleDatabase::num_helps() const { return helps_.size(); }

std::vector<uint8_t> TitleDatabase::EncodeNames() const { return EncodeList(names_); }

std::vector<uint8_t> TitleDatabase::EncodeHelps() const { return EncodeList(helps_); }

Status ParseTitleList(std::span<const uint8_t> bytes, bool is_help, TitleDatabase& database,
                      TitleParseReport* report) {
  // An 8-bit list read as UTF-16LE never yields a pair: its strings are one NUL apart, so the
  // first aligned NUL unit is its end. The converse is not true: UTF-16LE digits read as 8-bit
  // are one-character strings ("4\0" "2\0" ...) that pair up, so 8-bit is tried only on bytes
  // that do not look like UTF-16LE (which names of more than one letter never do).
  ListReading reading = ReadList(bytes, true);
  if (reading.pairs.empty() && !LooksLikeUtf16(bytes)) {
    ListReading eight_bit = ReadList(bytes, false);
    if (!eight_bit.pairs.empty()) reading = std::move(eight_bit);
  }
  if (report) {
    report->warnings.insert(report->warnings.end(), reading.warnings.begin(),
                            reading.warnings.end());
  }
  if (reading.pairs.empty()) {
    return Status::Error(std::string("no index/text pair in the ") +
                         (is_help ? "help" : "counter") + " list (" + std::to_string(bytes.size()) +
                         " bytes, read as UTF-16LE and as 8-bit text)");
  }
  for (auto& [index, text] : reading.pairs) {
    if (is_help) {
      database.AddHelp(index, std::move(text));
    } else {
      database.AddName(index, std::move(text));
    }
  }
  return Status();
}

Result<LodctrDump> ParseLodctrDump(std::span<const uint8_t> bytes, TitleParseReport* report) {
  EncodedText text = DetectDumpEncoding(bytes);
  if (text.end != bytes.size()) {
    Warn(report, "odd trailing byte at byte " + std::to_string(text.end) + "; ignored");
  }
  LodctrDump dump;
  bool known_section = false;
  bool in_numbers = false;  // in [Perflib] or [PERF_<service>]
  LodctrDump::Provider* provider = nullptr;
  std::string language;
  TitleDatabase* strings = nullptr;
  LineReader lines(text);
  size_t begin = 0, end = 0;
  while (lines.Next(begin, end)) {
    std::string decoded = text.Decode(begin, end);
    std::string_view line = decoded;
    if (TrimBlanks(line).empty()) continue;
    auto where = [&] {
      return "line " + std::to_string(lines.number()) + " at byte " + std::to_string(begin) + ": ";
    };
    if (line.front() == '[') {
      size_t close = line.find(']');
      if (close == std::string_view::npos) {
        Warn(report, where() + "section header " + Excerpt(line) + " has no ']'");
      }
      std::string_view name =
          line.substr(1, close == std::string_view::npos ? line.npos : close - 1);
      provider = nullptr;
      strings = nullptr;
      in_numbers = false;
      if (SameKey(name, "Perflib")) {
        in_numbers = true;
      } else if (StartsWithKey(name, "PERF_")) {
        in_numbers = true;
        dump.providers.push_back({std::string(name.substr(5))});
        provider = &dump.providers.back();
      } else if (StartsWithKey(name, "PerfStrings_")) {
        language = std::string(name.substr(12));
        strings = &dump.languages[language];
      }
      known_section = known_section || in_numbers || strings;
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      Warn(report, where() + "no '=' in " + Excerpt(line) + "; skipped");
      continue;
    }
    std::string_view key = TrimBlanks(line.substr(0, equals));
    std::string_view value = line.substr(equals + 1);
    if (strings) {
      std::optional<uint32_t> index = ParseNumber(key);
      if (!index) {
        Warn(report, where() + Excerpt(key) + " is not an index; skipped");
        continue;
      }
      if (value.empty()) {
        Warn(report, where() + "index " + std::to_string(*index) + " has no text; skipped");
        continue;
      }
      bool is_help = *index % 2 == 1 && *index != 1;
      if (is_help ? strings->Help(*index).has_value() : strings->Name(*index).has_value()) {
        Warn(report, where() + "index " + std::to_string(*index) + " repeated in [PerfStrings_" +
                         language + "]; the later text is kept");
      }
      if (is_help) {
        strings->AddHelp(*index, std::string(value));
      } else {
        strings->AddName(*index, std::string(value));
      }
      continue;
    }
    if (!in_numbers) continue;
    uint32_t* field = NumberField(dump, provider, key);
    if (!field) continue;
    std::optional<uint32_t> number = ParseNumber(value);
    if (!number) {
      Warn(report, where() + std::string(key) + "=" + Excerpt(value) + " is not a number; skipped");
      continue;
    }
    *field = *number;
  }
  if (!known_section) {
    return Status::Error(
        "not a lodctr /S dump: no [Perflib], [PERF_...] or [PerfStrings_...] section");
  }
  bool any_entry = false;
  for (const auto& [code, database] : dump.languages) {
    if (database.num_names() + database.num_helps() == 0) {
      Warn(report, "[PerfStrings_" + code + "] holds no entry");
    } else {
      any_entry = true;
    }
  }
  if (!any_entry) {
    return Status::Error(
        "lodctr /S dump has no [PerfStrings_...] section with an index=text entry");
  }
  return dump;
}

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
