// Renderers over a QueryAnswer, to any ostream: a table for people, CSV in typeperf's layout
// for spreadsheets and scripts written for typeperf, JSON for everything else.
// docs/query_semantics.md shows each format.

#ifndef PERFHIVE_QUERY_RENDERERS_H_
#define PERFHIVE_QUERY_RENDERERS_H_

#include <cstddef>
#include <iosfwd>

#include "query/series.h"

namespace perfhive::query {

struct RenderOptions {
  bool raw = false;  // also the raw value (and base) of each point's newer sample
  size_t width = 0;  // table: the terminal's width, 0 for no limit (long paths are cut)
};

// Aligned columns with units. One row per series and point (TIME PATH PID VALUE UNIT and the
// status where the value is not valid); with statistics, one row per series with its figures;
// compared with an earlier window, one row per series with both means, their difference and
// ratio.
void RenderTable(const QueryAnswer& answer, const RenderOptions& options, std::ostream& out);

// typeperf's CSV: the header "(PDH-CSV 4.0) (Coordinated Universal Time)(0)" then one column
// per series (its current full path), one row per sample time ("MM/DD/YYYY HH:MM:SS.mmm", UTC),
// every cell double-quoted, values with six decimals, a missing or invalid value as " ", lines
// ending in CRLF as typeperf writes them on Windows.
void RenderCsv(const QueryAnswer& answer, std::ostream& out);

// The JSON of a read, for `perfhive query --format json` and the HTTP API's /api/v1/read alike
// (docs/query_semantics.md, "JSON"): {"series":[...],"warnings":[...]}, each series
// {"path","host","object","instance" (null without),"counter"[,"pid","tid","start","identity"],
// "type","counter_type","unit","times","values","statuses"[,"last_status"][,"paths",
// "point_paths"][,"raw"[,"bases"]][,"statistics"]}. The points are columns: "times" in Unix
// milliseconds, "values" null unless the status is a success, "statuses" PDH status codes.
// "paths" and "point_paths" appear when the instance's path changed, "raw" and "bases" with
// options.raw. An aggregated series adds "aggregate": {"function","by","group","members",
// "contributors"} (contributors per point); a compared one "baseline": {"offset_ms","times",
// "values","mean","current_mean","difference","ratio"} (times moved to line up).
void RenderJson(const QueryAnswer& answer, const RenderOptions& options, std::ostream& out);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_RENDERERS_H_
