// RunQuery: selects counters by PDH paths in every sample of one host and computes their values
// over time with perfdata's calculator, one series per counter of one instance, following
// instances by identity (query/instance_identity.h); optionally resampled to a step and with
// statistics. docs/query_semantics.md gives the rules.

#ifndef PERFHIVE_QUERY_SERIES_QUERY_H_
#define PERFHIVE_QUERY_SERIES_QUERY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/counter_path.h"
#include "perfdata/status.h"
#include "query/host_samples.h"
#include "query/series.h"

namespace perfhive::query {

struct QueryOptions {
  FormatOptions format;
  // Resample: one point per step boundary, first_boundary_ns + k·step_ns, computed from the
  // last raw samples at or before consecutive boundaries.
  std::optional<int64_t> step_ns;
  std::optional<int64_t> first_boundary_ns;  // default: the host's first sample time
  bool statistics = false;
  // Whether series keep every raw sample (Series::raw, which points index): for raw output.
  // Without it, and without a step or statistics (which need them), a series keeps only the
  // samples the next point needs, and points index nothing: a long read then holds a third of
  // the memory.
  bool keep_raw = true;
  // The most points the whole answer may hold (series × points); more is an error that says
  // how to narrow the query.
  size_t max_points = 2'000'000;
  // Of a counter that several queries collect, keep the series whose last point is newest (a
  // read of the latest values) rather than the one with the most points (a read over time).
  bool newest_series = false;
};

// Adds the series of one host to `answer` (call once per host; the limit counts the whole
// answer). Paths whose machine does not match the host select nothing. `selected` (optional)
// gets, for each of `paths`, whether it selected a counter in any sample: a path that did not is
// one to explain (query/empty_answers.h). Errors: kResourceExhausted for the limit,
// kInvalidArgument for a bad option.
Status AddHostSeries(const HostSamples& host, std::span<const CounterPath> paths,
                     const QueryOptions& options, QueryAnswer& answer,
                     std::vector<bool>* selected = nullptr);

// Moves `part` (hosts' series computed apart, in parallel) to the end of `answer`, with the
// limit counted over the whole, as AddHostSeries counts it.
Status AppendAnswer(QueryAnswer&& part, const QueryOptions& options, QueryAnswer& answer);

// The same for one host, into a new answer.
Result<QueryAnswer> RunQuery(const HostSamples& host, std::span<const CounterPath> paths,
                             const QueryOptions& options = {});

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_SERIES_QUERY_H_
