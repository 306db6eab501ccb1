// Rows printed as aligned columns for a terminal: each column as wide as its widest cell, two
// spaces between columns, the last column not padded.

#ifndef PERFHIVE_QUERY_TEXT_TABLE_H_
#define PERFHIVE_QUERY_TEXT_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace perfhive::query {

// Each line starts with `indent` (a table under a heading).
void PrintTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                const std::string& indent = "");

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_TEXT_TABLE_H_
