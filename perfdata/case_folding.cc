#include "perfdata/case_folding.h"

#include <algorithm>
#include <cstdint>

#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

// kFoldingLimit, kFoldingBlockBits, kFoldingBlock, kFoldingDeltaIndex, kFoldingDeltas.
#include "perfdata/case_folding_table.inc"

// The bodies of DecodeNameUnitAt and FoldNameUnit, inlined into NextFoldedNonAsciiUnit: one call
// per character of a non-Latin name, not two.
inline char32_t Decode(std::string_view text, size_t& at) {
  const unsigned char lead = static_cast<unsigned char>(text[at]);
  size_t length = 0;
  char32_t c = 0;
  // The range of the second byte; E0, ED, F0 and F4 narrow it to exclude overlong forms,
  // surrogates and code points above U+10FFFF.
  unsigned char low = 0x80, high = 0xBF;
  if (lead < 0x80) {
    ++at;
    return lead;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    c = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    c = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    c = lead & 0x07;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  }
  bool valid = length != 0 && text.size() - at >= length;
  for (size_t i = 1; valid && i < length; ++i) {
    const unsigned char next = static_cast<unsigned char>(text[at + i]);
    valid = next >= (i == 1 ? low : 0x80) && next <= (i == 1 ? high : 0xBF);
    c = (c << 6) | (next & 0x3F);
  }
  if (!valid) {
    ++at;
    return kInvalidUtf8Byte + lead;
  }
  at += length;
  return c;
}

inline char32_t Fold(char32_t unit) {
  if (unit >= kFoldingLimit) return unit;
  const uint32_t block = kFoldingBlock[unit >> kFoldingBlockBits];
  const uint32_t offset = unit & ((1u << kFoldingBlockBits) - 1);
  const int32_t delta = kFoldingDeltas[kFoldingDeltaIndex[(block << kFoldingBlockBits) | offset]];
  return static_cast<char32_t>(static_cast<int32_t>(unit) + delta);
}

bool IsContinuationAt(std::string_view text, size_t at) {
  return at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80;
}

}  // namespace

char32_t DecodeNameUnitAt(std::string_view text, size_t& at) { return Decode(text, at); }

char32_t FoldNameUnit(char32_t unit) { return Fold(unit); }

namespace case_folding_internal {

char32_t NextFoldedNonAsciiUnit(std::string_view text, size_t& at) {
  return Fold(Decode(text, at));
}

}  // namespace case_folding_internal

bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  // Names compared through a hash table are mostly equal byte for byte, or differ late: skip the
  // common bytes, back to where a unit starts in both (a byte that is no continuation byte
  // starts one, and the units before it are the same in both).
  const size_t common = std::min(a.size(), b.size());
  size_t i = std::mismatch(a.begin(), a.begin() + common, b.begin()).first - a.begin();
  if (i == a.size() && i == b.size()) return true;
  while (i > 0 && (IsContinuationAt(a, i) || IsContinuationAt(b, i))) --i;
  size_t j = i;
  while (i < a.size() && j < b.size()) {
    if (NextFoldedNameUnit(a, i) != NextFoldedNameUnit(b, j)) return false;
  }
  return i == a.size() && j == b.size();
}

std::string FoldCase(std::string_view name) {
  std::string folded;
  folded.reserve(name.size());
  for (size_t at = 0; at < name.size();) {
    const char32_t unit = NextFoldedNameUnit(name, at);
    if (unit >= kInvalidUtf8Byte) {
      folded += static_cast<char>(unit - kInvalidUtf8Byte);
    } else {
      AppendUtf8(folded, unit);
    }
  }
  return folded;
}

// FNV-1a over the folded units: short names (instance names are mostly a few characters) hash
// faster than through a folded std::string and std::hash.
size_t HashIgnoringCase(std::string_view name) {
  uint64_t hash = 14695981039346656037u;
  for (size_t at = 0; at < name.size();) {
    hash = (hash ^ NextFoldedNameUnit(name, at)) * 1099511628211u;
  }
  return static_cast<size_t>(hash);
}

}  // namespace perfhive
