#include "query/text_table.h"

#include <algorithm>

#include "perfdata/display_text.h"

namespace perfhive::query {

ShownText ShownCell(std::string_view text) {
  ShownText shown;
  shown.text = EscapeForDisplay(TruncateUtf8(text, kMaxCellBytes));
  shown.width = DisplayWidth(shown.text);
  return shown;
}

void PrintTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                const std::string& indent) {
  std::vector<std::vector<ShownText>> shown;
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    shown.emplace_back();
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) {
      shown.back().push_back(ShownCell(row[i]));
      widths[i] = std::max(widths[i], shown.back()[i].width);
    }
  }
  for (const auto& row : shown) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i].text;
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].width + 2, ' ');
    }
    out << line << "\n";
  }
}

}  // namespace perfhive::query
