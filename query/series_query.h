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
#include <string>
#include <vector>

#include "base/status.h"
#include "perfdata/calculator.h"
#include "perfdata/counter_path.h"
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
  // The most bytes of samples a read may restore to compute the answer, with or without a step,
  // by CheckEstimate's estimate: what bounds a read's memory, set by the server rather than the
  // reader.
  uint64_t max_bytes = uint64_t{1} << 30;
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

// What tells series apart within a host: the counter (object, counter, type) and the instance.
std::string SeriesKey(uint32_t object_index, uint32_t counter_index, uint32_t counter_type,
                      const std::string& identity_key);

// What AddHostSeries does with each series once the host's samples are walked: resampled to
// `options`' step (from `first_sample_ns`, the host's first sample, unless the options name the
// first boundary), with statistics when asked.
void FinishSeries(Series& series, const QueryOptions& options, int64_t first_sample_ns);

// Moves `part` (hosts' series computed apart, in parallel) to the end of `answer`, with the
// limit counted over the whole, as AddHostSeries counts it.
Status AppendAnswer(QueryAnswer&& part, const QueryOptions& options, QueryAnswer& answer);

// One query's samples of a host in a read, known before they are loaded: the newest of them
// (restored as the read would restore it) and how many the read holds.
struct ProbeSample {
  HostSample sample;
  size_t samples = 0;
};

// The points AddHostSeries would add for `host`, estimated from one sample of each query the read
// holds: each counter of an instance the paths select in a probe counts once per sample of its
// query, and one that several queries collect counts once, for the query with the most samples
// (as AddHostSeries keeps one series of it). Exact while the selection stays what it is in the
// probes; instances that come and go between samples make it off either way.
size_t EstimatePoints(const std::string& host, std::span<const ProbeSample> probes,
                      std::span<const CounterPath> paths, const QueryOptions& options);
// At least EstimatePoints, without walking the probes: every value of every object in each probe,
// once per sample of its query (SIZE_MAX when a probe does not read).
size_t PointsAtMost(std::span<const ProbeSample> probes);

// What a read of one host is estimated to hold before its samples are loaded.
struct HostEstimate {
  std::string host;
  size_t samples = 0;  // in the range
  size_t points = 0;   // EstimatePoints
  uint64_t bytes = 0;  // of samples restored
};

// kResourceExhausted when the hosts' estimates together exceed options.max_bytes, or
// options.max_points (without a step, as AddHostSeries counts them): a read refused before it
// loads what it could not hold. The message gives the estimate, the hosts that weigh most and how
// to narrow the read.
Status CheckEstimate(std::span<const HostEstimate> hosts, const QueryOptions& options);

// The same for one host, into a new answer.
Result<QueryAnswer> RunQuery(const HostSamples& host, std::span<const CounterPath> paths,
                             const QueryOptions& options = {});

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_SERIES_QUERY_H_
