#include "query/held_condition.h"

#include <charconv>
#include <cmath>
#include <utility>

#include "perfdata/calculator.h"
#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"

namespace perfhive::query {
namespace {

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

Status BadCondition(std::string_view text, const std::string& why) {
  return Status::InvalidArgument("condition \"" + std::string(text) + "\": " + why +
                                 "; give a comparison (>, >=, <, <=), a threshold and optionally "
                                 "how long it must hold, e.g. \"> 90 for 5m\"");
}

// How far beyond the threshold `value` is, in the direction the comparison looks.
double Beyond(const HeldCondition& condition, double value) {
  using Comparison = HeldCondition::Comparison;
  const bool upward =
      condition.comparison == Comparison::kAbove || condition.comparison == Comparison::kAtLeast;
  return upward ? value - condition.threshold : condition.threshold - value;
}

}  // namespace

bool HeldCondition::Meets(double value) const {
  switch (comparison) {
    case Comparison::kAbove:
      return value > threshold;
    case Comparison::kAtLeast:
      return value >= threshold;
    case Comparison::kBelow:
      return value < threshold;
    case Comparison::kAtMost:
      return value <= threshold;
  }
  return false;
}

std::string_view ComparisonSymbol(HeldCondition::Comparison comparison) {
  switch (comparison) {
    case HeldCondition::Comparison::kAbove:
      return ">";
    case HeldCondition::Comparison::kAtLeast:
      return ">=";
    case HeldCondition::Comparison::kBelow:
      return "<";
    case HeldCondition::Comparison::kAtMost:
      return "<=";
  }
  return "?";
}

Result<HeldCondition> ParseHeldCondition(std::string_view text) {
  HeldCondition condition;
  condition.text = std::string(TrimSpaces(text));
  std::string_view rest = TrimSpaces(text);
  using Comparison = HeldCondition::Comparison;
  // The two-character symbols first: ">=" also starts with ">".
  bool compared = false;
  for (Comparison comparison :
       {Comparison::kAtLeast, Comparison::kAtMost, Comparison::kAbove, Comparison::kBelow}) {
    const std::string_view symbol = ComparisonSymbol(comparison);
    if (!rest.starts_with(symbol)) continue;
    condition.comparison = comparison;
    rest.remove_prefix(symbol.size());
    compared = true;
    break;
  }
  if (!compared) return BadCondition(text, "it does not begin with a comparison");
  rest = TrimSpaces(rest);
  const char* end = rest.data() + rest.size();
  auto [after, error] = std::from_chars(rest.data(), end, condition.threshold);
  if (error != std::errc() || !std::isfinite(condition.threshold)) {
    return BadCondition(text, "no threshold (a number) after the comparison");
  }
  rest = TrimSpaces(std::string_view(after, static_cast<size_t>(end - after)));
  if (rest.empty()) return condition;
  if (!rest.starts_with("for ")) {
    return BadCondition(text, "\"" + std::string(rest) + "\" after the threshold is not \"for\"");
  }
  std::string_view span = TrimSpaces(rest.substr(4));
  Result<int64_t> duration = ParseSpan(span);
  if (!duration.ok()) {
    return BadCondition(text, "\"" + std::string(span) + "\" is not a span (30s, 5m, 1h)");
  }
  condition.for_ns = *duration;
  return condition;
}

std::vector<HeldInterval> HeldIntervals(const Series& series, const HeldCondition& condition,
                                        std::optional<int64_t> step_ns) {
  std::vector<HeldInterval> intervals;
  const std::vector<Point>& points = series.points;
  const bool measured_over_interval = NeedsTwoSamples(series.counter_type);
  size_t k = 0;
  while (k < points.size()) {
    auto meets = [&](const Point& point) {
      return IsSuccess(point.value.status) && condition.Meets(point.value.value);
    };
    if (!meets(points[k])) {
      ++k;
      continue;
    }
    HeldInterval run;
    run.from_ns = points[k].time_ns;
    if (measured_over_interval) {
      // The first value was measured since the sample (or step) before it.
      if (step_ns) {
        run.from_ns -= *step_ns;
      } else if (k > 0) {
        run.from_ns = points[k - 1].time_ns;
      }
    }
    run.extreme = points[k].value.value;
    size_t last = k;
    while (last + 1 < points.size() && meets(points[last + 1])) {
      ++last;
      if (Beyond(condition, points[last].value.value) > Beyond(condition, run.extreme)) {
        run.extreme = points[last].value.value;
      }
    }
    run.to_ns = points[last].time_ns;
    run.ongoing = last + 1 == points.size();
    if (run.to_ns - run.from_ns >= condition.for_ns) intervals.push_back(run);
    k = last + 1;
  }
  return intervals;
}

void KeepSeriesThatHeld(const HeldCondition& condition, std::optional<int64_t> step_ns,
                        QueryAnswer& answer) {
  answer.held_checked = answer.series.size();
  for (Series& series : answer.series) series.held = HeldIntervals(series, condition, step_ns);
  std::erase_if(answer.series, [](const Series& series) { return series.held.empty(); });
}

}  // namespace perfhive::query
