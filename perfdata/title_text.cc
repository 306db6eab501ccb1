#include "perfdata/title_text.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "perfdata/text_encoding.h"

namespace perfhive::title_text {

std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::optional<uint32_t> ParseNumber(std::string_view text) {
  text = TrimBlanks(text);
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return "\"" + std::string(text) + "\"";
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "\"" + std::string(text.substr(0, cut)) + "...\"";
}

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

bool StartsWith(std::span<const uint8_t> bytes, std::initializer_list<uint8_t> prefix) {
  return bytes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), bytes.begin());
}

bool LooksLikeUtf16(std::span<const uint8_t> bytes) {
  size_t units = std::min<size_t>(bytes.size() / 2, 64);
  size_t zero_high = 0;
  for (size_t i = 0; i < units; ++i) zero_high += bytes[2 * i + 1] == 0;
  return units > 0 && zero_high * 4 >= units * 3;
}

void Warn(TitleParseReport* report, std::string message) {
  if (report) report->warnings.push_back(std::move(message));
}

EncodedText::EncodedText(std::span<const uint8_t> input, size_t skip, bool is_utf16)
    : bytes(input), begin(std::min(skip, input.size())), utf16(is_utf16) {
  end = bytes.size() - (utf16 ? (bytes.size() - begin) % 2 : 0);
}

std::string EncodedText::Decode(size_t from, size_t to) const {
  std::span<const uint8_t> piece = bytes.subspan(from, to - from);
  return utf16 ? Utf16LeToUtf8(piece) : DecodeEightBit(piece);
}

}  // namespace perfhive::title_text
