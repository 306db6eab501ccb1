#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "query/renderers.h"
#include "query/units.h"

namespace perfhive::query {
namespace {

std::string Fixed(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

std::string ProcessOf(const Series& series) {
  if (!series.identity.pid) return "-";
  std::string text = std::to_string(*series.identity.pid);
  if (series.identity.tid) text += "/" + std::to_string(*series.identity.tid);
  return text;
}

// Cuts `text` to `width` characters, keeping its end (the instance and counter), marked "...".
std::string Cut(const std::string& text, size_t width) {
  if (width < 4 || text.size() <= width) return text;
  return "..." + text.substr(text.size() - (width - 3));
}

// Prints rows in aligned columns: text columns left-aligned, the rest right-aligned; column
// `path` shrinks so that a line fits `width` (0: no limit).
void PrintColumns(std::vector<std::vector<std::string>> rows, const std::vector<bool>& left,
                  size_t path, size_t width, std::ostream& out) {
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  if (width != 0) {
    size_t others = 0;
    for (size_t c = 0; c < widths.size(); ++c) others += c == path ? 0 : widths[c] + 2;
    size_t room = width > others + 20 ? width - others : 20;
    if (widths[path] > room) {
      widths[path] = room;
      for (auto& row : rows) row[path] = Cut(row[path], room);
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(widths[c] - std::min(widths[c], row[c].size()), ' ');
      line += left[c] ? row[c] + (c + 1 < row.size() ? pad : "") : pad + row[c];
      if (c + 1 < row.size()) line += "  ";
    }
    out << line << "\n";
  }
}

}  // namespace

void RenderTable(const QueryAnswer& answer, const RenderOptions& options, std::ostream& out) {
  const bool with_stats = std::any_of(answer.series.begin(), answer.series.end(),
                                      [](const Series& s) { return s.stats.has_value(); });
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> left;
  if (with_stats) {
    rows.push_back(
        {"PATH", "PID", "COUNT", "MIN", "MAX", "MEAN", "P50", "P90", "P95", "P99", "UNIT"});
    left = {true, false, false, false, false, false, false, false, false, false, true};
    for (const Series& series : answer.series) {
      std::vector<std::string> row = {series.path(), ProcessOf(series)};
      const SeriesStatistics& stats = series.stats.value_or(SeriesStatistics{});
      row.push_back(std::to_string(stats.summary.count));
      for (double figure : {stats.summary.min, stats.summary.max, stats.summary.mean, stats.p50,
                            stats.p90, stats.p95, stats.p99}) {
        row.push_back(stats.summary.count > 0 ? Fixed(figure) : "-");
      }
      row.push_back(UnitOf(series.counter_type, series.counter));
      rows.push_back(std::move(row));
    }
  } else {
    rows.push_back({"TIME", "PATH", "PID", "VALUE", "UNIT", "STATUS"});
    left = {true, true, false, false, true, true};
    if (options.raw) {
      rows[0].push_back("RAW");
      left.push_back(false);
    }
    for (const Series& series : answer.series) {
      const std::string unit = UnitOf(series.counter_type, series.counter);
      for (const Point& point : series.points) {
        const bool valid = IsSuccess(point.value.status);
        std::vector<std::string> row = {
            FormatRfc3339(point.time_ns),
            series.paths[point.path],
            ProcessOf(series),
            valid ? Fixed(point.value.value) : "-",
            unit,
            valid ? "" : std::string(PdhStatusName(point.value.status))};
        if (options.raw) {
          const RawCounter& raw = series.raw[point.raw].raw;
          row.push_back(raw.has_value ? std::to_string(raw.value) : "-");
        }
        rows.push_back(std::move(row));
      }
    }
  }
  PrintColumns(std::move(rows), left, with_stats ? 0 : 1, options.width, out);
  for (const std::string& warning : answer.warnings) out << "warning: " << warning << "\n";
}

}  // namespace perfhive::query
