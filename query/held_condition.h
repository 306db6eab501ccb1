// Conditions held over time: a threshold a series' values stay beyond for at least a duration
// ("> 90 for 5m"), and the intervals over which each series (or aggregate) held it. What
// "held" means with samples at different intervals, missing samples and invalid values is in
// docs/query_semantics.md; rules and alerts are built on the same intervals.

#ifndef PERFHIVE_QUERY_HELD_CONDITION_H_
#define PERFHIVE_QUERY_HELD_CONDITION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "query/series.h"

namespace perfhive::query {

// A threshold and how long values must stay beyond it.
struct HeldCondition {
  enum class Comparison { kAbove, kAtLeast, kBelow, kAtMost };  // >, >=, <, <=
  Comparison comparison = Comparison::kAbove;
  double threshold = 0;
  int64_t for_ns = 0;  // 0: every run counts, however short
  std::string text;    // as given, for messages

  bool Meets(double value) const;
};

// ">", ">=", "<", "<=": the comparison as conditions write it.
std::string_view ComparisonSymbol(HeldCondition::Comparison comparison);

// "> 90 for 5m", ">= 0.02 for 10m", "< 5" (no duration: any run). Errors (kInvalidArgument)
// show the form expected.
Result<HeldCondition> ParseHeldCondition(std::string_view text);

// The runs of `series`' points that meet `condition` for at least its duration, oldest first.
// A run is a maximal sequence of consecutive valid points meeting it; an invalid point, or one
// that does not meet it, ends the run. It is held from the older end of its first point's
// interval (a two-sample type: the point before it, or `step_ns` before it with a step; a
// one-sample type: its own time) to its last point's time. A run that includes the series' last
// point is ongoing.
std::vector<HeldInterval> HeldIntervals(const Series& series, const HeldCondition& condition,
                                        std::optional<int64_t> step_ns);

// Sets `held` on every series of `answer` and keeps only those with at least one interval;
// `held_checked` says how many there were.
void KeepSeriesThatHeld(const HeldCondition& condition, std::optional<int64_t> step_ns,
                        QueryAnswer& answer);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_HELD_CONDITION_H_
