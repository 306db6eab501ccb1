#include "query/series_query.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "perfdata/instance_names.h"
#include "perfdata/name_pattern.h"
#include "perfdata/path_expander.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/time_text.h"
#include "query/selection_plan.h"
#include "query/series_statistics.h"

namespace perfhive::query {
namespace {

const TitleDatabase& NoTitles() {
  static const TitleDatabase* empty = new TitleDatabase();
  return *empty;
}

// One sample opened, with the names and identities of its objects' instances, worked out the
// first time an object is asked for; processes are keyed by the host's starts seen so far.
class OpenSample {
 public:
  struct Object {
    ObjectView view;
    std::vector<InstanceView> instances;
    std::vector<InstancePathName> names;
    std::vector<InstanceIdentity> identities;
    std::unordered_map<std::string, uint32_t> by_key;  // filled on the first Find
  };

  OpenSample(const HostSample& input, uint32_t index, SnapshotReader reader, ProcessStarts& starts)
      : input_(input), index_(index), reader_(reader), starts_(starts) {}

  const HostSample& input() const { return input_; }
  uint32_t index() const { return index_; }
  const SnapshotReader& reader() const { return reader_; }

  Object& ObjectAt(const ObjectView& view) {
    auto [it, added] = objects_.try_emplace(view.position());
    if (added) {
      Object& object = it->second;
      object.view = view;
      object.instances.assign(view.instances().begin(), view.instances().end());
      object.names = NameInstances(reader_, view);
      object.identities = IdentifyInstances(view, object.names, &starts_);
    }
    return it->second;
  }

  // The instance of the first object with this title index whose identity has `key`.
  std::optional<std::pair<Object*, uint32_t>> Find(uint32_t object_index, const std::string& key) {
    std::optional<ObjectView> view = reader_.FindObject(object_index);
    if (!view) return std::nullopt;
    Object& object = ObjectAt(*view);
    if (object.by_key.empty()) {
      for (uint32_t i = 0; i < object.identities.size(); ++i) {
        object.by_key.emplace(object.identities[i].key, i);
      }
    }
    auto it = object.by_key.find(key);
    if (it == object.by_key.end()) return std::nullopt;
    return std::make_pair(&object, it->second);
  }

 private:
  const HostSample& input_;
  uint32_t index_;
  SnapshotReader reader_;
  ProcessStarts& starts_;
  std::unordered_map<uint32_t, Object> objects_;  // by byte position
};

// The raw sample of the counter (title index and type) in the older sample's instance, if
// the object there defines it.
std::optional<RawCounter> ReadOlder(const OpenSample& sample, const OpenSample::Object& object,
                                    uint32_t instance, uint32_t counter_index, uint32_t type) {
  CounterDefinitionRange counters = object.view.counters();
  for (auto it = counters.begin(); it != counters.end(); ++it) {
    if ((*it).name_index() == counter_index && (*it).type() == type) {
      return ReadRawCounter(sample.reader(), object.view, it, object.instances[instance]);
    }
  }
  return std::nullopt;
}

// How to make an answer smaller; `step` is "a step" or "a coarser step".
std::string HowToNarrow(const char* step) {
  return "; narrow the query: fewer paths or narrower wildcards (\\Process(sql*) rather than "
         "\\Process(*)), a shorter time range, or " +
         std::string(step) + "; or allow more with --max-points";
}

Status TooLarge(const std::string& host, size_t points, size_t series, const QueryOptions& o) {
  return Status::ResourceExhausted(
      "the answer would hold more than " + std::to_string(o.max_points) + " points (" +
      std::to_string(points) + " so far, in " + std::to_string(series) + " series, reading host " +
      host + ")" + HowToNarrow("a coarser step"));
}

// What AddHostSeries keeps while it walks one host's samples.
class HostWalk {
 public:
  HostWalk(const HostSamples& host, const QueryOptions& options, QueryAnswer& answer)
      : host_(host),
        options_(options),
        answer_(answer),
        first_series_(answer.series.size()),
        points_(answer.num_points()),
        keep_raw_(options.keep_raw || options.step_ns || options.statistics),
        host_prefix_("\\\\" + EscapePattern(host.host)) {}

  Status Walk(const std::vector<CounterPath>& paths) {
    selected_.assign(paths.size(), false);
    std::optional<OpenSample> previous;
    for (uint32_t i = 0; i < host_.samples.size(); ++i) {
      const HostSample& input = host_.samples[i];
      Result<SnapshotReader> reader =
          input.bytes ? SnapshotReader::Open(*input.bytes)
                      : Result<SnapshotReader>(Status::InvalidArgument("no bytes"));
      if (!reader.ok()) {
        answer_.warnings.push_back(host_.host + " at " + FormatRfc3339(input.time_ns) +
                                   ": sample skipped: " + reader.error());
        previous.reset();
        plan_.Clear();
        continue;
      }
      OpenSample current(input, i, *reader, starts_);
      if (Status s = Select(paths, current, previous ? &*previous : nullptr); !s.ok()) return s;
      previous.emplace(std::move(current));
    }
    return Status();
  }

  void Finish() {
    for (size_t s = first_series_; s < answer_.series.size(); ++s) {
      FinishSeries(answer_.series[s], options_, host_.samples[0].time_ns);
    }
  }

  // By path walked: whether it selected a counter in any sample.
  const std::vector<bool>& selected() const { return selected_; }

 private:
  Status Select(const std::vector<CounterPath>& paths, OpenSample& current, OpenSample* previous) {
    const HostSample& input = current.input();
    const SnapshotReader& reader = current.reader();
    if (plan_.Fits(reader, input.english.get(), input.localized.get())) {
      for (const SelectionPlan::Entry& entry : plan_.entries()) {
        std::optional<CounterDefinitionView> next = SelectionPlan::NextOf(reader, entry);
        if (Status s = Record(answer_.series[entry.series], SelectionPlan::ObjectOf(reader, entry),
                              SelectionPlan::CounterOf(reader, entry), next,
                              SelectionPlan::InstanceOf(reader, entry), current, previous);
            !s.ok()) {
          return s;
        }
      }
      return Status();
    }
    plan_.Begin(reader, input.english.get(), input.localized.get());
    PathExpander expander(reader, input.english ? *input.english : NoTitles(),
                          input.localized.get());
    // The expander names the machine as the snapshot does; answers name it as the agent did.
    const std::string system = reader.system_name();
    const size_t machine_length = system.empty() ? 0 : 2 + EscapePattern(system).size();
    for (size_t p = 0; p < paths.size(); ++p) {
      const CounterPath& path = paths[p];
      for (const ObjectView& object : expander.ObjectsSelected(path)) plan_.Watch(object);
      std::vector<CounterMatch> matches = expander.Expand(path);
      // A plan repeats the expansion it was made from: marking paths here marks them all.
      if (!matches.empty()) selected_[p] = true;
      for (const CounterMatch& match : matches) {
        OpenSample::Object& object = current.ObjectAt(match.object);
        const InstanceIdentity& identity = object.identities[match.instance_position];
        const size_t series_index = SeriesFor(expander, match, identity, current.index());
        plan_.Add(series_index, match);
        Series& series = answer_.series[series_index];
        if (!series.raw.empty() && series.raw.back().sample == current.index()) continue;
        std::string full_path = host_prefix_ + match.path.substr(machine_length);
        if (series.paths.empty() || series.paths.back() != full_path) {
          series.paths.push_back(std::move(full_path));
          series.path_instances.push_back(object.names[match.instance_position]);
        }
        if (series.has_instance) series.instance = object.names[match.instance_position].ToString();
        if (Status s = Record(series, match.object, match.counter, match.next, match.instance,
                              current, previous);
            !s.ok()) {
          return s;
        }
      }
    }
    plan_.Seal();
    return Status();
  }

  // The point of `series` in the current sample, from the counter of the instance given.
  Status Record(Series& series, const ObjectView& object, const CounterDefinitionView& counter,
                const std::optional<CounterDefinitionView>& next, const InstanceView& instance,
                OpenSample& current, OpenSample* previous) {
    if (!series.raw.empty() && series.raw.back().sample == current.index()) return Status();
    RawCounter raw = ReadRawCounter(SampleTimes::Of(current.reader(), object), counter,
                                    next ? &*next : nullptr, instance.counters());
    if (previous != nullptr && NeedsTwoSamples(raw.type) &&
        (series.raw.empty() || series.raw.back().sample + 1 != current.index())) {
      AddLeadIn(series, *previous);
    }
    CounterValue value = ComputeCounterValue(
        raw, series.raw.empty() ? nullptr : &series.raw.back().raw, options_.format);
    const int64_t time_ns = current.input().time_ns;
    if (!keep_raw_ && series.raw.size() > 1) {
      series.raw.erase(series.raw.begin(), series.raw.end() - 1);
    }
    series.raw.push_back({time_ns, current.index(), true, raw});
    series.points.push_back({time_ns, value,
                             keep_raw_ ? static_cast<uint32_t>(series.raw.size() - 1) : 0,
                             static_cast<uint32_t>(series.paths.size() - 1)});
    if (++points_ > options_.max_points && !options_.step_ns) {
      return TooLarge(host_.host, points_, answer_.series.size(), options_);
    }
    return Status();
  }

  // The index of the series of the match, added if new.
  size_t SeriesFor(const PathExpander& expander, const CounterMatch& match,
                   const InstanceIdentity& identity, uint32_t sample) {
    auto [it, added] =
        series_at_.try_emplace(SeriesKey(match.object.name_index(), match.counter.name_index(),
                                         match.counter.type(), identity.key),
                               answer_.series.size());
    if (added) {
      Series& series = answer_.series.emplace_back();
      series.host = host_.host;
      series.object_index = match.object.name_index();
      series.counter_index = match.counter.name_index();
      series.counter_type = match.counter.type();
      series.object = expander.DisplayName(series.object_index);
      series.counter = expander.DisplayName(series.counter_index);
      series.has_instance = match.instance.has_definition();
      series.identity = identity;
      // Room for a point in every sample left (and a lead-in), while the room reserved stays
      // within the answer's limit: growing millions of points by doubling costs more than
      // computing them.
      const size_t room = host_.samples.size() - sample + 1;
      if (reserved_ + room <= options_.max_points) {
        if (keep_raw_) series.raw.reserve(room);
        series.points.reserve(room);
        reserved_ += room;
      }
    }
    return it->second;
  }

  // The same instance's raw sample in the sample just before, so that the first point of a
  // series (or the first after a gap in its selection) has a value when the instance was there.
  void AddLeadIn(Series& series, OpenSample& previous) {
    auto found = previous.Find(series.object_index, series.identity.key);
    if (!found) return;
    std::optional<RawCounter> raw = ReadOlder(previous, *found->first, found->second,
                                              series.counter_index, series.counter_type);
    if (raw) series.raw.push_back({previous.input().time_ns, previous.index(), false, *raw});
  }

  const HostSamples& host_;
  const QueryOptions& options_;
  QueryAnswer& answer_;
  const size_t first_series_;
  size_t points_;
  const bool keep_raw_;  // every raw sample, or only those the next point needs
  const std::string host_prefix_;
  std::unordered_map<std::string, size_t> series_at_;  // object|counter|type|identity → series
  size_t reserved_ = 0;                                // points reserved for series, in all
  SelectionPlan plan_;  // the last expansion, for the samples after it that have its layout
  // By path: whether it selected a counter in any sample.
  std::vector<bool> selected_;
  // Every sample's processes are keyed by the start seen first within a tick, so that a start
  // written a unit off in one sample keeps its series and its lead-in (OpenSample::Find).
  ProcessStarts starts_;
};

}  // namespace

std::string SeriesKey(uint32_t object_index, uint32_t counter_index, uint32_t counter_type,
                      const std::string& identity_key) {
  return std::to_string(object_index) + "|" + std::to_string(counter_index) + "|" +
         std::to_string(counter_type) + "|" + identity_key;
}

void FinishSeries(Series& series, const QueryOptions& options, int64_t first_sample_ns) {
  if (options.step_ns) {
    ResampleSeries(series, options.first_boundary_ns.value_or(first_sample_ns), *options.step_ns,
                   options.format);
  }
  if (options.statistics) series.stats = ComputeSeriesStatistics(series, options.format);
}

size_t QueryAnswer::num_points() const {
  size_t points = 0;
  for (const Series& s : series) points += s.points.size();
  return points;
}

namespace {

// The host's samples by the query that took them, in order of each query's first sample; a
// sample's position (RawSample::sample) is then in its query's list.
std::vector<HostSamples> SplitByQuery(const HostSamples& host) {
  std::vector<HostSamples> parts;
  for (const HostSample& sample : host.samples) {
    auto same = [&](const HostSamples& part) { return part.samples[0].query == sample.query; };
    auto part = std::find_if(parts.begin(), parts.end(), same);
    if (part == parts.end()) {
      part = parts.insert(parts.end(), HostSamples{host.host, {}});
    }
    part->samples.push_back(sample);
  }
  return parts;
}

}  // namespace

Status AddHostSeries(const HostSamples& host, std::span<const CounterPath> paths,
                     const QueryOptions& options, QueryAnswer& answer,
                     std::vector<bool>* selected) {
  if (options.step_ns && *options.step_ns <= 0) {
    return Status::InvalidArgument("the step must be longer than zero");
  }
  if (selected != nullptr) selected->assign(paths.size(), false);
  std::vector<CounterPath> wanted;  // the host's paths, machine dropped: matched here already
  std::vector<size_t> wanted_at;    // where each is in `paths`
  for (size_t p = 0; p < paths.size(); ++p) {
    if (!MachineMatches(paths[p], host.host)) continue;
    wanted.push_back(paths[p]);
    wanted.back().machine.clear();
    wanted_at.push_back(p);
  }
  if (wanted.empty() || host.samples.empty()) return Status();
  std::vector<HostSamples> by_query = SplitByQuery(host);
  if (by_query.size() == 1) {
    HostWalk walk(host, options, answer);
    if (Status s = walk.Walk(wanted); !s.ok()) return s;
    walk.Finish();
    if (selected != nullptr) {
      for (size_t w = 0; w < wanted.size(); ++w) (*selected)[wanted_at[w]] = walk.selected()[w];
    }
  } else {
    // Each query's samples are walked apart, and a counter collected by several queries keeps
    // the series of the query that collected it most often (the newest on a tie; with
    // newest_series the newest, the most points on a tie): Global and
    // Costly samples taken in the same second are milliseconds apart, and a value computed
    // across that gap is noise (a process's % Processor Time reads 0 or 300).
    std::vector<Series> chosen;
    std::map<std::string, size_t> chosen_at;
    for (const HostSamples& part : by_query) {
      QueryAnswer computed;
      HostWalk walk(part, options, computed);
      if (Status s = walk.Walk(wanted); !s.ok()) return s;
      walk.Finish();
      if (selected != nullptr) {
        for (size_t w = 0; w < wanted.size(); ++w) {
          if (walk.selected()[w]) (*selected)[wanted_at[w]] = true;
        }
      }
      for (const std::string& warning : computed.warnings) {
        if (std::find(answer.warnings.begin(), answer.warnings.end(), warning) ==
            answer.warnings.end()) {
          answer.warnings.push_back(warning);
        }
      }
      for (Series& series : computed.series) {
        auto [it, added] =
            chosen_at.try_emplace(SeriesKey(series.object_index, series.counter_index,
                                            series.counter_type, series.identity.key),
                                  chosen.size());
        if (added) {
          chosen.push_back(std::move(series));
          continue;
        }
        Series& held = chosen[it->second];
        auto last_time = [](const Series& one) {
          return one.points.empty() ? INT64_MIN : one.points.back().time_ns;
        };
        auto by_points = std::pair(series.points.size(), last_time(series));
        auto held_by_points = std::pair(held.points.size(), last_time(held));
        bool better = options.newest_series
                          ? std::pair(by_points.second, by_points.first) >
                                std::pair(held_by_points.second, held_by_points.first)
                          : by_points > held_by_points;
        if (better) held = std::move(series);
      }
    }
    for (Series& series : chosen) answer.series.push_back(std::move(series));
  }
  if (size_t points = answer.num_points(); points > options.max_points) {
    return TooLarge(host.host, points, answer.series.size(), options);
  }
  return Status();
}

Status AppendAnswer(QueryAnswer&& part, const QueryOptions& options, QueryAnswer& answer) {
  const std::string host = part.series.empty() ? std::string() : part.series.back().host;
  if (answer.series.empty()) {
    answer.series = std::move(part.series);  // the first host's (a read of one: the answer)
  } else {
    std::move(part.series.begin(), part.series.end(), std::back_inserter(answer.series));
  }
  std::move(part.warnings.begin(), part.warnings.end(), std::back_inserter(answer.warnings));
  if (size_t points = answer.num_points(); points > options.max_points) {
    return TooLarge(host, points, answer.series.size(), options);
  }
  return Status();
}

size_t EstimatePoints(const std::string& host, std::span<const ProbeSample> probes,
                      std::span<const CounterPath> paths, const QueryOptions& options) {
  // Each probe alone, one point per series, with nothing that limits or resamples.
  QueryOptions one_sample = options;
  one_sample.max_points = SIZE_MAX;
  one_sample.step_ns.reset();
  one_sample.statistics = false;
  one_sample.keep_raw = false;
  std::unordered_map<std::string, size_t> samples_of;  // series key → its query's samples, most
  for (const ProbeSample& probe : probes) {
    QueryAnswer answer;
    // Without a step or a limit it cannot fail.
    (void)AddHostSeries(HostSamples{host, {probe.sample}}, paths, one_sample, answer);
    // A walk makes one series per key, so a host's only query needs no merging by key.
    if (probes.size() == 1) return answer.series.size() * probe.samples;
    for (const Series& series : answer.series) {
      size_t& samples = samples_of[SeriesKey(series.object_index, series.counter_index,
                                             series.counter_type, series.identity.key)];
      samples = std::max(samples, probe.samples);
    }
  }
  size_t points = 0;
  for (const auto& [key, samples] : samples_of) points += samples;
  return points;
}

size_t PointsAtMost(std::span<const ProbeSample> probes) {
  size_t points = 0;
  for (const ProbeSample& probe : probes) {
    if (!probe.sample.bytes) return SIZE_MAX;
    Result<SnapshotReader> reader = SnapshotReader::Open(*probe.sample.bytes);
    if (!reader.ok()) return SIZE_MAX;
    size_t values = 0;
    for (const ObjectView& object : reader->objects()) {
      if (!object.has_data()) continue;
      values += size_t{object.num_counters()} *
                static_cast<size_t>(std::max<int32_t>(object.num_instances(), 1));
    }
    if (probe.samples != 0 && values > (SIZE_MAX - points) / probe.samples) return SIZE_MAX;
    points += values * probe.samples;
  }
  return points;
}

namespace {

// "12345 bytes", or in MiB from one MiB up.
std::string SizeText(uint64_t bytes) {
  if (bytes < (uint64_t{1} << 20)) return std::to_string(bytes) + " bytes";
  std::string mib = std::to_string(bytes * 10 / (uint64_t{1} << 20));
  return mib.substr(0, mib.size() - 1) + "." + mib.back() + " MiB";
}

// The few hosts that weigh most by `weight`, each described by `describe`, and how many others.
std::string Heaviest(std::span<const HostEstimate> hosts,
                     const std::function<uint64_t(const HostEstimate&)>& weight,
                     const std::function<std::string(const HostEstimate&)>& describe) {
  constexpr size_t kNamed = 3;
  std::vector<const HostEstimate*> heaviest;
  for (const HostEstimate& host : hosts) heaviest.push_back(&host);
  const size_t named = std::min(kNamed, heaviest.size());
  std::partial_sort(
      heaviest.begin(), heaviest.begin() + static_cast<long>(named), heaviest.end(),
      [&](const HostEstimate* a, const HostEstimate* b) { return weight(*a) > weight(*b); });
  std::string text;
  for (size_t i = 0; i < named; ++i) {
    text += (i == 0 ? "" : ", ") + heaviest[i]->host + " " + describe(*heaviest[i]) + " in " +
            std::to_string(heaviest[i]->samples) + " samples";
  }
  if (named < hosts.size()) {
    text += ", and " + std::to_string(hosts.size() - named) + " other hosts";
  }
  return text;
}

}  // namespace

Status CheckEstimate(std::span<const HostEstimate> hosts, const QueryOptions& options) {
  size_t samples = 0;
  size_t points = 0;
  uint64_t bytes = 0;
  for (const HostEstimate& host : hosts) {
    samples += host.samples;
    points += host.points;
    bytes += host.bytes;
  }
  const std::string estimated = " in " + std::to_string(samples) +
                                " samples, estimated from each host's newest before reading them: ";
  if (bytes > options.max_bytes) {
    return Status::ResourceExhausted(
        "the read would restore more than the server's limit of " + SizeText(options.max_bytes) +
        " of samples (about " + SizeText(bytes) + estimated +
        Heaviest(
            hosts, [](const HostEstimate& host) { return host.bytes; },
            [](const HostEstimate& host) { return SizeText(host.bytes); }) +
        "); narrow the query: fewer hosts, paths of fewer objects, or a shorter time range (a "
        "step is computed from every sample too); or raise the server's max_query_bytes");
  }
  if (!options.step_ns && points > options.max_points) {
    return Status::ResourceExhausted(
        "the answer would hold more than " + std::to_string(options.max_points) +
        " points (about " + std::to_string(points) + estimated +
        Heaviest(
            hosts, [](const HostEstimate& host) { return host.points; },
            [](const HostEstimate& host) { return std::to_string(host.points) + " points"; }) +
        ")" + HowToNarrow("a step"));
  }
  return Status();
}

Result<QueryAnswer> RunQuery(const HostSamples& host, std::span<const CounterPath> paths,
                             const QueryOptions& options) {
  QueryAnswer answer;
  if (Status s = AddHostSeries(host, paths, options, answer); !s.ok()) return s;
  return answer;
}

}  // namespace perfhive::query
