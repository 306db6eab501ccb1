// Conversions between the encodings Windows performance data uses (UTF-16LE, 8-bit code
// pages) and the UTF-8 the rest of perfhive works in.

#ifndef PERFHIVE_PERFDATA_TEXT_ENCODING_H_
#define PERFHIVE_PERFDATA_TEXT_ENCODING_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfhive {

// UTF-16LE bytes to UTF-8, up to the first NUL character or the end. Unpaired surrogates and
// an odd trailing byte become U+FFFD.
std::string Utf16LeToUtf8(std::span<const uint8_t> bytes);

// 8-bit text in a Windows code page to UTF-8, up to the first NUL. Code pages 65001 (UTF-8),
// 1252 and 28591 (Latin-1) are converted exactly; in any other code page, bytes above 0x7F
// become U+FFFD.
std::string CodePageToUtf8(std::span<const uint8_t> bytes, uint32_t code_page);

// UTF-8 to UTF-16LE bytes, without a terminator. Invalid UTF-8 becomes U+FFFD.
std::vector<uint8_t> Utf8ToUtf16Le(std::string_view text);

// Appends one code point to a UTF-8 string.
void AppendUtf8(std::string& out, char32_t code_point);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TEXT_ENCODING_H_
