// MemorySampleReader: the query engine's SampleReader over hosts' samples held in memory, for
// tests of the engine; it counts which hosts the engine loaded.

#ifndef PERFHIVE_TESTS_QUERY_MEMORY_SAMPLE_READER_H_
#define PERFHIVE_TESTS_QUERY_MEMORY_SAMPLE_READER_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "query/sample_reader.h"

namespace perfhive::query::testing {

class MemorySampleReader final : public SampleReader {
 public:
  void Add(const std::string& host, HostSample sample) { hosts_[host].push_back(sample); }

  Result<std::vector<std::string>> HostNames() override {
    std::vector<std::string> names;
    for (const auto& [name, samples] : hosts_) names.push_back(name);
    return names;
  }
  Result<std::unique_ptr<Listing>> List(const std::string& host, int64_t from_ns,
                                        int64_t to_ns) override {
    auto listing = std::make_unique<IndexListing>();
    const std::vector<HostSample>& samples = hosts_.at(host);
    for (size_t i = 0; i < samples.size(); ++i) {
      if (samples[i].time_ns < from_ns) listing->before = i;  // the newest before the range
      if (samples[i].time_ns >= from_ns && samples[i].time_ns <= to_ns) listing->in.push_back(i);
    }
    if (listing->before != SIZE_MAX) listing->in.insert(listing->in.begin(), listing->before);
    return std::unique_ptr<Listing>(std::move(listing));
  }
  Result<std::vector<QueryInRange>> Probe(const std::string& host, const Listing& listed,
                                          int64_t from_ns, const ObjectNameFilter*,
                                          bool restore_newest) override {
    std::map<std::string, QueryInRange> by_query;
    for (size_t i : static_cast<const IndexListing&>(listed).in) {
      const HostSample& sample = hosts_.at(host)[i];
      if (sample.time_ns < from_ns) continue;
      QueryInRange& query = by_query[sample.query];
      ++query.newest.samples;
      query.raw_bytes += static_cast<int64_t>(sample.bytes->size());
      if (restore_newest) query.newest.sample = sample;
      query.newest_raw_size = static_cast<int64_t>(sample.bytes->size());
    }
    std::vector<QueryInRange> queries;
    for (auto& [name, query] : by_query) queries.push_back(std::move(query));
    if (restore_newest) probes_restored_ += queries.size();
    return queries;
  }
  Result<HostSamples> Load(const std::string& host, const Listing& listed,
                           const ObjectNameFilter*) override {
    Loaded(host);
    HostSamples samples{host, {}};
    for (size_t i : static_cast<const IndexListing&>(listed).in) {
      samples.samples.push_back(hosts_.at(host)[i]);
    }
    return samples;
  }
  Result<HostSamples> LoadRange(const std::string& host, int64_t from_ns, int64_t to_ns,
                                const ObjectNameFilter* objects) override {
    Result<std::unique_ptr<Listing>> listed = List(host, from_ns, to_ns);
    return Load(host, **listed, objects);
  }
  Result<HostSamples> LoadLatest(const std::string& host, const ObjectNameFilter*) override {
    Loaded(host);
    const std::vector<HostSample>& samples = hosts_.at(host);
    return HostSamples{host, {samples.end() - std::min<size_t>(2, samples.size()), samples.end()}};
  }
  Result<HostSample> WholeSampleIn(const std::string& host, int64_t, int64_t) override {
    whole_samples_read_ += 1;
    return hosts_.at(host).back();
  }
  // As the store chooses them: the newest Global sample at or before `at_ns` (else the newest),
  // then the newest of each other query; every object kept.
  Result<std::vector<HostSample>> BrowseSamples(const std::string& host, int64_t at_ns,
                                                const ObjectNameFilter*) override {
    Loaded(host);
    std::vector<HostSample> candidates;  // newest first
    for (const HostSample& sample : hosts_.at(host)) {
      if (sample.time_ns <= at_ns) candidates.insert(candidates.begin(), sample);
    }
    if (candidates.empty()) return Status::NotFound(host + " has no sample by then");
    auto global = std::find_if(candidates.begin(), candidates.end(),
                               [](const HostSample& sample) { return sample.query == "Global"; });
    std::vector<HostSample> browsed = {global != candidates.end() ? *global : candidates.front()};
    for (const HostSample& sample : candidates) {
      if (std::none_of(browsed.begin(), browsed.end(),
                       [&](const HostSample& kept) { return kept.query == sample.query; })) {
        browsed.push_back(sample);
      }
    }
    return browsed;
  }
  std::optional<int64_t> NearestSampleTime(const std::string& host, int64_t, int64_t) override {
    return hosts_.at(host).back().time_ns;
  }

  std::set<std::string> loaded() {
    std::lock_guard lock(mutex_);
    return loaded_;
  }
  void ClearLoaded() {
    std::lock_guard lock(mutex_);
    loaded_.clear();
  }
  size_t whole_samples_read() const { return whole_samples_read_; }
  size_t probes_restored() const { return probes_restored_; }

 private:
  struct IndexListing final : Listing {
    size_t size() const override { return in.size(); }
    size_t before = SIZE_MAX;
    std::vector<size_t> in;
  };
  void Loaded(const std::string& host) {
    std::lock_guard lock(mutex_);  // the engine loads hosts in parallel
    loaded_.insert(host);
  }

  std::map<std::string, std::vector<HostSample>> hosts_;
  std::mutex mutex_;
  std::set<std::string> loaded_;
  std::atomic<size_t> whole_samples_read_ = 0;
  std::atomic<size_t> probes_restored_ = 0;
};

}  // namespace perfhive::query::testing

#endif  // PERFHIVE_TESTS_QUERY_MEMORY_SAMPLE_READER_H_
