#include "perfdata/lodctr_dump.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "perfdata/title_text.h"

namespace perfhive {
namespace {

using title_text::EncodedText;
using title_text::Excerpt;
using title_text::LooksLikeUtf16;
using title_text::ParseNumber;
using title_text::StartsWith;
using title_text::TrimBlanks;
using title_text::Warn;

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

}  // namespace

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

}  // namespace perfhive
