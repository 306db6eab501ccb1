#include "query/read_engine.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "perfdata/time_text.h"
#include "query/baseline.h"
#include "query/bounded_parallel.h"
#include "query/empty_answers.h"
#include "query/series_statistics.h"

namespace perfhive::query {
namespace {

// The samples taken from `from` to `to`; before them a read holds at most the older end of the
// first interval.
std::span<const HostSample> InRange(const std::vector<HostSample>& samples, int64_t from,
                                    int64_t to) {
  auto first = std::find_if(samples.begin(), samples.end(),
                            [&](const HostSample& s) { return s.time_ns >= from; });
  auto last =
      std::find_if(first, samples.end(), [&](const HostSample& s) { return s.time_ns > to; });
  return {first, last};
}

// Statistics are computed for the answer, or to rank or compare it by.
bool NeedsStatistics(const ReadRequest& request) {
  return request.statistics || request.ranking.has_value() || request.compare_ns.has_value();
}

QueryOptions OptionsOf(const ReadRequest& request, bool statistics, uint64_t max_bytes) {
  QueryOptions options;
  options.format = request.format;
  if (request.max_points != 0) options.max_points = request.max_points;
  options.newest_series = request.latest_only;
  options.keep_raw = request.raw || statistics;
  if (request.step_ns) {
    options.step_ns = *request.step_ns;
    if (request.from_ns != 0) options.first_boundary_ns = request.from_ns;
  }
  options.max_bytes = max_bytes;
  return options;
}

}  // namespace

void TrimToRange(Series& series, int64_t from_ns, int64_t to_ns, bool latest_only, bool statistics,
                 const FormatOptions& format) {
  const int64_t keep_from =
      latest_only && !series.points.empty() ? series.points.back().time_ns : from_ns;
  std::erase_if(series.points, [&](const Point& point) {
    return point.time_ns < keep_from || point.time_ns > to_ns;
  });
  if (!statistics) return;
  // A two-sample type keeps the newest sample before the range as its first interval's older
  // end; a one-sample type keeps nothing before it. Statistics read only the raw samples and the
  // type, so only those are copied, not the points.
  size_t drop = 0;
  while (drop < series.raw.size() && series.raw[drop].time_ns < from_ns) ++drop;
  if (NeedsTwoSamples(series.counter_type) && drop > 0) --drop;
  Series in_range;
  in_range.counter_type = series.counter_type;
  in_range.raw.assign(series.raw.begin() + static_cast<long>(drop), series.raw.end());
  series.stats = ComputeSeriesStatistics(in_range, format);
}

Result<QueryAnswer> ReadEngine::Read(const ReadRequest& request) {
  if (request.compare_ns &&
      (*request.compare_ns <= 0 || request.from_ns == 0 || request.latest_only)) {
    return Status::InvalidArgument(
        "a comparison shifts the range back by a span (1w): give the range's start (--since 1h, "
        "--from, from=) and a span greater than zero");
  }
  if (request.condition && request.latest_only) {
    return Status::InvalidArgument(
        "a condition held over time needs a range (--since 1h, --from, from=), not the latest "
        "values");
  }
  Result<SelectedHosts> hosts = SelectHosts(request);
  if (!hosts.ok()) return hosts.status();
  Result<QueryAnswer> answer = ReadWindow(request, *hosts, NeedsStatistics(request));
  if (!answer.ok()) return answer;
  if (request.compare_ns) {
    // The same read of the window that much earlier, ending where this one's points end.
    ReadRequest earlier = request;
    const int64_t offset = *request.compare_ns;
    int64_t end = request.from_ns;
    for (const Series& series : answer->series) {
      if (!series.points.empty()) end = std::max(end, series.points.back().time_ns);
    }
    earlier.from_ns = request.from_ns - offset;
    earlier.to_ns = std::min(request.to_ns, end) - offset;
    Result<QueryAnswer> then = ReadWindow(earlier, *hosts, true);
    if (then.ok()) {
      AttachBaselines(answer->series, then->series, offset);
      answer->warnings.insert(answer->warnings.end(), then->warnings.begin(), then->warnings.end());
    } else {
      answer->warnings.push_back("nothing to compare with in the window " +
                                 FormatRfc3339(earlier.from_ns) + " to " +
                                 FormatRfc3339(earlier.to_ns) + ": " + then.error());
    }
  }
  if (request.condition) KeepSeriesThatHeld(*request.condition, request.step_ns, *answer);
  if (request.ranking) RankSeries(answer->series, *request.ranking);
  if (!request.statistics) {
    for (Series& series : answer->series) series.stats.reset();
  }
  return answer;
}

Result<ReadEngine::SelectedHosts> ReadEngine::SelectHosts(const ReadRequest& request) {
  if (request.paths.empty()) return Status::InvalidArgument("no counter path to read");
  SelectedHosts selected;
  for (const std::string& text : request.paths) {
    Result<CounterPath> path = ParseCounterPath(text);
    if (!path.ok()) return WithPathDisplay(path.status(), text);
    selected.paths.push_back(std::move(path).value());
  }
  if (request.to_ns < request.from_ns) {
    return Status::InvalidArgument("the range ends before it begins");
  }
  if (request.aggregation) {
    if (!request.step_ns || request.latest_only) {
      return Status::InvalidArgument(
          "aggregates combine the series step by step: give a step (--step 1m, step=1m)");
    }
    if (request.from_ns == 0) {
      return Status::InvalidArgument(
          "aggregates align every host's steps to the range's start: give one (--since 1h, "
          "--from, from=)");
    }
  }
  Result<std::vector<std::string>> hosts = reader_.HostNames();
  if (!hosts.ok()) return hosts.status();
  // Labels are looked up once a host and read, only when the selector or the grouping needs them.
  const bool by_label =
      request.aggregation && request.aggregation->by.kind == GroupBy::Kind::kLabel;
  const bool need_labels = labels_ && (request.hosts.needs_labels() || by_label);
  size_t of_machines = 0;  // hosts the paths' machines match, before the selector
  for (const std::string& host : *hosts) {
    if (!std::any_of(selected.paths.begin(), selected.paths.end(),
                     [&](const CounterPath& path) { return MachineMatches(path, host); })) {
      continue;
    }
    ++of_machines;
    HostLabels labels = need_labels ? labels_(host) : HostLabels{};
    if (request.hosts.selects_everything() || request.hosts.Matches(host, labels)) {
      selected.names.push_back(host);
      if (by_label) selected.labels.emplace(host, std::move(labels));
    }
  }
  if (of_machines == 0) {
    return Status::NotFound("no host matches the paths' machines" + KnownHosts(*hosts));
  }
  if (selected.names.empty()) {
    return Status::NotFound("none of the " + std::to_string(of_machines) +
                            " hosts the paths' machines match is selected by \"" +
                            request.hosts.text() + "\" (`perfhive hosts` shows their labels)");
  }
  return selected;
}

Result<QueryAnswer> ReadEngine::ReadWindow(const ReadRequest& request, const SelectedHosts& hosts,
                                           bool statistics) {
  const std::vector<CounterPath>& paths = hosts.paths;
  const std::vector<std::string>& matched = hosts.names;
  const int64_t from = request.from_ns;
  const int64_t to = request.to_ns;
  std::optional<Aggregator> aggregator;
  if (request.aggregation) {
    aggregator.emplace(*request.aggregation, hosts.labels, from, *request.step_ns);
  }
  const QueryOptions options = OptionsOf(request, statistics, max_bytes_);
  // Only the objects the paths name are restored.
  const ObjectNameFilter objects(paths);
  // Hosts whose series a LiveSeries holds for the range are answered from it; the others, and
  // every host of a read it does not follow, from the samples.
  std::vector<std::optional<LiveSeries::HostAnswer>> live(matched.size());
  const bool suggest = matched.size() <= kMostHostsSuggestedFor;
  const bool followed = live_ != nullptr && !request.latest_only && request.paths.size() == 1;
  std::vector<std::string> stored;
  std::vector<size_t> stored_at(matched.size(), SIZE_MAX);
  for (size_t i = 0; i < matched.size(); ++i) {
    if (followed) {
      live[i] = live_->Find(matched[i], request.paths[0], request.format, from, to, suggest);
    }
    if (live[i]) continue;
    stored_at[i] = stored.size();
    stored.push_back(matched[i]);
  }
  std::vector<std::unique_ptr<SampleReader::Listing>> listings(stored.size());
  if (!request.latest_only) {
    Status within = ListWithinLimits(stored, request, objects, paths, options, listings);
    if (!within.ok()) return within;
  }
  // Each host is read and computed apart, in parallel, then joined in order.
  struct HostAnswer {
    Status status;
    QueryAnswer answer;
  };
  std::vector<HostAnswer> per_host(matched.size());
  RunBounded(matched.size(), kReadThreads, [&](size_t i) {
    const std::string& name = matched[i];
    HostAnswer& host = per_host[i];
    if (live[i]) {
      host.answer.series = std::move(live[i]->series);
      host.answer.warnings = std::move(live[i]->warnings);
      for (Series& series : host.answer.series) {
        FinishSeries(series, options, series.raw.front().time_ns);
      }
    } else if (Status s = ReadHost(name, request, paths, objects, options, listings[stored_at[i]],
                                   matched.size(), host.answer);
               !s.ok()) {
      host.status = s;
      return;
    } else if (followed && host.answer.series.empty() && !host.answer.warnings.empty()) {
      // The path selected nothing on this host: the next reads take the reason from memory
      // for as long as its samples go on selecting nothing.
      live_->RememberUnselected(name, request.paths[0], request.format, from, suggest,
                                host.answer.warnings);
    }
    if (aggregator) {
      // Folded in as each host is computed: the read never holds every host's series.
      for (Series& series : host.answer.series) {
        TrimToRange(series, from, to, false, false, options.format);
        aggregator->Add(series);
      }
      host.answer.series.clear();
    }
  });
  QueryAnswer answer;
  for (HostAnswer& host : per_host) {
    if (!host.status.ok()) return host.status;
    if (Status s = AppendAnswer(std::move(host.answer), options, answer); !s.ok()) return s;
  }
  if (aggregator) {
    answer.series = aggregator->Finish(statistics);
  } else {
    for (Series& series : answer.series) {
      TrimToRange(series, from, to, request.latest_only, statistics, options.format);
    }
  }
  return answer;
}

Status ReadEngine::ReadHost(const std::string& name, const ReadRequest& request,
                            std::span<const CounterPath> paths, const ObjectNameFilter& objects,
                            const QueryOptions& options,
                            const std::unique_ptr<SampleReader::Listing>& listing,
                            size_t hosts_read, QueryAnswer& answer) {
  const int64_t from = request.from_ns;
  const int64_t to = request.to_ns;
  Result<HostSamples> samples = request.latest_only ? reader_.LoadLatest(name, &objects)
                                : listing           ? reader_.Load(name, *listing, &objects)
                                                    : reader_.LoadRange(name, from, to, &objects);
  if (!samples.ok()) return samples.status().Prefixed(name + ": ");
  std::span<const HostSample> in_range = request.latest_only
                                             ? std::span<const HostSample>(samples->samples)
                                             : InRange(samples->samples, from, to);
  if (in_range.empty()) {
    answer.warnings.push_back(
        NoSampleInRange(name, from, to, reader_.NearestSampleTime(name, from, to)));
    return Status();
  }
  std::vector<bool> selected;
  if (Status s = AddHostSeries(*samples, paths, options, answer, &selected); !s.ok()) return s;
  ExplainUnselected(name, hosts_read <= kMostHostsSuggestedFor, in_range, paths, request, selected,
                    answer.warnings);
  return Status();
}

Status ReadEngine::ListWithinLimits(const std::vector<std::string>& hosts,
                                    const ReadRequest& request, const ObjectNameFilter& objects,
                                    std::span<const CounterPath> paths, const QueryOptions& options,
                                    std::vector<std::unique_ptr<SampleReader::Listing>>& listings) {
  std::vector<HostEstimate> estimates(hosts.size());
  std::vector<Status> failed(hosts.size());
  std::atomic<size_t> kept = 0;  // listed samples kept in `listings`
  // Host i's estimate; with `restore`, each query's newest sample is restored to learn the share
  // of the bytes the paths' objects take, else the samples' whole size is the (upper) bound.
  auto estimate_host = [&](size_t i, bool restore) {
    const std::string& name = hosts[i];
    std::unique_ptr<SampleReader::Listing> relisted;
    if (!listings[i]) {
      Result<std::unique_ptr<SampleReader::Listing>> listed =
          reader_.List(name, request.from_ns, request.to_ns);
      if (!listed.ok()) {
        failed[i] = listed.status().Prefixed(name + ": ");
        return;
      }
      relisted = std::move(listed).value();
    }
    const SampleReader::Listing& listing = listings[i] ? *listings[i] : *relisted;
    Result<std::vector<SampleReader::QueryInRange>> queries =
        reader_.Probe(name, listing, request.from_ns, &objects, restore);
    if (!queries.ok()) {
      failed[i] = queries.status().Prefixed(name + ": ");
      return;
    }
    HostEstimate& estimate = estimates[i];
    estimate = HostEstimate{};
    estimate.host = name;
    std::vector<ProbeSample> probes;
    for (SampleReader::QueryInRange& in_range : *queries) {
      estimate.samples += in_range.newest.samples;
      // Each sample restores the share of its bytes that the newest of its query restores.
      const double share =
          restore ? static_cast<double>(in_range.newest.sample.bytes->size()) /
                        static_cast<double>(std::max<int64_t>(in_range.newest_raw_size, 1))
                  : 1.0;
      estimate.bytes += static_cast<uint64_t>(static_cast<double>(in_range.raw_bytes) * share);
      probes.push_back(std::move(in_range.newest));
    }
    // With a step the answer's points are not limited (CheckEstimate): no walk to count them.
    // Nor for one host whose probes hold fewer values than the limit, counted without a walk:
    // an instant read of a whole Process object walked its probe twice (here and to answer).
    if (!options.step_ns) {
      const bool one_host = hosts.size() == 1;
      const size_t at_most = one_host ? PointsAtMost(probes) : SIZE_MAX;
      estimate.points = one_host && at_most <= options.max_points
                            ? at_most
                            : EstimatePoints(name, probes, paths, options);
    }
    if (relisted) {
      const size_t size = relisted->size();
      if (kept.fetch_add(size) + size <= kKeptListings) listings[i] = std::move(relisted);
    }
  };
  // With a step no points are counted, so the samples' whole sizes settle the byte limit without
  // restoring any when they are within it; only a read past that bound restores each query's
  // newest sample (and reads its block a second time) for the share its objects take.
  const bool bound_first = options.step_ns.has_value();
  RunBounded(hosts.size(), kReadThreads, [&](size_t i) { estimate_host(i, !bound_first); });
  for (const Status& status : failed) {
    if (!status.ok()) return status;
  }
  if (bound_first && !CheckEstimate(estimates, options).ok()) {
    RunBounded(hosts.size(), kReadThreads, [&](size_t i) { estimate_host(i, true); });
    for (const Status& status : failed) {
      if (!status.ok()) return status;
    }
  }
  return CheckEstimate(estimates, options);
}

void ReadEngine::ExplainUnselected(const std::string& host, bool suggest,
                                   std::span<const HostSample> samples,
                                   std::span<const CounterPath> paths, const ReadRequest& request,
                                   const std::vector<bool>& selected,
                                   std::vector<std::string>& warnings) {
  // Loaded once for the host, and only if a path's object is in none of the samples read.
  std::optional<HostSample> whole;
  bool loaded = false;
  auto whole_sample = [&]() -> const HostSample* {
    if (!loaded && suggest) {
      loaded = true;
      Result<HostSample> sample = reader_.WholeSampleIn(host, request.from_ns, request.to_ns);
      if (sample.ok()) whole = std::move(sample).value();
    }
    return whole ? &*whole : nullptr;
  };
  for (size_t p = 0; p < paths.size(); ++p) {
    if (selected[p] || !MachineMatches(paths[p], host)) continue;
    warnings.push_back(
        ExplainNothingSelected(host, samples, paths[p], request.paths[p], whole_sample));
  }
}

}  // namespace perfhive::query
