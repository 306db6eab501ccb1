// CounterPath: a PDH counter path, \\Machine\Object(Parent/Instance#Index)\Counter, with its
// optional parts. Every component may hold '*' wildcards. docs/counter_paths.md gives the
// grammar, the escaping that lets any name round-trip, and what is accepted unescaped.

#ifndef PERFHIVE_PERFDATA_COUNTER_PATH_H_
#define PERFHIVE_PERFDATA_COUNTER_PATH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/status.h"

namespace perfhive {

// Components are patterns: '*' matches any run of characters; "`*" is a literal star and "``"
// a literal backtick. EscapePattern turns a plain name into the pattern matching only itself.
struct CounterPath {
  std::string machine;  // without the leading "\\"; empty: any machine / the local one
  std::string object;
  std::optional<std::string> parent;
  std::optional<std::string> instance;
  std::optional<uint32_t> index;  // #Index of duplicate instances
  bool any_index = false;         // "#*", PDH's index wildcard: every duplicate; no `index` then
  std::string counter;

  bool operator==(const CounterPath&) const = default;
};

// Errors are INVALID_ARGUMENT, name the column (in characters) and what was expected there, and
// carry the column (Status::column) so a display can point at it (PointAtColumn).
Result<CounterPath> ParseCounterPath(std::string_view text);
// Escapes only what would be misread (docs/counter_paths.md), so for any path whose object and
// counter are not empty, ParseCounterPath(FormatCounterPath(p)) == p when p's components are
// patterns as ParseCounterPath or EscapePattern make them and p has no `index` if `any_index`.
// The counter is written last and as it is: the path of another counter of the same instance
// differs only after the last '\'.
std::string FormatCounterPath(const CounterPath& path);

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

// Two lines: the path, and a caret under its character at `column` (1-based, in characters, so
// UTF-8 names line up); control characters are shown as '?'.
std::string PointAtColumn(std::string_view text, size_t column);

// A parse error of `text` for a person: its message, then PointAtColumn's two lines when the
// error has a column.
Status WithPathDisplay(const Status& error, std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_COUNTER_PATH_H_
