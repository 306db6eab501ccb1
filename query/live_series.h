// LiveSeries: the series of a few followed paths, taken from each host's samples as they are
// stored and kept for a few minutes, so that reads of those minutes (the alerting rules', every
// few seconds, docs/alerts.md) are answered from memory instead of listing, restoring and
// computing the same samples again at every evaluation.
//
// What it answers is what a read of the store answers. Each sample's values are computed by the
// engine's own AddHostSeries from the sample and the host's previous sample of its query, and
// chained onto the host's series as one read over all of them chains them: a point's older end
// is its series' previous raw sample (or the instance's lead-in in the sample before). Where it
// cannot be sure of that, it answers nothing and the store answers: a range reaching back before
// what it followed in order (the server's first minutes, a host's new stream whose first sample
// has no predecessor at hand, a sample that arrived after a newer one), a host without a sample
// in the range, or a path that selected nothing there (the store's read explains why).

#ifndef PERFHIVE_QUERY_LIVE_SERIES_H_
#define PERFHIVE_QUERY_LIVE_SERIES_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/counter_path.h"
#include "query/host_samples.h"
#include "query/series.h"

namespace perfhive::query {

class LiveSeries {
 public:
  // A path followed, with the format its reads ask for, and how long each host's samples of it
  // are kept.
  struct Followed {
    std::string path;
    FormatOptions format;
    int64_t keep_ns = 0;
  };

  // Follows `paths` from now on (those that do not parse are left out: reads of them fail on
  // their own). What is held of a path followed before, with the same format, is kept.
  void Follow(const std::vector<Followed>& paths);

  // Takes `current`, just stored for `host`, with `previous`, the host's sample of the same query
  // just before it (null: none at hand, as for a stream's first).
  void Note(const std::string& host, const HostSample* previous, const HostSample& current);

  // Whether any path is followed (else Note does nothing).
  bool following() const;

  // Forgets what is held of `host` (a sample it noted was then refused by the store).
  void Forget(const std::string& host);

  // What a read of one host over a range answers: its series, or why the path selected
  // nothing there.
  struct HostAnswer {
    std::vector<Series> series;
    std::vector<std::string> warnings;
  };

  // The series `path` (followed with `format`) selects on `host` with the raw samples and points
  // a read of [from_ns, to_ns] computes before resampling: from the host's newest sample before
  // the range on. Where it selected nothing in the range, the store's explanation remembered for
  // this run of samples (with the object names it suggests when `suggest`). Nothing when either
  // may differ from the store's answer (see above).
  std::optional<HostAnswer> Find(const std::string& host, const std::string& path,
                                 const FormatOptions& format, int64_t from_ns, int64_t to_ns,
                                 bool suggest = false) const;

  // Remembers `warnings`, the store's answer to a read of [from_ns, to_ns] of `host` in which
  // `path` selected nothing, for the next reads of ranges within the same run of samples that
  // select nothing: a host that lacks a rule's counter is not read again at every evaluation.
  // Kept only when the path selected nothing in every sample noted in that range.
  void RememberUnselected(const std::string& host, const std::string& path,
                          const FormatOptions& format, int64_t from_ns, bool suggest,
                          std::vector<std::string> warnings);

  // How many hosts, series and raw samples it holds (for the benchmarks and tests).
  struct Size {
    size_t hosts = 0;
    size_t series = 0;
    size_t raw_samples = 0;
  };
  Size size() const;

 private:
  // A followed path, parsed.
  struct Path {
    Followed followed;
    CounterPath parsed;
  };
  // One path's series on one host, by query and then by SeriesKey.
  struct HostPath {
    // Ranges whose newest sample before them is at or after this are answered as the store
    // would: every sample from then on was noted in order, each with its predecessor, and
    // nothing since then was trimmed.
    int64_t exact_from_ns = INT64_MAX;
    // Since when every sample noted selected nothing (INT64_MAX: the newest selected something),
    // and the store's explanations for that run, without and with suggestions.
    int64_t unselected_since_ns = INT64_MAX;
    std::map<bool, std::vector<std::string>> explained;
    int64_t next_trim_ns = INT64_MIN;  // when Note trims it next
    std::map<std::string, std::map<std::string, Series>> by_query;
  };
  // What is held of one host.
  struct Host {
    std::deque<int64_t> noted_ns;  // the times of the samples noted, every query, kept as long
    std::map<std::string, int64_t> last_of_query;     // the newest noted of each query
    std::unordered_map<std::string, HostPath> paths;  // by Followed::path + format
    uint64_t samples_noted = 0;                       // numbers RawSample::sample
  };

  // Whether `previous` is the sample of `current`'s query noted last of `host`: the values of a
  // pair are chained onto what is held only then; else (a stream's first sample, one missed)
  // ranges before the pair are the store's.
  static bool Chained(const Host& host, const HostSample* previous, const HostSample& current);
  // Appends `computed` (its values in the pair just noted) to `held`, the host's series of it.
  static void Chain(const Series& computed, const FormatOptions& format, uint64_t sample,
                    Series& held);
  // The newest sample noted before `from_ns`, if ranges from it are answered here.
  static std::optional<int64_t> AnchorOf(const Host& host, const HostPath& path, int64_t from_ns,
                                         int64_t to_ns);
  // Drops what `path` holds from before `before_ns`.
  static void Trim(HostPath& path, int64_t before_ns);

  mutable std::mutex mutex_;
  std::shared_ptr<const std::vector<Path>> paths_ = std::make_shared<std::vector<Path>>();
  std::unordered_map<std::string, Host> hosts_;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_LIVE_SERIES_H_
