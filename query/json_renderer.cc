#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/case_folding.h"
#include "perfdata/counter_type.h"
#include "perfdata/display_text.h"
#include "perfdata/pdh_status.h"
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

// Unix milliseconds, as JavaScript's Date and Grafana take them (fractions where the sample
// time has them).
void Millis(std::ostream& out, int64_t time_ns) {
  if (time_ns % 1'000'000 == 0) {
    out << time_ns / 1'000'000;
  } else {
    Number(out, static_cast<double>(time_ns) / 1e6);
  }
}

// One column of points, after a comma: `write` writes point k's element.
template <typename Write>
void Column(std::ostream& out, std::string_view key, const std::vector<Point>& points,
            Write write) {
  out << ",";
  Key(out, key);
  out << "[";
  for (size_t p = 0; p < points.size(); ++p) {
    if (p != 0) out << ",";
    write(points[p]);
  }
  out << "]";
}

// The value of a point, null unless its status is a success.
void PointValue(std::ostream& out, const Point& point) {
  if (IsSuccess(point.value.status)) {
    Number(out, point.value.value);
  } else {
    out << "null";
  }
}

// A figure that may be missing, after a comma.
void OptionalFigure(std::ostream& out, std::string_view key, const std::optional<double>& value) {
  out << ",";
  Key(out, key);
  if (value) {
    Number(out, *value);
  } else {
    out << "null";
  }
}

// A JSON array of strings.
void Strings(std::ostream& out, const std::vector<std::string>& texts) {
  out << "[";
  for (size_t t = 0; t < texts.size(); ++t) {
    if (t != 0) out << ",";
    String(out, texts[t]);
  }
  out << "]";
}

// A raw value or base, null where the sample has none.
void RawNumber(std::ostream& out, bool present, uint64_t value) {
  if (present) {
    out << value;
  } else {
    out << "null";
  }
}

void OptionalNumber(std::ostream& out, std::string_view key, const std::optional<uint64_t>& value) {
  if (!value) return;
  out << ",";
  Key(out, key);
  out << *value;
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
  OptionalNumber(out, "pid", series.identity.pid);
  OptionalNumber(out, "tid", series.identity.tid);
  OptionalNumber(out, "start", series.identity.start);
  if (!series.identity.key.empty()) {
    out << ",";
    Key(out, "identity");
    String(out, series.identity.key);
  }
  out << ",";
  Key(out, "type");
  String(out, CounterTypeName(series.counter_type));
  out << ",";
  Key(out, "counter_type");
  out << series.counter_type;
  out << ",";
  Key(out, "unit");
  String(out, UnitOf(series.counter_type, series.counter));
  Column(out, "times", series.points, [&](const Point& point) { Millis(out, point.time_ns); });
  Column(out, "values", series.points, [&](const Point& point) { PointValue(out, point); });
  Column(out, "statuses", series.points,
         [&](const Point& point) { out << static_cast<uint32_t>(point.value.status); });
  if (!series.points.empty()) {
    out << ",";
    Key(out, "last_status");
    String(out, PdhStatusName(series.points.back().value.status));
  }
  // The instance's paths when it had several ("java#1" became "java"), and each point's.
  if (series.paths.size() > 1) {
    out << ",";
    Key(out, "paths");
    Strings(out, series.paths);
    Column(out, "point_paths", series.points, [&](const Point& point) { out << point.path; });
  }
  if (options.raw) {
    Column(out, "raw", series.points, [&](const Point& point) {
      const RawCounter& raw = series.raw[point.raw].raw;
      RawNumber(out, raw.has_value, raw.value);
    });
    const bool has_base =
        std::any_of(series.points.begin(), series.points.end(),
                    [&](const Point& point) { return series.raw[point.raw].raw.has_base; });
    if (has_base) {
      Column(out, "bases", series.points, [&](const Point& point) {
        const RawCounter& raw = series.raw[point.raw].raw;
        RawNumber(out, raw.has_base, raw.base);
      });
    }
  }
  if (series.aggregate) {
    const SeriesAggregate& aggregate = *series.aggregate;
    out << ",";
    Key(out, "aggregate");
    out << "{";
    Key(out, "function");
    String(out, aggregate.function);
    out << ",";
    Key(out, "by");
    String(out, aggregate.by);
    out << ",";
    Key(out, "group");
    String(out, aggregate.group);
    out << ",";
    Key(out, "members");
    out << aggregate.members << ",";
    Key(out, "contributors");
    out << "[";
    for (size_t k = 0; k < aggregate.contributors.size(); ++k) {
      out << (k == 0 ? "" : ",") << aggregate.contributors[k];
    }
    out << "]}";
  }
  if (series.baseline) {
    const SeriesBaseline& baseline = *series.baseline;
    out << ",";
    Key(out, "baseline");
    out << "{";
    Key(out, "offset_ms");
    Millis(out, baseline.offset_ns);
    Column(out, "times", baseline.points, [&](const Point& point) { Millis(out, point.time_ns); });
    Column(out, "values", baseline.points, [&](const Point& point) { PointValue(out, point); });
    OptionalFigure(out, "mean", baseline.mean);
    OptionalFigure(out, "current_mean", baseline.current_mean);
    OptionalFigure(out, "difference", baseline.difference());
    OptionalFigure(out, "ratio", baseline.ratio());
    out << "}";
  }
  if (!series.held.empty()) {
    out << ",";
    Key(out, "held");
    out << "[";
    for (size_t k = 0; k < series.held.size(); ++k) {
      const HeldInterval& held = series.held[k];
      out << (k == 0 ? "{" : ",{");
      Key(out, "from_ms");
      Millis(out, held.from_ns);
      out << ",";
      Key(out, "to_ms");
      Millis(out, held.to_ns);
      out << ",";
      Key(out, "ongoing");
      out << (held.ongoing ? "true" : "false");
      OptionalFigure(out, "extreme", held.extreme);
      out << "}";
    }
    out << "]";
  }
  if (series.stats) {
    out << ",";
    Key(out, "statistics");
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
  if (answer.held_checked > 0) {
    Key(out, "held_checked");
    out << answer.held_checked << ",\n";
  }
  Key(out, "warnings");
  Strings(out, answer.warnings);
  out << "}\n";
}

}  // namespace perfhive::query
