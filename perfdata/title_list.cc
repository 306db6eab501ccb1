#include "perfdata/title_list.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "perfdata/title_text.h"

namespace perfhive {
namespace {

using title_text::EncodedText;
using title_text::Excerpt;
using title_text::LooksLikeUtf16;
using title_text::ParseNumber;
using title_text::StartsWith;

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

}  // namespace

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

std::vector<uint8_t> EncodeTitleList(const std::map<uint32_t, std::string>& entries) {
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

}  // namespace perfhive
