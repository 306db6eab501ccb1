#include "store/sample_loader.h"

#include <algorithm>
#include <span>
#include <unordered_map>
#include <utility>

#include "perfdata/title_list.h"

namespace perfhive {
namespace {

// What List lists: the store's own records of the samples.
class SnapshotListing final : public query::SampleReader::Listing {
 public:
  explicit SnapshotListing(std::vector<SnapshotInfo> samples) : listed(std::move(samples)) {}
  size_t size() const override { return listed.size(); }

  const std::vector<SnapshotInfo> listed;
};

// A listing this loader made: the engine hands back only what List gave it.
const std::vector<SnapshotInfo>& Listed(const query::SampleReader::Listing& listing) {
  return static_cast<const SnapshotListing&>(listing).listed;
}

}  // namespace

const SnapshotInfo& NewestGlobal(const std::vector<SnapshotInfo>& listed) {
  for (auto it = listed.rbegin(); it != listed.rend(); ++it) {
    if (it->query == "Global") return *it;
  }
  return listed.back();
}

std::shared_ptr<const TitleDatabase> SampleLoader::ParsedTitles(const TitleVersion* version) {
  return version == nullptr ? nullptr : Titles(version->digest);
}

std::shared_ptr<const TitleDatabase> SampleLoader::Titles(const Sha256Digest& digest) {
  {
    std::lock_guard lock(titles_mutex_);
    if (auto it = parsed_titles_.find(digest); it != parsed_titles_.end()) return it->second;
  }
  Result<TitleDatabaseRecord> record = store_.catalog().GetTitleDatabase(digest);
  if (!record.ok()) return nullptr;  // names stay indexes, as for a host without titles
  auto parsed = std::make_shared<TitleDatabase>();
  // A list that does not parse leaves names as indexes; the bytes stay stored as they came.
  (void)ParseTitleList(record->counters, /*is_help=*/false, *parsed);
  if (!record->helps.empty()) (void)ParseTitleList(record->helps, /*is_help=*/true, *parsed);
  std::lock_guard lock(titles_mutex_);
  return parsed_titles_.emplace(digest, std::move(parsed)).first->second;
}

Result<query::HostSample> SampleLoader::Load(const std::string& host, const SnapshotInfo& info) {
  Result<std::vector<uint8_t>> raw = store_.ReadSnapshot(info);
  if (!raw.ok()) return raw.status();
  Result<TitleHistories> histories = Histories(host);
  if (!histories.ok()) return histories.status();
  query::HostSample sample;
  sample.time_ns = info.sample_time_ns;
  sample.query = info.query;
  sample.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(raw).value());
  sample.english = ParsedTitles(VersionInForce(histories->english, info.sample_time_ns));
  sample.localized = ParsedTitles(VersionInForce(histories->localized, info.sample_time_ns));
  return sample;
}

Result<query::HostSamples> SampleLoader::LoadListed(const std::string& host,
                                                    std::span<const SnapshotInfo> listed,
                                                    const ObjectNameFilter* objects) {
  Result<TitleHistories> histories = Histories(host);
  if (!histories.ok()) return histories.status();
  query::HostSamples samples;
  samples.host = host;
  samples.samples.resize(listed.size());
  // Consecutive samples mostly share their databases: each version is looked up once per run.
  const TitleVersion* english_version = nullptr;
  const TitleVersion* localized_version = nullptr;
  // Runs of samples with the same databases, which `wanted` below answers alike.
  std::vector<uint32_t> runs(listed.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    query::HostSample& sample = samples.samples[i];
    sample.time_ns = listed[i].sample_time_ns;
    sample.query = listed[i].query;
    const TitleVersion* english = VersionInForce(histories->english, sample.time_ns);
    const TitleVersion* localized = VersionInForce(histories->localized, sample.time_ns);
    sample.english = i > 0 && english == english_version ? samples.samples[i - 1].english
                                                         : ParsedTitles(english);
    sample.localized = i > 0 && localized == localized_version ? samples.samples[i - 1].localized
                                                               : ParsedTitles(localized);
    runs[i] = i > 0 && sample.english == samples.samples[i - 1].english &&
                      sample.localized == samples.samples[i - 1].localized
                  ? runs[i - 1]
                  : static_cast<uint32_t>(i);
    english_version = english;
    localized_version = localized;
  }
  // Whether a sample's object may be one the paths select, by its names in that sample's
  // databases; remembered while the databases stay the same.
  bool memo_valid = false;
  const TitleDatabase* memo_english = nullptr;
  const TitleDatabase* memo_localized = nullptr;
  std::unordered_map<uint32_t, bool> memo;
  auto wanted = [&](size_t i, uint32_t object) {
    const query::HostSample& sample = samples.samples[i];
    if (!memo_valid || sample.english.get() != memo_english ||
        sample.localized.get() != memo_localized) {
      memo.clear();
      memo_valid = true;
      memo_english = sample.english.get();
      memo_localized = sample.localized.get();
    }
    auto [it, added] = memo.try_emplace(object, false);
    if (added) it->second = objects->Selects(object, memo_english, memo_localized);
    return it->second;
  };
  Result<std::vector<std::vector<uint8_t>>> raws = objects != nullptr
                                                       ? store_.ReadSnapshots(listed, wanted, runs)
                                                       : store_.ReadSnapshots(listed);
  if (!raws.ok()) return raws.status();
  for (size_t i = 0; i < listed.size(); ++i) {
    samples.samples[i].bytes = std::make_shared<const std::vector<uint8_t>>(std::move((*raws)[i]));
  }
  return samples;
}

Result<SampleLoader::TitleHistories> SampleLoader::Histories(const std::string& host) {
  TitleHistories histories;
  Result<std::vector<TitleVersion>> english = store_.catalog().TitleHistory(host, "009");
  if (!english.ok()) return english.status();
  histories.english = std::move(*english);
  Result<std::vector<TitleVersion>> localized =
      store_.catalog().TitleHistory(host, kDisplayLanguage);
  if (!localized.ok()) return localized.status();
  histories.localized = std::move(*localized);
  return histories;
}

Result<std::vector<SnapshotInfo>> SampleLoader::ListRange(const std::string& host, int64_t from_ns,
                                                          int64_t to_ns) {
  // The newest sample before the range, then those in it.
  int64_t lookback_from = from_ns > kLookbackNs ? from_ns - kLookbackNs : 0;
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host, lookback_from, from_ns, std::nullopt, 1, /*newest=*/true);
  if (!listed.ok()) return listed.status();
  Result<std::vector<SnapshotInfo>> in_range =
      store_.ListSnapshots(host, from_ns, to_ns == INT64_MAX ? to_ns : to_ns + 1);
  if (!in_range.ok()) return in_range.status();
  listed->insert(listed->end(), in_range->begin(), in_range->end());
  return listed;
}

Result<query::HostSamples> SampleLoader::LoadRange(const std::string& host, int64_t from_ns,
                                                   int64_t to_ns, const ObjectNameFilter* objects) {
  Result<std::vector<SnapshotInfo>> listed = ListRange(host, from_ns, to_ns);
  if (!listed.ok()) return listed.status();
  return LoadListed(host, *listed, objects);
}

// The newest samples LoadLatest looks among for the host's queries.
constexpr size_t kLatestCandidates = 16;

Result<query::HostSamples> SampleLoader::LoadLatest(const std::string& host,
                                                    const ObjectNameFilter* objects) {
  // The newest two of each query: a host that takes Global every 10 s and Costly every 5 min
  // has Thread only in its Costly samples, and its newest two samples of all are both Global.
  Result<std::vector<SnapshotInfo>> newest =
      store_.ListSnapshots(host, 0, INT64_MAX, std::nullopt, kLatestCandidates, /*newest=*/true);
  if (!newest.ok()) return newest.status();
  std::vector<SnapshotInfo> listed;
  std::vector<std::string> queries;
  for (const SnapshotInfo& info : *newest) {
    if (std::find(queries.begin(), queries.end(), info.query) != queries.end()) continue;
    queries.push_back(info.query);
    Result<std::vector<SnapshotInfo>> two =
        store_.ListSnapshots(host, 0, INT64_MAX, info.query, 2, /*newest=*/true);
    if (!two.ok()) return two.status();
    listed.insert(listed.end(), two->begin(), two->end());
  }
  std::sort(listed.begin(), listed.end(), [](const SnapshotInfo& a, const SnapshotInfo& b) {
    return a.sample_time_ns < b.sample_time_ns;
  });
  return LoadListed(host, listed, objects);
}

Result<query::HostSamples> SampleLoader::LoadAfter(const std::string& host, int64_t after_ns,
                                                   size_t max_samples) {
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host, after_ns, after_ns + 1);  // the anchors
  if (!listed.ok()) return listed.status();
  Result<std::vector<SnapshotInfo>> after =
      store_.ListSnapshots(host, after_ns + 1, INT64_MAX, std::nullopt, max_samples + 1);
  if (!after.ok()) return after.status();
  if (after->size() > max_samples) {
    // The caller resumes after the newest time it got, so samples that share a time (several
    // queries taken together) are never split: the newest time is left for the next call.
    int64_t cut = after->back().sample_time_ns;
    while (!after->empty() && after->back().sample_time_ns == cut) after->pop_back();
    if (after->empty()) {
      after = store_.ListSnapshots(host, cut, cut + 1);
      if (!after.ok()) return after.status();
    }
  }
  listed->insert(listed->end(), after->begin(), after->end());
  return LoadListed(host, *listed, nullptr);
}

Result<std::vector<std::string>> SampleLoader::HostNames() {
  Result<std::vector<HostRecord>> hosts = store_.catalog().ListHosts();
  if (!hosts.ok()) return Status::Unavailable("store: " + hosts.error());
  std::vector<std::string> names;
  names.reserve(hosts->size());
  for (const HostRecord& host : *hosts) names.push_back(host.info.name);
  return names;
}

Result<std::unique_ptr<query::SampleReader::Listing>> SampleLoader::List(const std::string& host,
                                                                         int64_t from_ns,
                                                                         int64_t to_ns) {
  Result<std::vector<SnapshotInfo>> listed = ListRange(host, from_ns, to_ns);
  if (!listed.ok()) return listed.status();
  return std::unique_ptr<Listing>(std::make_unique<SnapshotListing>(std::move(listed).value()));
}

Result<std::vector<SampleLoader::QueryInRange>> SampleLoader::Probe(const std::string& host,
                                                                    const Listing& listing,
                                                                    int64_t from_ns,
                                                                    const ObjectNameFilter* objects,
                                                                    bool restore_newest) {
  std::vector<QueryInRange> queries;
  std::vector<const SnapshotInfo*> newest;  // of each of `queries`
  std::map<std::string, size_t> query_at;
  for (const SnapshotInfo& info : Listed(listing)) {
    if (info.sample_time_ns < from_ns) continue;
    auto [at, added] = query_at.try_emplace(info.query, queries.size());
    if (added) {
      queries.emplace_back();
      newest.push_back(nullptr);
    }
    ++queries[at->second].newest.samples;
    queries[at->second].raw_bytes += info.raw_size;
    newest[at->second] = &info;  // listed by time
  }
  for (size_t q = 0; q < queries.size(); ++q) {
    queries[q].newest_raw_size = newest[q]->raw_size;
    if (!restore_newest) continue;
    Result<query::HostSamples> restored = LoadListed(host, {newest[q], 1}, objects);
    if (!restored.ok()) return restored.status();
    queries[q].newest.sample = std::move(restored->samples.front());
  }
  return queries;
}

Result<query::HostSamples> SampleLoader::Load(const std::string& host, const Listing& listed,
                                              const ObjectNameFilter* objects) {
  return LoadListed(host, Listed(listed), objects);
}

Result<query::HostSample> SampleLoader::WholeSampleIn(const std::string& host, int64_t from_ns,
                                                      int64_t to_ns) {
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host, from_ns, to_ns == INT64_MAX ? to_ns : to_ns + 1, std::nullopt,
                           kWholeSampleCandidates, /*newest=*/true);
  if (!listed.ok()) return Status::Unavailable("store: " + listed.error());
  if (listed->empty()) return Status::NotFound("no sample of " + host + " in the range");
  // Restored as a query's samples are (their frames' checksums), without the SHA-256 of the
  // whole snapshot that an export's exact bytes get: a read explains what a host lacks from it
  // for every host that lacks a path's object, which on a mixed fleet is most of them.
  Result<query::HostSamples> loaded =
      LoadListed(host, std::span<const SnapshotInfo>(&NewestGlobal(*listed), 1), nullptr);
  if (!loaded.ok()) return loaded.status();
  return std::move(loaded->samples.front());
}

Result<std::vector<query::HostSample>> SampleLoader::BrowseSamples(
    const std::string& host, int64_t at_ns, const ObjectNameFilter* objects) {
  Result<std::vector<SnapshotInfo>> candidates =
      store_.ListSnapshots(host, 0, at_ns == INT64_MAX ? at_ns : at_ns + 1, std::nullopt,
                           kWholeSampleCandidates, /*newest=*/true);
  if (!candidates.ok()) return Status::Unavailable("store: " + candidates.error());
  if (candidates->empty()) {
    return Status::NotFound("host \"" + host + "\" has no sample at or before that time");
  }
  std::vector<SnapshotInfo> listed = {NewestGlobal(*candidates)};
  for (auto it = candidates->rbegin(); it != candidates->rend(); ++it) {  // newest first
    auto same = [&](const SnapshotInfo& other) { return other.query == it->query; };
    if (std::none_of(listed.begin(), listed.end(), same)) listed.push_back(*it);
  }
  Result<query::HostSamples> loaded = LoadListed(host, listed, objects);
  if (!loaded.ok()) return loaded.status();
  return std::move(loaded->samples);
}

std::optional<int64_t> SampleLoader::NearestSampleTime(const std::string& host, int64_t from_ns,
                                                       int64_t to_ns) {
  std::optional<int64_t> nearest = NewestSampleBefore(host, from_ns, std::nullopt);
  if (to_ns == INT64_MAX) return nearest;
  Result<std::vector<SnapshotInfo>> after =
      store_.ListSnapshots(host, to_ns + 1, INT64_MAX, std::nullopt, 1);
  if (after.ok() && !after->empty() &&
      (!nearest || after->front().sample_time_ns - to_ns < from_ns - *nearest)) {
    nearest = after->front().sample_time_ns;
  }
  return nearest;
}

Result<std::vector<query::HealthHost>> SampleLoader::HealthHosts(
    int64_t at_ns, const query::HostLabelsLookup& labels) {
  Result<std::vector<query::HostInventories>> inventories = store_.catalog().Inventories(at_ns);
  if (!inventories.ok()) return inventories.status();
  Result<std::vector<HostRecord>> records = store_.catalog().ListHosts();
  if (!records.ok()) return records.status();
  std::map<std::string, const HostRecord*> by_name;
  for (const HostRecord& record : *records) by_name.emplace(record.info.name, &record);
  Result<std::map<std::string, std::vector<query::DisabledProviderSince>>> disabled =
      store_.catalog().DisabledProviders();
  if (!disabled.ok()) return disabled.status();
  Result<std::map<std::string, query::CollectionLosses>> losses =
      store_.catalog().CollectionLosses();
  if (!losses.ok()) return losses.status();
  Result<std::map<std::string, std::vector<query::InvalidCounterRun>>> invalid =
      store_.catalog().InvalidCounterRuns();
  if (!invalid.ok()) return invalid.status();
  Result<std::map<std::string, query::ObjectTimings>> timings = store_.catalog().ObjectTimings();
  if (!timings.ok()) return timings.status();
  Result<std::map<std::string, std::vector<InstanceGap>>> gaps =
      store_.catalog().InstanceGaps(at_ns);
  if (!gaps.ok()) return gaps.status();
  std::vector<query::HealthHost> hosts;
  hosts.reserve(inventories->size());
  for (query::HostInventories& host_inventories : *inventories) {
    query::HealthHost host;
    if (labels) host.labels = labels(host_inventories.host);
    if (auto record = by_name.find(host_inventories.host); record != by_name.end()) {
      host.os = record->second->info.os;
      host.os_version = record->second->info.os_version;
      host.last_error = record->second->last_error;
      host.last_error_ns = record->second->last_error_ns;
    }
    if (auto providers = disabled->find(host_inventories.host); providers != disabled->end()) {
      host.disabled_providers = std::move(providers->second);
    }
    if (auto lost = losses->find(host_inventories.host); lost != losses->end()) {
      host.losses = lost->second;
    }
    if (auto runs = invalid->find(host_inventories.host); runs != invalid->end()) {
      host.invalid_counters = std::move(runs->second);
    }
    if (auto timed = timings->find(host_inventories.host); timed != timings->end()) {
      host.object_timings = std::move(timed->second);
    }
    if (auto went = gaps->find(host_inventories.host); went != gaps->end()) {
      host.instance_gaps = std::move(went->second);
    }
    Result<TitleHistories> histories = Histories(host_inventories.host);
    if (!histories.ok()) return histories.status();
    const TitleVersion* english = VersionInForce(histories->english, at_ns);
    host.english = ParsedTitles(english);
    if (english != nullptr && english != histories->english.data()) {
      host.english_before = ParsedTitles(english - 1);
    }
    host.localized = ParsedTitles(VersionInForce(histories->localized, at_ns));
    // The first version of each is when the store first heard of them, not a change.
    for (const std::vector<TitleVersion>* history : {&histories->english, &histories->localized}) {
      for (size_t i = 1; i < history->size(); ++i) {
        host.title_versions_ns.push_back((*history)[i].since_ns);
      }
    }
    host.inventories = std::move(host_inventories);
    hosts.push_back(std::move(host));
  }
  return hosts;
}

query::HealthReport SampleLoader::ReportHealth(const query::HealthRequest& request,
                                               std::span<const query::HealthHost> hosts) {
  return query::ReportCounterHealth(
      request, hosts, [this](const std::string& host, const std::string& query, int64_t before_ns) {
        return NewestSampleBefore(host, before_ns, query);
      });
}

std::optional<int64_t> SampleLoader::NewestSampleBefore(const std::string& host, int64_t before_ns,
                                                        const std::optional<std::string>& query) {
  Result<std::vector<SnapshotInfo>> before =
      store_.ListSnapshots(host, 0, before_ns, query, 1, /*newest=*/true);
  if (!before.ok() || before->empty()) return std::nullopt;
  return before->front().sample_time_ns;
}

}  // namespace perfhive
