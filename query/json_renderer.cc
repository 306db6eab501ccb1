#include <charconv>
#include <cstdio>
#include <ostream>
#include <string_view>

#include "perfdata/case_folding.h"
#include "perfdata/counter_type.h"
#include "perfdata/display_text.h"
#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "query/renderers.h"
#include "query/units.h"

namespace perfhive::query {
namespace {

// A JSON string that is valid whatever `text` holds: each byte that is not UTF-8 reads as U+FFFD
// (as nlohmann::json's dump does with error_handler_t::replace), and controls and the other code
// points unsafe to display (perfdata/display_text.h) are written as \u escapes, which lose
// nothing and act on no terminal the JSON is printed to.
void String(std::ostream& out, std::string_view text) {
  auto escape = [&](unsigned unit) {
    char escaped[16];
    std::snprintf(escaped, sizeof escaped, "\\u%04x", unit);
    out << escaped;
  };
  out << '"';
  size_t plain = 0;  // where the run of characters written as they are began
  auto write_plain = [&](size_t end) {
    out.write(text.data() + plain, static_cast<std::streamsize>(end - plain));
  };
  for (size_t at = 0; at < text.size();) {
    const char byte = text[at];
    if (byte >= 0x20 && byte < 0x7F && byte != '"' && byte != '\\') {  // most names are ASCII
      ++at;
      continue;
    }
    const size_t start = at;
    const char32_t c = DecodeNameUnitAt(text, at);
    const bool as_is = c < kInvalidUtf8Byte && c != U'"' && c != U'\\' && c != U'\n' &&
                       c != U'\r' && c != U'\t' && !IsUnsafeToDisplay(c);
    if (as_is) continue;
    write_plain(start);
    plain = at;
    if (c >= kInvalidUtf8Byte) {
      out << "\xEF\xBF\xBD";  // U+FFFD
    } else if (c == U'"') {
      out << "\\\"";
    } else if (c == U'\\') {
      out << "\\\\";
    } else if (c == U'\n') {
      out << "\\n";
    } else if (c == U'\r') {
      out << "\\r";
    } else if (c == U'\t') {
      out << "\\t";
    } else if (c > 0xFFFF && IsUnsafeToDisplay(c)) {
      escape(0xD800 + ((c - 0x10000) >> 10));  // a surrogate pair
      escape(0xDC00 + ((c - 0x10000) & 0x3FF));
    } else {
      escape(static_cast<unsigned>(c));
    }
  }
  write_plain(text.size());
  out << '"';
}

// The shortest text that reads back as the same double.
void Number(std::ostream& out, double value) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, value);
  out << std::string_view(text, result.ptr - text);
}

void Key(std::ostream& out, std::string_view key) {
  String(out, key);
  out << ':';
}

void Statistics(std::ostream& out, const SeriesStatistics& stats) {
  out << "{";
  Key(out, "status");
  String(out, PdhStatusName(stats.summary.status));
  out << ",";
  Key(out, "count");
  out << stats.summary.count << ",";
  Key(out, "invalid");
  out << stats.summary.invalid;
  if (stats.summary.count > 0) {
    const std::pair<const char*, double> figures[] = {
        {"min", stats.summary.min}, {"max", stats.summary.max}, {"mean", stats.summary.mean},
        {"p50", stats.p50},         {"p90", stats.p90},         {"p95", stats.p95},
        {"p99", stats.p99}};
    for (const auto& [name, value] : figures) {
      out << ",";
      Key(out, name);
      Number(out, value);
    }
  }
  out << "}";
}

void PointJson(std::ostream& out, const Series& series, const Point& point,
               const RenderOptions& options) {
  out << "{";
  Key(out, "time");
  String(out, FormatRfc3339(point.time_ns));
  out << ",";
  Key(out, "value");
  if (IsSuccess(point.value.status)) {
    Number(out, point.value.value);
  } else {
    out << "null";
  }
  out << ",";
  Key(out, "status");
  String(out, PdhStatusName(point.value.status));
  if (point.path + 1 != series.paths.size()) {
    out << ",";
    Key(out, "path");
    String(out, series.paths[point.path]);
  }
  if (options.raw) {
    const RawCounter& raw = series.raw[point.raw].raw;
    out << ",";
    Key(out, "raw");
    if (raw.has_value) {
      out << raw.value;
    } else {
      out << "null";
    }
    if (raw.has_base) {
      out << ",";
      Key(out, "base");
      out << raw.base;
    }
  }
  out << "}";
}

void SeriesJson(std::ostream& out, const Series& series, const RenderOptions& options) {
  out << "{";
  Key(out, "path");
  String(out, series.path());
  out << ",";
  Key(out, "host");
  String(out, series.host);
  out << ",";
  Key(out, "object");
  String(out, series.object);
  out << ",";
  Key(out, "instance");
  if (series.has_instance) {
    String(out, series.instance);
  } else {
    out << "null";
  }
  out << ",";
  Key(out, "counter");
  String(out, series.counter);
  if (series.identity.pid) {
    out << ",";
    Key(out, "pid");
    out << *series.identity.pid;
  }
  if (series.identity.tid) {
    out << ",";
    Key(out, "tid");
    out << *series.identity.tid;
  }
  out << ",";
  Key(out, "type");
  String(out, CounterTypeName(series.counter_type));
  out << ",";
  Key(out, "unit");
  String(out, UnitOf(series.counter_type, series.counter));
  out << ",";
  Key(out, "points");
  out << "[";
  for (size_t p = 0; p < series.points.size(); ++p) {
    if (p != 0) out << ",";
    PointJson(out, series, series.points[p], options);
  }
  out << "]";
  if (series.stats) {
    out << ",";
    Key(out, "stats");
    Statistics(out, *series.stats);
  }
  out << "}";
}

}  // namespace

void RenderJson(const QueryAnswer& answer, const RenderOptions& options, std::ostream& out) {
  out << "{";
  Key(out, "series");
  out << "[";
  for (size_t s = 0; s < answer.series.size(); ++s) {
    out << (s == 0 ? "\n" : ",\n");
    SeriesJson(out, answer.series[s], options);
  }
  out << "],\n";
  Key(out, "warnings");
  out << "[";
  for (size_t w = 0; w < answer.warnings.size(); ++w) {
    if (w != 0) out << ",";
    String(out, answer.warnings[w]);
  }
  out << "]}\n";
}

}  // namespace perfhive::query
