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

#include "base/status.h"

namespace perfhive {

// Components are name patterns (perfdata/name_pattern.h): '*' matches any run of characters;
// "`*" is a literal star and "``" a literal backtick.
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

// Two lines: the path, and a caret under its character at `column` (1-based, in characters, so
// UTF-8 names line up); control characters are shown as '?'.
std::string PointAtColumn(std::string_view text, size_t column);

// A parse error of `text` for a person: its message, then PointAtColumn's two lines when the
// error has a column.
Status WithPathDisplay(const Status& error, std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_COUNTER_PATH_H_
