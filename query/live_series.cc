#include "query/live_series.h"

#include <algorithm>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "query/series_query.h"

namespace perfhive::query {
namespace {

// A followed path and its format, as one key: reads with another format compute other values.
std::string PathKey(const std::string& path, const FormatOptions& format) {
  return path + '\0' + std::to_string(format.scale_factor) + (format.no_scale ? "n" : "") +
         (format.times_1000 ? "k" : "") + (format.cap_100 ? "c" : "");
}

// A series of the same counter and instance as `series`, without samples, points or paths.
Series EmptyLike(const Series& series) {
  Series empty;
  empty.host = series.host;
  empty.object_index = series.object_index;
  empty.counter_index = series.counter_index;
  empty.counter_type = series.counter_type;
  empty.object = series.object;
  empty.counter = series.counter;
  empty.has_instance = series.has_instance;
  empty.instance = series.instance;
  empty.identity = series.identity;
  return empty;
}

}  // namespace

void LiveSeries::Follow(const std::vector<Followed>& paths) {
  auto parsed = std::make_shared<std::vector<Path>>();
  std::unordered_map<std::string, bool> keys;
  for (const Followed& followed : paths) {
    Result<CounterPath> path = ParseCounterPath(followed.path);
    if (!path.ok()) continue;
    if (!keys.emplace(PathKey(followed.path, followed.format), true).second) {
      // The same path and format twice: kept as long as the longest asks.
      for (Path& held : *parsed) {
        if (PathKey(held.followed.path, held.followed.format) ==
            PathKey(followed.path, followed.format)) {
          held.followed.keep_ns = std::max(held.followed.keep_ns, followed.keep_ns);
        }
      }
      continue;
    }
    parsed->push_back({followed, std::move(path).value()});
  }
  std::lock_guard lock(mutex_);
  paths_ = parsed;
  for (auto host = hosts_.begin(); host != hosts_.end();) {
    std::erase_if(host->second.paths, [&](const auto& held) { return !keys.contains(held.first); });
    host = host->second.paths.empty() ? hosts_.erase(host) : std::next(host);
  }
}

void LiveSeries::Note(const std::string& host, const HostSample* previous,
                      const HostSample& current) {
  std::shared_ptr<const std::vector<Path>> paths;
  bool chained_before = false;                 // as Chained() said before computing
  std::unordered_map<std::string, bool> held;  // the paths already held of the host
  {
    std::lock_guard lock(mutex_);
    paths = paths_;
    if (auto found = hosts_.find(host); found != hosts_.end()) {
      chained_before = Chained(found->second, previous, current);
      for (const auto& [key, path] : found->second.paths) held.emplace(key, true);
    }
  }
  if (paths->empty()) return;
  HostSamples pair{host, {}};
  if (previous != nullptr) pair.samples.push_back(*previous);
  pair.samples.push_back(current);
  // Where the older sample's values are held already, only the newer one is walked: half the
  // work. Not for a path that names instances, whose series may begin with a lead-in from the
  // older sample (an instance renamed into the path, as `java#1` becoming `java`).
  const HostSamples newer{host, {current}};
  // Computed outside the lock: the ingest's streams note their samples at once.
  struct Computed {
    std::string key;
    Status status;
    QueryAnswer answer;
    std::vector<bool> selected;
    int64_t walked_from_ns = 0;  // the older sample walked, or the newer alone
  };
  std::vector<Computed> computed(paths->size());
  for (size_t p = 0; p < paths->size(); ++p) {
    const Path& path = (*paths)[p];
    QueryOptions options;
    options.format = path.followed.format;
    computed[p].key = PathKey(path.followed.path, path.followed.format);
    const bool every_instance =
        !path.parsed.instance || (*path.parsed.instance == "*" && !path.parsed.index &&
                                  (!path.parsed.parent || *path.parsed.parent == "*"));
    const bool newer_only = chained_before && every_instance && held.contains(computed[p].key);
    computed[p].walked_from_ns = (newer_only ? newer : pair).samples.front().time_ns;
    computed[p].status =
        AddHostSeries(newer_only ? newer : pair, std::span<const CounterPath>(&path.parsed, 1),
                      options, computed[p].answer, &computed[p].selected);
  }
  const int64_t time_ns = current.time_ns;
  std::lock_guard lock(mutex_);
  Host& noted = hosts_[host];
  if (!noted.noted_ns.empty() && time_ns <= noted.noted_ns.back()) {
    // A sample older than one noted (an agent's spool replayed): the store holds it and the
    // series here do not, so only ranges after the newest noted are answered here.
    for (auto& [key, path] : noted.paths) {
      path.exact_from_ns = std::max(path.exact_from_ns, noted.noted_ns.back());
    }
    return;
  }
  const uint64_t sample = noted.samples_noted++;
  const bool chained = Chained(noted, previous, current);
  const int64_t exact_from_ns = previous != nullptr ? previous->time_ns : time_ns;
  noted.last_of_query[current.query] = time_ns;
  int64_t longest_keep = 0;
  for (size_t p = 0; p < paths->size(); ++p) {
    const Path& path = (*paths)[p];
    longest_keep = std::max(longest_keep, path.followed.keep_ns);
    auto [entry, added] = noted.paths.try_emplace(computed[p].key);
    HostPath& host_path = entry->second;
    if (added || !chained) {
      host_path.exact_from_ns =
          added ? exact_from_ns : std::max(host_path.exact_from_ns, exact_from_ns);
    }
    if (!computed[p].status.ok()) {
      // The store's read of this sample fails alike; ranges after it are answered here.
      host_path.exact_from_ns = std::max(host_path.exact_from_ns, time_ns);
      continue;
    }
    if (computed[p].selected.empty() || !computed[p].selected[0]) {
      host_path.unselected_since_ns =
          std::min(host_path.unselected_since_ns, computed[p].walked_from_ns);
    } else {
      host_path.unselected_since_ns = INT64_MAX;
      host_path.explained.clear();
    }
    std::map<std::string, Series>& of_query = host_path.by_query[current.query];
    for (const Series& series : computed[p].answer.series) {
      auto [found, first] = of_query.try_emplace(SeriesKey(
          series.object_index, series.counter_index, series.counter_type, series.identity.key));
      if (first) found->second = EmptyLike(series);
      Chain(series, path.followed.format, sample, found->second);
    }
    // Trimmed a quarter of the window at a time: every sample would move every series' samples.
    if (time_ns >= host_path.next_trim_ns) {
      Trim(host_path, time_ns - path.followed.keep_ns);
      host_path.next_trim_ns = time_ns + path.followed.keep_ns / 4;
    }
  }
  noted.noted_ns.push_back(time_ns);
  while (noted.noted_ns.size() > 1 && noted.noted_ns.front() < time_ns - longest_keep) {
    noted.noted_ns.pop_front();
  }
}

bool LiveSeries::Chained(const Host& host, const HostSample* previous, const HostSample& current) {
  auto last_of_query = host.last_of_query.find(current.query);
  return previous != nullptr && last_of_query != host.last_of_query.end() &&
         last_of_query->second == previous->time_ns;
}

void LiveSeries::Chain(const Series& computed, const FormatOptions& format, uint64_t sample,
                       Series& held) {
  const int64_t last_ns = held.raw.empty() ? INT64_MIN : held.raw.back().time_ns;
  for (size_t r = 0; r < computed.raw.size(); ++r) {
    const RawSample& raw = computed.raw[r];
    if (raw.time_ns <= last_ns) continue;  // the previous sample's, chained already
    const Point* point = nullptr;
    for (const Point& candidate : computed.points) {
      if (candidate.raw == r) point = &candidate;
    }
    // Sample numbers only tell a walk's adjacent samples apart; here they count the host's.
    const auto number = static_cast<uint32_t>(sample - (computed.raw.size() - 1 - r));
    if (point == nullptr) {
      held.raw.push_back({raw.time_ns, number, false, raw.raw});  // a lead-in
      continue;
    }
    const std::string& path = computed.paths[point->path];
    if (held.paths.empty() || held.paths.back() != path) {
      held.paths.push_back(path);
      held.path_instances.push_back(computed.path_instances[point->path]);
    }
    // The older end is this series' previous raw sample, as a read of every sample takes it.
    CounterValue value =
        ComputeCounterValue(raw.raw, held.raw.empty() ? nullptr : &held.raw.back().raw, format);
    held.raw.push_back({raw.time_ns, number, raw.selected, raw.raw});
    held.points.push_back({raw.time_ns, value, static_cast<uint32_t>(held.raw.size() - 1),
                           static_cast<uint32_t>(held.paths.size() - 1)});
  }
  if (held.has_instance) held.instance = computed.instance;
}

void LiveSeries::Trim(HostPath& path, int64_t before_ns) {
  // A range reaching before what is kept is the store's.
  path.exact_from_ns = std::max(path.exact_from_ns, before_ns);
  for (auto& [query, of_query] : path.by_query) {
    for (auto it = of_query.begin(); it != of_query.end();) {
      Series& series = it->second;
      const auto old = std::find_if(series.raw.begin(), series.raw.end(),
                                    [&](const RawSample& raw) { return raw.time_ns >= before_ns; });
      const auto dropped = static_cast<uint32_t>(old - series.raw.begin());
      if (dropped == series.raw.size()) {
        it = of_query.erase(it);
        continue;
      }
      if (dropped > 0) {
        series.raw.erase(series.raw.begin(), old);
        std::erase_if(series.points, [&](const Point& point) { return point.raw < dropped; });
        for (Point& point : series.points) point.raw -= dropped;
      }
      ++it;
    }
  }
}

std::optional<int64_t> LiveSeries::AnchorOf(const Host& host, const HostPath& path, int64_t from_ns,
                                            int64_t to_ns) {
  // The read's first sample: the newest before the range (LoadRange), of any query.
  const std::deque<int64_t>& noted = host.noted_ns;
  auto after = std::lower_bound(noted.begin(), noted.end(), from_ns);
  if (after == noted.begin() || after == noted.end() || *after > to_ns) return std::nullopt;
  const int64_t anchor_ns = *std::prev(after);
  if (anchor_ns < path.exact_from_ns) return std::nullopt;
  return anchor_ns;
}

void LiveSeries::RememberUnselected(const std::string& host, const std::string& path,
                                    const FormatOptions& format, int64_t from_ns, bool suggest,
                                    std::vector<std::string> warnings) {
  std::lock_guard lock(mutex_);
  auto held = hosts_.find(host);
  if (held == hosts_.end()) return;
  auto host_path = held->second.paths.find(PathKey(path, format));
  if (host_path == held->second.paths.end()) return;
  std::optional<int64_t> anchor_ns = AnchorOf(held->second, host_path->second, from_ns, INT64_MAX);
  if (!anchor_ns || host_path->second.unselected_since_ns > *anchor_ns) return;
  host_path->second.explained[suggest] = std::move(warnings);
}

std::optional<LiveSeries::HostAnswer> LiveSeries::Find(const std::string& host,
                                                       const std::string& path,
                                                       const FormatOptions& format, int64_t from_ns,
                                                       int64_t to_ns, bool suggest) const {
  std::lock_guard lock(mutex_);
  auto held = hosts_.find(host);
  if (held == hosts_.end()) return std::nullopt;
  auto host_path = held->second.paths.find(PathKey(path, format));
  if (host_path == held->second.paths.end()) return std::nullopt;
  std::optional<int64_t> anchor = AnchorOf(held->second, host_path->second, from_ns, to_ns);
  if (!anchor) return std::nullopt;
  const int64_t anchor_ns = *anchor;
  if (host_path->second.unselected_since_ns <= anchor_ns) {
    // Nothing selected since before the range: the store's explanation, once it gave one.
    auto explained = host_path->second.explained.find(suggest);
    if (explained == host_path->second.explained.end()) return std::nullopt;
    return HostAnswer{{}, explained->second};
  }
  // Of a counter that several queries collect, the read keeps the series with the most points
  // (the newest on a tie), as AddHostSeries does.
  std::map<std::string, Series> chosen;
  for (const auto& [query, of_query] : host_path->second.by_query) {
    for (const auto& [key, series] : of_query) {
      const auto first = std::lower_bound(
          series.raw.begin(), series.raw.end(), anchor_ns,
          [](const RawSample& raw, int64_t time_ns) { return raw.time_ns < time_ns; });
      const auto past = std::upper_bound(
          series.raw.begin(), series.raw.end(), to_ns,
          [](int64_t time_ns, const RawSample& raw) { return time_ns < raw.time_ns; });
      const auto begin = static_cast<uint32_t>(first - series.raw.begin());
      const auto end = static_cast<uint32_t>(past - series.raw.begin());
      Series part = EmptyLike(series);
      part.raw.assign(first, past);
      // The paths the points in the range had, as the read names them.
      uint32_t first_path = UINT32_MAX;
      for (const Point& point : series.points) {
        if (point.raw >= begin && point.raw < end) first_path = std::min(first_path, point.path);
      }
      for (const Point& point : series.points) {
        if (point.raw < begin || point.raw >= end) continue;
        Point kept = point;
        kept.raw -= begin;
        kept.path -= first_path;
        if (part.paths.size() <= kept.path) {
          part.paths.assign(series.paths.begin() + first_path,
                            series.paths.begin() + point.path + 1);
          part.path_instances.assign(series.path_instances.begin() + first_path,
                                     series.path_instances.begin() + point.path + 1);
        }
        // A read's first raw sample of a series has no older end: a point on it has none
        // either, whatever this series held before the range.
        if (kept.raw == 0 && NeedsTwoSamples(series.counter_type)) {
          kept.value = ComputeCounterValue(part.raw[0].raw, nullptr, format);
        }
        part.points.push_back(kept);
      }
      if (part.points.empty()) continue;
      if (part.has_instance) part.instance = part.path_instances.back().ToString();
      auto [it, added] = chosen.try_emplace(key);
      if (added) {
        it->second = std::move(part);
        continue;
      }
      auto weight = [](const Series& one) {
        return std::pair(one.points.size(), one.points.back().time_ns);
      };
      if (weight(part) > weight(it->second)) it->second = std::move(part);
    }
  }
  if (chosen.empty()) return std::nullopt;
  HostAnswer answer;
  std::vector<Series>& series = answer.series;
  series.reserve(chosen.size());
  for (auto& [key, one] : chosen) series.push_back(std::move(one));
  // In order of first appearance, as a read answers.
  std::stable_sort(series.begin(), series.end(), [](const Series& a, const Series& b) {
    return a.raw.front().time_ns < b.raw.front().time_ns;
  });
  return answer;
}

bool LiveSeries::following() const {
  std::lock_guard lock(mutex_);
  return !paths_->empty();
}

void LiveSeries::Forget(const std::string& host) {
  std::lock_guard lock(mutex_);
  hosts_.erase(host);
}

LiveSeries::Size LiveSeries::size() const {
  std::lock_guard lock(mutex_);
  Size size;
  size.hosts = hosts_.size();
  for (const auto& [name, host] : hosts_) {
    for (const auto& [key, path] : host.paths) {
      for (const auto& [query, of_query] : path.by_query) {
        size.series += of_query.size();
        for (const auto& [series_key, series] : of_query) size.raw_samples += series.raw.size();
      }
    }
  }
  return size;
}

}  // namespace perfhive::query
