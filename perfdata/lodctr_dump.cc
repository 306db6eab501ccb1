#include "perfdata/lodctr_dump.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

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

// Reads a dump line by line, keeping which section the lines are in.
class DumpParser {
 public:
  explicit DumpParser(TitleParseReport* report) : report_(report) {}

  // One line, without its terminator: line `number` (from 1), at byte `byte` of the input.
  void ReadLine(std::string_view line, size_t number, size_t byte) {
    line_number_ = number;
    line_byte_ = byte;
    if (TrimBlanks(line).empty()) return;
    if (line.front() == '[') {
      ReadSectionHeader(line);
      return;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      Warn(report_, Where() + "no '=' in " + Excerpt(line) + "; skipped");
      return;
    }
    std::string_view key = TrimBlanks(line.substr(0, equals));
    std::string_view value = line.substr(equals + 1);
    if (strings_) {
      ReadStringEntry(key, value);
    } else if (in_numbers_) {
      ReadNumberEntry(key, value);
    }
  }

  // The dump, or an error if it had no section that a dump has or no entry in any language.
  Result<LodctrDump> Finish() && {
    if (!known_section_) {
      return Status::Error(
          "not a lodctr /S dump: no [Perflib], [PERF_...] or [PerfStrings_...] section");
    }
    bool any_entry = false;
    for (const auto& [code, database] : dump_.languages) {
      if (database.num_names() + database.num_helps() == 0) {
        Warn(report_, "[PerfStrings_" + code + "] holds no entry");
      } else {
        any_entry = true;
      }
    }
    if (!any_entry) {
      return Status::Error(
          "lodctr /S dump has no [PerfStrings_...] section with an index=text entry");
    }
    return std::move(dump_);
  }

 private:
  // The start of a warning about the current line; built only when there is one to give.
  std::string Where() const {
    return "line " + std::to_string(line_number_) + " at byte " + std::to_string(line_byte_) + ": ";
  }

  void ReadSectionHeader(std::string_view line) {
    size_t close = line.find(']');
    if (close == std::string_view::npos) {
      Warn(report_, Where() + "section header " + Excerpt(line) + " has no ']'");
    }
    std::string_view name = line.substr(1, close == std::string_view::npos ? line.npos : close - 1);
    provider_ = nullptr;
    strings_ = nullptr;
    in_numbers_ = false;
    if (SameKey(name, "Perflib")) {
      in_numbers_ = true;
    } else if (StartsWithKey(name, "PERF_")) {
      in_numbers_ = true;
      dump_.providers.push_back({std::string(name.substr(5))});
      provider_ = &dump_.providers.back();
    } else if (StartsWithKey(name, "PerfStrings_")) {
      language_ = std::string(name.substr(12));
      strings_ = &dump_.languages[language_];
    }
    known_section_ = known_section_ || in_numbers_ || strings_;
  }

  // index=text in [PerfStrings_<lang>].
  void ReadStringEntry(std::string_view key, std::string_view value) {
    std::optional<uint32_t> index = ParseNumber(key);
    if (!index) {
      Warn(report_, Where() + Excerpt(key) + " is not an index; skipped");
      return;
    }
    if (value.empty()) {
      Warn(report_, Where() + "index " + std::to_string(*index) + " has no text; skipped");
      return;
    }
    bool is_help = *index % 2 == 1 && *index != 1;
    if (is_help ? strings_->Help(*index).has_value() : strings_->Name(*index).has_value()) {
      Warn(report_, Where() + "index " + std::to_string(*index) + " repeated in [PerfStrings_" +
                        language_ + "]; the later text is kept");
    }
    if (is_help) {
      strings_->AddHelp(*index, std::string(value));
    } else {
      strings_->AddName(*index, std::string(value));
    }
  }

  // key=number in [Perflib] or [PERF_<service>]; keys the dump does not keep are ignored.
  void ReadNumberEntry(std::string_view key, std::string_view value) {
    uint32_t* field = NumberField(dump_, provider_, key);
    if (!field) return;
    std::optional<uint32_t> number = ParseNumber(value);
    if (!number) {
      Warn(report_,
           Where() + std::string(key) + "=" + Excerpt(value) + " is not a number; skipped");
      return;
    }
    *field = *number;
  }

  TitleParseReport* report_;
  size_t line_number_ = 0;
  size_t line_byte_ = 0;
  LodctrDump dump_;
  bool known_section_ = false;
  bool in_numbers_ = false;  // in [Perflib] or [PERF_<service>]
  LodctrDump::Provider* provider_ = nullptr;
  std::string language_;
  TitleDatabase* strings_ = nullptr;
};

}  // namespace

Result<LodctrDump> ParseLodctrDump(std::span<const uint8_t> bytes, TitleParseReport* report) {
  EncodedText text = DetectDumpEncoding(bytes);
  if (text.end != bytes.size()) {
    Warn(report, "odd trailing byte at byte " + std::to_string(text.end) + "; ignored");
  }
  DumpParser parser(report);
  LineReader lines(text);
  size_t begin = 0, end = 0;
  while (lines.Next(begin, end)) parser.ReadLine(text.Decode(begin, end), lines.number(), begin);
  return std::move(parser).Finish();
}

}  // namespace perfhive
