#include "perfdata/case_folding.h"

#include <cstdint>

namespace perfhive {

std::string FoldCase(std::string_view name) {
  std::string folded(name);
  unsigned char previous = 0;
  for (char& c : folded) {
    unsigned char raw = static_cast<unsigned char>(c);
    c = static_cast<char>(FoldNameByte(raw, previous));
    previous = raw;
  }
  return folded;
}

bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char previous_a = 0, previous_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char ca = static_cast<unsigned char>(a[i]);
    unsigned char cb = static_cast<unsigned char>(b[i]);
    if (FoldNameByte(ca, previous_a) != FoldNameByte(cb, previous_b)) return false;
    previous_a = ca;
    previous_b = cb;
  }
  return true;
}

// FNV-1a over the folded bytes: short names (instance names are mostly a few characters) hash
// faster than through a folded std::string and std::hash.
size_t HashIgnoringCase(std::string_view name) {
  uint64_t hash = 14695981039346656037u;
  unsigned char previous = 0;
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    hash = (hash ^ FoldNameByte(c, previous)) * 1099511628211u;
    previous = c;
  }
  return static_cast<size_t>(hash);
}

}  // namespace perfhive
