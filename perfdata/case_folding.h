// Case folding for names, which Windows compares ignoring case in every script: Unicode simple
// case folding (CaseFolding.txt, statuses C and S), from a table generated at build time by
// cmake/generate_case_folding_table.cmake. Folding can change a character's UTF-8 length (U+212A
// KELVIN SIGN, 3 bytes, folds to 'k'), so names are compared and hashed unit by unit, decoding
// UTF-8 as they go, never through a folded copy. A byte that is not part of valid UTF-8 is a
// unit of its own that equals only the same byte.

#ifndef PERFHIVE_PERFDATA_CASE_FOLDING_H_
#define PERFHIVE_PERFDATA_CASE_FOLDING_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace perfhive {

// A byte that is not valid UTF-8 reads as this plus the byte: no code point equals it.
inline constexpr char32_t kInvalidUtf8Byte = 0x110000;

// The unit of `text` that starts at byte `at` (< text.size()): a code point, or kInvalidUtf8Byte
// plus the byte there; `at` moves past it. Overlong forms and surrogates are invalid.
char32_t DecodeNameUnitAt(std::string_view text, size_t& at);

// The simple case folding of `unit`; non-code points are returned as they are.
char32_t FoldNameUnit(char32_t unit);

namespace case_folding_internal {
char32_t NextFoldedNonAsciiUnit(std::string_view text, size_t& at);
}  // namespace case_folding_internal

// DecodeNameUnitAt, then FoldNameUnit, with ASCII inline: most names are ASCII.
inline char32_t NextFoldedNameUnit(std::string_view text, size_t& at) {
  char32_t c = static_cast<unsigned char>(text[at]);
  if (c < 0x80) {
    ++at;
    return c - U'A' < 26 ? c + (U'a' - U'A') : c;
  }
  return case_folding_internal::NextFoldedNonAsciiUnit(text, at);
}

bool EqualIgnoringCase(std::string_view a, std::string_view b);
// The name folded, in UTF-8, its invalid bytes kept: FoldCase(a) == FoldCase(b) exactly when
// EqualIgnoringCase(a, b). For keys that are stored or joined (the store's host keys, query/'s
// instance identities); comparing and hashing need no copy.
std::string FoldCase(std::string_view name);
// A hash of the folded name: names EqualIgnoringCase hash alike. Not for content addresses.
size_t HashIgnoringCase(std::string_view name);

// For unordered containers keyed by names (std::string or std::string_view) ignoring case; both
// transparent, so a std::string_view looks up std::string keys without a copy.
struct NameHashIgnoringCase {
  using is_transparent = void;
  size_t operator()(std::string_view name) const { return HashIgnoringCase(name); }
};
struct NameEqualIgnoringCase {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return EqualIgnoringCase(a, b); }
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_CASE_FOLDING_H_
