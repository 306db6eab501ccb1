#include "perfdata/display_text.h"

#include <cstdio>

#include "perfdata/case_folding.h"

namespace perfhive {
namespace {

// [first, last] ranges of code points, in order.
struct Range {
  char32_t first, last;
};

template <size_t N>
bool InRanges(const Range (&ranges)[N], char32_t c) {
  for (const Range& range : ranges) {
    if (c < range.first) return false;
    if (c <= range.last) return true;
  }
  return false;
}

// Combining marks drawn over the character before them, and variation selectors.
constexpr Range kZeroWidth[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},  {0x064B, 0x065F},
    {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1AB0, 0x1AFF},  {0x1DC0, 0x1DFF},
    {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xE0100, 0xE01EF}};

// East Asian Wide and Fullwidth blocks (Hangul Jamo, CJK, kana, Hangul syllables, fullwidth
// forms) and the emoji blocks, as terminals draw them.
constexpr Range kDoubleWidth[] = {{0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},
                                  {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
                                  {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE30, 0xFE4F},
                                  {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F},
                                  {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};

}  // namespace

bool IsUnsafeToDisplay(char32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0xAD || c == 0x061C || c == 0x180E ||
         (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) ||
         c == 0xFFFE || c == 0xFFFF || (c >= 0xE0000 && c <= 0xE007F);
}

std::string EscapeForDisplay(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t start = at;
    const char32_t unit = DecodeNameUnitAt(text, at);
    if (unit >= kInvalidUtf8Byte || unit < 0x80) {
      const unsigned byte = static_cast<unsigned char>(text[start]);
      if (unit == U'\n') {
        out += "\\n";
      } else if (unit == U'\r') {
        out += "\\r";
      } else if (unit == U'\t') {
        out += "\\t";
      } else if (byte < 0x20 || byte >= 0x7F) {
        char escaped[5];
        std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
        out += escaped;
      } else {
        out += static_cast<char>(byte);
      }
    } else if (IsUnsafeToDisplay(unit)) {
      char escaped[12];
      std::snprintf(escaped, sizeof escaped, "\\u{%04X}", static_cast<unsigned>(unit));
      out += escaped;
    } else {
      out.append(text.substr(start, at - start));
    }
  }
  return out;
}

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t start = at;
    if (DecodeNameUnitAt(text, at) >= kInvalidUtf8Byte) {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      out.append(text.substr(start, at - start));
    }
  }
  return out;
}

std::string TruncateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  // Back to the start of the character the limit falls in: at most three continuation bytes
  // (10xxxxxx) in valid UTF-8, and no further in text that is not.
  for (int back = 0; back < 3 && cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80;
       ++back) {
    --cut;
  }
  return std::string(text.substr(0, cut)) + " ... (" + std::to_string(text.size()) +
         " bytes in all)";
}

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (size_t at = 0; at < text.size();) {
    const char32_t unit = DecodeNameUnitAt(text, at);
    if (unit < 0x300) {
      ++width;  // ASCII and Latin-1, the most names, without a search
    } else if (InRanges(kDoubleWidth, unit)) {
      width += 2;
    } else if (!InRanges(kZeroWidth, unit)) {
      ++width;
    }
  }
  return width;
}

}  // namespace perfhive
