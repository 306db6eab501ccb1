#include "server/sample_loader.h"

#include <algorithm>
#include <span>
#include <utility>

namespace perfhive {

std::shared_ptr<const TitleDatabase> SampleLoader::ParsedTitles(const TitleVersion* version) {
  if (version == nullptr) return nullptr;
  {
    std::lock_guard lock(titles_mutex_);
    if (auto it = parsed_titles_.find(version->digest); it != parsed_titles_.end()) {
      return it->second;
    }
  }
  Result<TitleDatabaseRecord> record = store_.GetTitleDatabase(version->digest);
  if (!record.ok()) return nullptr;  // names stay indexes, as for a host without titles
  auto parsed = std::make_shared<TitleDatabase>();
  // A list that does not parse leaves names as indexes; the bytes stay stored as they came.
  (void)ParseTitleList(record->counters, /*is_help=*/false, *parsed);
  if (!record->helps.empty()) (void)ParseTitleList(record->helps, /*is_help=*/true, *parsed);
  std::lock_guard lock(titles_mutex_);
  return parsed_titles_.emplace(version->digest, std::move(parsed)).first->second;
}

Result<query::HostSample> SampleLoader::Load(const std::string& host, const SnapshotInfo& info) {
  Result<std::vector<uint8_t>> raw = store_.ReadSnapshot(info.id);
  if (!raw.ok()) return raw.status();
  Result<std::vector<TitleVersion>> history = store_.TitleHistory(host, "009");
  if (!history.ok()) return history.status();
  query::HostSample sample;
  sample.time_ns = info.sample_time_ns;
  sample.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(raw).value());
  sample.english = ParsedTitles(VersionInForce(*history, info.sample_time_ns));
  return sample;
}

Result<query::HostSamples> SampleLoader::LoadListed(const std::string& host,
                                                    std::span<const SnapshotInfo> listed) {
  Result<std::vector<std::vector<uint8_t>>> raws = store_.ReadSnapshots(listed);
  if (!raws.ok()) return raws.status();
  Result<std::vector<TitleVersion>> history = store_.TitleHistory(host, "009");
  if (!history.ok()) return history.status();
  query::HostSamples samples;
  samples.host = host;
  samples.samples.reserve(listed.size());
  const TitleVersion* version = nullptr;
  std::shared_ptr<const TitleDatabase> english;
  for (size_t i = 0; i < listed.size(); ++i) {
    query::HostSample& sample = samples.samples.emplace_back();
    sample.time_ns = listed[i].sample_time_ns;
    sample.bytes = std::make_shared<const std::vector<uint8_t>>(std::move((*raws)[i]));
    const TitleVersion* in_force = VersionInForce(*history, sample.time_ns);
    if (in_force != version || i == 0) english = ParsedTitles(in_force);
    version = in_force;
    sample.english = english;
  }
  return samples;
}

Result<query::HostSamples> SampleLoader::LoadRange(const std::string& host, int64_t from_ns,
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
  return LoadListed(host, *listed);
}

Result<query::HostSamples> SampleLoader::LoadLatest(const std::string& host) {
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host, 0, INT64_MAX, std::nullopt, 2, /*newest=*/true);
  if (!listed.ok()) return listed.status();
  return LoadListed(host, *listed);
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
  return LoadListed(host, *listed);
}

}  // namespace perfhive
