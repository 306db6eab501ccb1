// Rows printed as aligned columns for a terminal: each column as wide as its widest cell, two
// spaces between columns, the last column not padded. Cells hold what hosts sent as often as not
// (names, versions, health messages), so each is shown as ShownCell makes it: a row is one line,
// nothing in it reaches the terminal raw, and a cell of megabytes does not fill the screen.

#ifndef PERFHIVE_QUERY_TEXT_TABLE_H_
#define PERFHIVE_QUERY_TEXT_TABLE_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace perfhive::query {

// The bytes of a cell that are shown; a longer one is cut and its size noted. More than any
// host name (253 bytes) or counter path a person reads in a table.
inline constexpr size_t kMaxCellBytes = 1024;

// A cell as a table shows it, and the terminal columns it takes.
struct ShownText {
  std::string text;
  size_t width = 0;
};

// `text` cut at kMaxCellBytes and escaped (perfdata/display_text.h).
ShownText ShownCell(std::string_view text);

// Each line starts with `indent` (a table under a heading).
void PrintTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                const std::string& indent = "");

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_TEXT_TABLE_H_
