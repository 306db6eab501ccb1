// ReadEngine: answers a read of PDH counter paths over time, across every host the paths'
// machines select, from samples a SampleReader lists and restores. It parses the paths, finds
// the hosts, estimates the read and refuses one over the limits before loading it, computes each
// host's series in parallel (query/series_query.h), keeps the points in the range, computes
// statistics and explains the paths that selected nothing. Its answer is the one every front
// renders: gRPC, the HTTP API (JSON and CSV), the CLI's tables.

#ifndef PERFHIVE_QUERY_READ_ENGINE_H_
#define PERFHIVE_QUERY_READ_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "perfdata/calculator.h"
#include "perfdata/counter_path.h"
#include "query/aggregation.h"
#include "query/held_condition.h"
#include "query/host_selector.h"
#include "query/live_series.h"
#include "query/ranking.h"
#include "query/sample_reader.h"
#include "query/series.h"
#include "query/series_query.h"

namespace perfhive::query {

// What a reader asks for.
struct ReadRequest {
  std::vector<std::string> paths;  // PDH counter paths, wildcards allowed; no machine: every host
  HostSelector hosts;              // and of those hosts, the ones it selects by label
  int64_t from_ns = 0;             // 0: from the first sample
  int64_t to_ns = INT64_MAX;       // to the newest
  std::optional<int64_t> step_ns;  // values between step boundaries rather than every sample
  bool statistics = false;
  bool raw = false;          // keep each point's raw sample (Series::raw)
  bool latest_only = false;  // the newest point of each series only (the newest two samples)
  FormatOptions format;      // scale factor, cap at 100
  size_t max_points = 0;     // 0: QueryOptions' default
  // The series combined by group, step by step (needs a step and the range's start): the answer
  // holds the groups' series rather than the hosts'.
  std::optional<Aggregation> aggregation;
  // Only the top or bottom N series (or groups) by a statistic over the range.
  std::optional<Ranking> ranking;
  // Each series beside itself over the window this much earlier (needs the range's start).
  std::optional<int64_t> compare_ns;
  // Only the series (or groups) that held this condition, each with the intervals it held.
  std::optional<HeldCondition> condition;
};

class ReadEngine {
 public:
  // Hosts read at once.
  static constexpr size_t kReadThreads = 8;
  // The most listed samples a read keeps between its estimate and its loading; beyond them a
  // host is listed again rather than held (a listing is about 200 bytes a sample).
  static constexpr size_t kKeptListings = 250'000;
  // Reads of at most this many hosts suggest names for an object a host lacks ("did you mean");
  // across more, a host without the object is the fleet's variety rather than a typo, and
  // restoring a whole sample of each such host would cost more than the read.
  static constexpr size_t kMostHostsSuggestedFor = 8;

  explicit ReadEngine(SampleReader& reader) : reader_(reader) {}

  // The most bytes of samples a read may restore (QueryOptions::max_bytes), estimated before it
  // loads them; reads of the latest values are bounded already.
  void set_max_bytes(uint64_t bytes) { max_bytes_ = bytes; }
  // Where hosts' labels come from, for requests that select hosts by label; without it every
  // host has none.
  void set_host_labels(HostLabelsLookup labels) { labels_ = std::move(labels); }
  // Series followed as samples arrive (query/live_series.h): a read of one path it follows
  // takes each host's series from it where it holds the range, and reads the samples of the
  // others. Null: every read reads the samples.
  void set_live_series(LiveSeries* live) { live_ = live; }

  // The series of every host the paths select (or their groups' aggregates), points in
  // [from_ns, to_ns], with their baselines and ranked when asked, and the warnings.
  // Errors: kInvalidArgument for a bad path or range, kNotFound when no host matches,
  // kResourceExhausted over a limit (saying how to narrow the read), kUnavailable when the
  // samples cannot be read now.
  Result<QueryAnswer> Read(const ReadRequest& request);

 private:
  // What a read is of, the same for every window it reads: the parsed paths, the hosts they and
  // the selector select, and those hosts' labels when the grouping is by label.
  struct SelectedHosts {
    std::vector<CounterPath> paths;
    std::vector<std::string> names;
    std::map<std::string, HostLabels> labels;
  };
  // Checks the request's paths, range and aggregation and selects its hosts. Errors as Read's.
  Result<SelectedHosts> SelectHosts(const ReadRequest& request);
  // Read's answer for one window of `hosts`, with statistics when `statistics` (to rank or
  // compare by).
  Result<QueryAnswer> ReadWindow(const ReadRequest& request, const SelectedHosts& hosts,
                                 bool statistics);
  // The series of host `name` computed from its samples (listed in `listing` when not null),
  // with the reasons the paths that selected nothing there did so, into `answer`; `hosts_read`:
  // how many hosts the read is of.
  Status ReadHost(const std::string& name, const ReadRequest& request,
                  std::span<const CounterPath> paths, const ObjectNameFilter& objects,
                  const QueryOptions& options,
                  const std::unique_ptr<SampleReader::Listing>& listing, size_t hosts_read,
                  QueryAnswer& answer);
  // Lists the range of each of `hosts` and refuses a read over a limit of `options` by the
  // estimate (CheckEstimate), before any of their samples but one per query is loaded.
  // `listings` gets the listings while they stay few (kKeptListings), null for a host to list
  // again.
  Status ListWithinLimits(const std::vector<std::string>& hosts, const ReadRequest& request,
                          const ObjectNameFilter& objects, std::span<const CounterPath> paths,
                          const QueryOptions& options,
                          std::vector<std::unique_ptr<SampleReader::Listing>>& listings);
  // Adds to `warnings` why each path that selected nothing on `host` (`selected`, by path, from
  // AddHostSeries) did so, from the host's `samples` in the range. With `suggest`, an object the
  // host lacks comes with the names closest to it among the host's objects, which costs a whole
  // sample of the host.
  void ExplainUnselected(const std::string& host, bool suggest, std::span<const HostSample> samples,
                         std::span<const CounterPath> paths, const ReadRequest& request,
                         const std::vector<bool>& selected, std::vector<std::string>& warnings);

  SampleReader& reader_;
  HostLabelsLookup labels_;
  LiveSeries* live_ = nullptr;
  uint64_t max_bytes_ = QueryOptions{}.max_bytes;
};

// Keeps of `series` the points in [from_ns, to_ns] (the newest only, with `latest_only`): points
// before the range only anchored the first interval, and one past its end is the last step
// boundary. With `statistics`, computes them over the raw samples in the range (and, for a type
// that needs two samples, the one before it, its first interval's older end).
void TrimToRange(Series& series, int64_t from_ns, int64_t to_ns, bool latest_only, bool statistics,
                 const FormatOptions& format);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_READ_ENGINE_H_
