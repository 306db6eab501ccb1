// Name patterns, as the components of a counter path hold them (perfdata/counter_path.h): '*'
// matches any run of characters, "`*" is a literal star and "``" a literal backtick; names
// compare ignoring case as PDH does. Matching is apart from the path grammar because every
// selection (expansion, browsing, queries) matches names without parsing paths.

#ifndef PERFHIVE_PERFDATA_NAME_PATTERN_H_
#define PERFHIVE_PERFDATA_NAME_PATTERN_H_

#include <string>
#include <string_view>
#include <vector>

namespace perfhive {

// Makes the next character literal: "`*" is a star, "``" a backtick.
inline constexpr char kPatternEscape = '`';

// The pattern that matches exactly `name`.
std::string EscapePattern(std::string_view name);
// Whether `pattern` has a wildcard.
bool HasWildcard(std::string_view pattern);
// Whether `name` matches `pattern`, ignoring case as PDH does (perfdata/case_folding.h); '*'
// matches any run of characters (code points), whatever their lengths in UTF-8.
bool MatchesPattern(std::string_view pattern, std::string_view name);

// A pattern decoded once, for matching many names without allocating (instances in expansion).
class NamePattern {
 public:
  explicit NamePattern(std::string_view pattern);

  // Same as MatchesPattern(pattern, name).
  bool Matches(std::string_view name) const;
  // True for "*", "**", ...: every name matches, so callers can skip the names.
  bool matches_everything() const;
  bool has_wildcard() const;

 private:
  // A '*' of the pattern; no name unit (perfdata/case_folding.h) equals it.
  static constexpr char32_t kStar = 0xFFFFFFFF;
  std::vector<char32_t> units_;  // case-folded, or kStar
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_NAME_PATTERN_H_
