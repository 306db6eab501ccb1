#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "perfdata/display_text.h"
#include "perfdata/time_text.h"
#include "query/renderers.h"

namespace perfhive::query {
namespace {

// "11/22/2026 10:00:01.250" from "2026-11-22T10:00:01.250Z": typeperf's local time, in UTC.
std::string TypeperfTime(int64_t unix_nanos) {
  std::string rfc = FormatRfc3339(unix_nanos, 3);
  return rfc.substr(5, 2) + "/" + rfc.substr(8, 2) + "/" + rfc.substr(0, 4) + " " +
         rfc.substr(11, 12);
}

// A cell as typeperf writes every cell: in double quotes (a quote inside is doubled, RFC 4180).
// Paths hold instance and counter names as hosts spelled them, so the text is escaped
// (perfdata/display_text.h): a row is one line, and no control acts on a terminal the CSV is
// printed to.
void Cell(std::ostream& out, std::string_view text) {
  out << '"';
  for (char c : EscapeForDisplay(text)) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

}  // namespace

void RenderCsv(const QueryAnswer& answer, std::ostream& out) {
  Cell(out, "(PDH-CSV 4.0) (Coordinated Universal Time)(0)");
  std::vector<int64_t> times;
  for (const Series& series : answer.series) {
    out << ',';
    Cell(out, series.path());
    for (const Point& point : series.points) times.push_back(point.time_ns);
  }
  out << "\r\n";
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<size_t> next(answer.series.size(), 0);  // each series' first point not written
  for (int64_t time : times) {
    Cell(out, TypeperfTime(time));
    for (size_t s = 0; s < answer.series.size(); ++s) {
      const std::vector<Point>& points = answer.series[s].points;
      out << ',';
      if (next[s] < points.size() && points[next[s]].time_ns == time) {
        const CounterValue& value = points[next[s]++].value;
        if (IsSuccess(value.status)) {
          char text[64];
          std::snprintf(text, sizeof text, "%.6f", value.value);
          Cell(out, text);
          continue;
        }
      }
      Cell(out, " ");
    }
    out << "\r\n";
  }
}

}  // namespace perfhive::query
