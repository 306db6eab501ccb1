#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "perfdata/case_folding.h"
#include "perfdata/display_text.h"
#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "query/renderers.h"
#include "query/text_table.h"
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

// Cuts `cell` to `width` columns, keeping its end (the instance and counter), marked "...".
void Cut(ShownText& cell, size_t width) {
  if (width < 4 || cell.width <= width) return;
  size_t at = 0;
  size_t rest = cell.width;
  while (rest > width - 3) {
    const size_t start = at;
    DecodeNameUnitAt(cell.text, at);
    rest -= DisplayWidth(std::string_view(cell.text).substr(start, at - start));
  }
  cell.text = "..." + cell.text.substr(at);
  cell.width = rest + 3;
}

// Prints rows in aligned columns, each cell as a text table shows it (query/text_table.h): text
// columns left-aligned, the rest right-aligned; column `path` shrinks so that a line fits `width`
// (0: no limit).
void PrintColumns(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& left,
                  size_t path, size_t width, std::ostream& out) {
  std::vector<std::vector<ShownText>> shown;
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    shown.emplace_back();
    for (size_t c = 0; c < row.size(); ++c) {
      shown.back().push_back(ShownCell(row[c]));
      widths[c] = std::max(widths[c], shown.back()[c].width);
    }
  }
  if (width != 0) {
    size_t others = 0;
    for (size_t c = 0; c < widths.size(); ++c) others += c == path ? 0 : widths[c] + 2;
    size_t room = width > others + 20 ? width - others : 20;
    if (widths[path] > room) {
      widths[path] = room;
      for (auto& row : shown) Cut(row[path], room);
    }
  }
  for (const auto& row : shown) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(widths[c] - std::min(widths[c], row[c].width), ' ');
      line += left[c] ? row[c].text + (c + 1 < row.size() ? pad : "") : pad + row[c].text;
      if (c + 1 < row.size()) line += "  ";
    }
    out << line << "\n";
  }
}

// How long an interval lasted, to the second as people write it: "59s", "29m50s", "2h05m".
std::string SpanText(int64_t span_ns) {
  const int64_t seconds = (span_ns + 500'000'000) / 1'000'000'000;
  char text[32];
  if (seconds < 60) {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(seconds));
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(seconds / 60),
                  static_cast<long long>(seconds % 60));
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds / 60 % 60));
  }
  return text;
}

}  // namespace

void RenderTable(const QueryAnswer& answer, const RenderOptions& options, std::ostream& out) {
  const bool with_stats = std::any_of(answer.series.begin(), answer.series.end(),
                                      [](const Series& s) { return s.stats.has_value(); });
  const bool compared = std::any_of(answer.series.begin(), answer.series.end(),
                                    [](const Series& s) { return s.baseline.has_value(); });
  const bool held = std::any_of(answer.series.begin(), answer.series.end(),
                                [](const Series& s) { return !s.held.empty(); });
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> left;
  auto optional = [](const std::optional<double>& value) { return value ? Fixed(*value) : "-"; };
  if (held) {
    // One row per interval a series held the read's condition.
    rows.push_back({"PATH", "PID", "FROM", "TO", "HELD", "EXTREME", "UNIT", "NOW"});
    left = {true, false, true, true, false, false, true, true};
    for (const Series& series : answer.series) {
      for (const HeldInterval& interval : series.held) {
        rows.push_back({series.path(), ProcessOf(series), FormatRfc3339(interval.from_ns),
                        FormatRfc3339(interval.to_ns), SpanText(interval.to_ns - interval.from_ns),
                        Fixed(interval.extreme), UnitOf(series.counter_type, series.counter),
                        interval.ongoing ? "holds" : ""});
      }
    }
  } else if (compared) {
    // One row per series: its mean over the range beside the earlier window's.
    rows.push_back({"PATH", "PID", "MEAN", "EARLIER", "DIFFERENCE", "RATIO", "UNIT"});
    left = {true, false, false, false, false, false, true};
    for (const Series& series : answer.series) {
      const SeriesBaseline baseline = series.baseline.value_or(SeriesBaseline{});
      rows.push_back({series.path(), ProcessOf(series), optional(baseline.current_mean),
                      optional(baseline.mean), optional(baseline.difference()),
                      optional(baseline.ratio()), UnitOf(series.counter_type, series.counter)});
    }
  } else if (with_stats) {
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
  PrintColumns(rows, left, with_stats || compared || held ? 0 : 1, options.width, out);
  // Warnings quote host and instance names.
  for (const std::string& warning : answer.warnings) {
    out << "warning: " << EscapeForDisplay(warning) << "\n";
  }
}

}  // namespace perfhive::query
