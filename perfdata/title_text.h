// What the title list and lodctr dump parsers share: the input as code units in its own encoding
// (UTF-16LE or 8-bit), so that what they find keeps its byte offset for warnings, and the small
// text helpers both need. Internal to perfdata's title parsers.

#ifndef PERFHIVE_PERFDATA_TITLE_TEXT_H_
#define PERFHIVE_PERFDATA_TITLE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/byte_order.h"
#include "perfdata/title_parse_report.h"

namespace perfhive::title_text {

std::string_view TrimBlanks(std::string_view text);

// A decimal number, blanks around it allowed; no sign, no overflow.
std::optional<uint32_t> ParseNumber(std::string_view text);

// The start of a text for a warning, cut at a character boundary.
std::string Excerpt(std::string_view text);

// 8-bit text from the ANSI calls or an ANSI file: UTF-8 if it is valid UTF-8 (decoding it then
// changes nothing), else Windows-1252, the Latin-1 superset Western Windows uses.
std::string DecodeEightBit(std::span<const uint8_t> bytes);

bool StartsWith(std::span<const uint8_t> bytes, std::initializer_list<uint8_t> prefix);

// Looks like UTF-16LE text: the high byte is zero in most of the first code units.
bool LooksLikeUtf16(std::span<const uint8_t> bytes);

void Warn(TitleParseReport* report, std::string message);

// Text as a span of code units in its own encoding, so that what is found in it keeps its
// byte offset in the input.
struct EncodedText {
  std::span<const uint8_t> bytes;  // the whole input
  size_t begin = 0;                // after a byte order mark
  size_t end = 0;                  // before an odd trailing byte of UTF-16LE
  bool utf16 = false;

  EncodedText(std::span<const uint8_t> input, size_t skip, bool is_utf16);
  size_t unit() const { return utf16 ? 2 : 1; }
  char16_t At(size_t offset) const { return utf16 ? LoadU16(&bytes[offset]) : bytes[offset]; }
  std::string Decode(size_t from, size_t to) const;
};

}  // namespace perfhive::title_text

#endif  // PERFHIVE_PERFDATA_TITLE_TEXT_H_
