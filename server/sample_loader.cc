#include "server/sample_loader.h"

#include <algorithm>
#include <chrono>
#include <span>
#include <utility>

#include "perfdata/title_list.h"

namespace perfhive {
namespace {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::shared_ptr<const TitleDatabase> SampleLoader::ParsedTitles(const TitleDatabaseRecord& record) {
  {
    std::lock_guard lock(titles_mutex_);
    if (auto it = parsed_titles_.find(record.digest); it != parsed_titles_.end()) {
      return it->second;
    }
  }
  auto parsed = std::make_shared<TitleDatabase>();
  // A list that does not parse leaves names as indexes; the bytes stay stored as they came.
  (void)ParseTitleList(record.counters, /*is_help=*/false, *parsed);
  if (!record.helps.empty()) (void)ParseTitleList(record.helps, /*is_help=*/true, *parsed);
  std::lock_guard lock(titles_mutex_);
  return parsed_titles_.emplace(record.digest, std::move(parsed)).first->second;
}

Result<query::HostSample> SampleLoader::Load(const std::string& host, const SnapshotInfo& info) {
  Result<std::vector<uint8_t>> raw = store_.ReadSnapshot(info.id);
  if (!raw.ok()) return raw.status();
  query::HostSample sample;
  sample.time_ns = info.sample_time_ns;
  sample.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(raw).value());
  Result<std::optional<TitleDatabaseRecord>> titles =
      store_.TitlesInForce(host, "009", info.sample_time_ns);
  if (titles.ok() && titles->has_value()) sample.english = ParsedTitles(**titles);
  return sample;
}

Result<query::HostSamples> SampleLoader::LoadListed(const std::string& host,
                                                    std::span<const SnapshotInfo> listed) {
  query::HostSamples samples;
  samples.host = host;
  for (const SnapshotInfo& info : listed) {
    Result<query::HostSample> sample = Load(host, info);
    if (!sample.ok()) return sample.status();
    samples.samples.push_back(std::move(sample).value());
  }
  return samples;
}

Result<query::HostSamples> SampleLoader::LoadRange(const std::string& host, int64_t from_ns,
                                                   int64_t to_ns) {
  int64_t list_from = from_ns > kLookbackNs ? from_ns - kLookbackNs : 0;
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host, list_from, to_ns == INT64_MAX ? to_ns : to_ns + 1);
  if (!listed.ok()) return listed.status();
  // The samples in range, and the newest one before it.
  size_t first = 0;
  while (first < listed->size() && (*listed)[first].sample_time_ns < from_ns) ++first;
  if (first > 0) --first;
  return LoadListed(host, std::span(*listed).subspan(first));
}

Result<query::HostSamples> SampleLoader::LoadLatest(const std::string& host) {
  Result<std::vector<SnapshotInfo>> listed =
      store_.ListSnapshots(host, NowNanos() - kLookbackNs, INT64_MAX);
  if (!listed.ok()) return listed.status();
  if (listed->size() < 2) {
    listed = store_.ListSnapshots(host, 0, INT64_MAX);
    if (!listed.ok()) return listed.status();
  }
  size_t first = listed->size() > 2 ? listed->size() - 2 : 0;
  return LoadListed(host, std::span(*listed).subspan(first));
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
