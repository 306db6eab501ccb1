// Case folding for names, which PDH compares ignoring case: ASCII letters and the UTF-8 forms of
// the Latin-1 capitals À..Þ (C3 80..C3 9E, not × C3 97), as TitleDatabase::IndexesOf folds them.
// Other scripts compare exactly. Folding never changes a name's length, so names can be folded
// byte by byte while they are compared or hashed, without a folded copy.

#ifndef PERFHIVE_PERFDATA_CASE_FOLDING_H_
#define PERFHIVE_PERFDATA_CASE_FOLDING_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace perfhive {

// Byte `c` of a UTF-8 name folded, given the byte before it (0 at the start of the name): the
// second byte of a Latin-1 capital is folded only after its lead byte C3.
constexpr unsigned char FoldNameByte(unsigned char c, unsigned char previous) {
  if (c >= 'A' && c <= 'Z') return static_cast<unsigned char>(c - 'A' + 'a');
  if (previous == 0xC3 && c >= 0x80 && c <= 0x9E && c != 0x97) {
    return static_cast<unsigned char>(c + 0x20);
  }
  return c;
}

// The folded copy of a name, for keys of maps that must ignore case.
std::string FoldCase(std::string_view name);
bool EqualIgnoringCase(std::string_view a, std::string_view b);
// A hash of the folded name: names EqualIgnoringCase hash alike.
size_t HashIgnoringCase(std::string_view name);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_CASE_FOLDING_H_
