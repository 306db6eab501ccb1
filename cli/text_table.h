// Rows printed as aligned columns for a terminal: each column as wide as its widest cell, two
// spaces between columns, the last column not padded.

#ifndef PERFHIVE_CLI_TEXT_TABLE_H_
#define PERFHIVE_CLI_TEXT_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace perfhive::cli {

void PrintTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_TEXT_TABLE_H_
