#include "perfdata/name_pattern.h"

#include "perfdata/case_folding.h"

namespace perfhive {

std::string EscapePattern(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '*' || c == kPatternEscape) out += kPatternEscape;
    out += c;
  }
  return out;
}

bool HasWildcard(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == kPatternEscape) {
      ++i;
    } else if (pattern[i] == '*') {
      return true;
    }
  }
  return false;
}

NamePattern::NamePattern(std::string_view pattern) {
  units_.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size();) {
    if (pattern[i] == '*') {
      units_.push_back(kStar);
      ++i;
      continue;
    }
    if (pattern[i] == kPatternEscape && i + 1 < pattern.size()) ++i;
    units_.push_back(NextFoldedNameUnit(pattern, i));
  }
}

bool NamePattern::matches_everything() const {
  for (char32_t unit : units_) {
    if (unit != kStar) return false;
  }
  return !units_.empty();
}

bool NamePattern::has_wildcard() const {
  for (char32_t unit : units_) {
    if (unit == kStar) return true;
  }
  return false;
}

// Greedy matching that backtracks to the last star: O(pattern × name) at worst. `n` and `mark`
// are byte positions in the name, always at the start of a unit.
bool NamePattern::Matches(std::string_view name) const {
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < units_.size() && units_[p] == kStar) {
      star = p++;
      mark = n;
      continue;
    }
    size_t next = n;
    if (p < units_.size() && units_[p] == NextFoldedNameUnit(name, next)) {
      ++p;
      n = next;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      DecodeNameUnitAt(name, mark);  // the star takes one more unit
      n = mark;
    } else {
      return false;
    }
  }
  while (p < units_.size() && units_[p] == kStar) ++p;
  return p == units_.size();
}

bool MatchesPattern(std::string_view pattern, std::string_view name) {
  return NamePattern(pattern).Matches(name);
}

}  // namespace perfhive
