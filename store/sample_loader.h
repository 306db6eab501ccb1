// SampleLoader: the store as the query engine's SampleReader (query/sample_reader.h), and the
// exporters' reader of stored samples. It reads a host's stored raw samples, each with the title
// databases in force when it was taken: English ("009") and the host's display language (stored
// as "CurrentLanguage", the Perflib key an agent reads it from), so paths may use either. Parsed
// title databases are cached by digest and shared by every caller (hosts of one build share one),
// so the query engine, the exporters and /metrics parse each database once.

#ifndef PERFHIVE_STORE_SAMPLE_LOADER_H_
#define PERFHIVE_STORE_SAMPLE_LOADER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "perfdata/path_expander.h"
#include "perfdata/title_bytes.h"
#include "perfdata/title_database.h"
#include "query/counter_health.h"
#include "query/host_samples.h"
#include "query/sample_reader.h"
#include "query/series_query.h"
#include "store/store.h"

namespace perfhive {

// The newest Global sample of `listed` (in time order, not empty), else the newest: a Global
// sample has every object but the costly ones.
const SnapshotInfo& NewestGlobal(const std::vector<SnapshotInfo>& listed);

class SampleLoader final : public query::SampleReader {
 public:
  // How far before a range the previous sample of each series is looked for.
  static constexpr int64_t kLookbackNs = int64_t{3600} * 1'000'000'000;
  // The newest samples looked among for a whole one (WholeSampleIn, browsing).
  static constexpr size_t kWholeSampleCandidates = 16;

  explicit SampleLoader(Store& store) : store_(store) {}

  // One stored sample.
  Result<query::HostSample> Load(const std::string& host, const SnapshotInfo& info);

  // The samples a read of [from_ns, to_ns] needs: those in the range and the one before it (the
  // older end of the first interval), found within an hour before the range. With `objects`,
  // each sample may hold only the objects it selects (by their names in that sample's
  // databases) and their parents: what a query of those paths reads, restored for less.
  Result<query::HostSamples> LoadRange(const std::string& host, int64_t from_ns, int64_t to_ns,
                                       const ObjectNameFilter* objects) override;
  // The newest two samples of each query among the newest few: the latest value of every counter
  // (or of `objects`, as above).
  Result<query::HostSamples> LoadLatest(const std::string& host,
                                        const ObjectNameFilter* objects) override;
  // At most `max_samples` samples taken after `after_ns`, oldest first, and before them the
  // samples taken at `after_ns` (the older end of the first interval, where an exporter stopped).
  Result<query::HostSamples> LoadAfter(const std::string& host, int64_t after_ns,
                                       size_t max_samples);

  // query::SampleReader: List lists what LoadRange loads; Probe counts each query of a listing
  // taken from `from_ns` on and restores the newest sample of each when asked; Load restores the
  // listing.
  Result<std::vector<std::string>> HostNames() override;
  Result<std::unique_ptr<Listing>> List(const std::string& host, int64_t from_ns,
                                        int64_t to_ns) override;
  Result<std::vector<QueryInRange>> Probe(const std::string& host, const Listing& listed,
                                          int64_t from_ns, const ObjectNameFilter* objects,
                                          bool restore_newest) override;
  Result<query::HostSamples> Load(const std::string& host, const Listing& listed,
                                  const ObjectNameFilter* objects) override;
  Result<query::HostSample> WholeSampleIn(const std::string& host, int64_t from_ns,
                                          int64_t to_ns) override;
  Result<std::vector<query::HostSample>> BrowseSamples(const std::string& host, int64_t at_ns,
                                                       const ObjectNameFilter* objects) override;
  std::optional<int64_t> NearestSampleTime(const std::string& host, int64_t from_ns,
                                           int64_t to_ns) override;

  // The parsed title database of `digest`, shared with every reader (null: the store has none
  // by that digest, or it cannot be read).
  std::shared_ptr<const TitleDatabase> Titles(const Sha256Digest& digest);

  // What the fleet's counter health report (query/counter_health.h) reads as of `at_ns`: every
  // host with an inventory recorded by then, its title databases in force then and when each
  // later version came, its OS and last error, and its labels from `labels` (null: none).
  Result<std::vector<query::HealthHost>> HealthHosts(int64_t at_ns,
                                                     const query::HostLabelsLookup& labels);
  // ReportCounterHealth over `hosts` (as HealthHosts gives them), the last sample before each
  // change found in the store.
  query::HealthReport ReportHealth(const query::HealthRequest& request,
                                   std::span<const query::HealthHost> hosts);

 private:
  // LoadRange in two steps: what it lists, then those samples loaded (any listing, in its
  // order, with `objects` as above).
  Result<std::vector<SnapshotInfo>> ListRange(const std::string& host, int64_t from_ns,
                                              int64_t to_ns);
  Result<query::HostSamples> LoadListed(const std::string& host,
                                        std::span<const SnapshotInfo> listed,
                                        const ObjectNameFilter* objects);

  struct TitleHistories {
    std::vector<TitleVersion> english;
    std::vector<TitleVersion> localized;
  };
  Result<TitleHistories> Histories(const std::string& host);
  // When the newest sample of `host` (of `query`, if given) taken before `before_ns` was taken.
  std::optional<int64_t> NewestSampleBefore(const std::string& host, int64_t before_ns,
                                            const std::optional<std::string>& query);
  // The parsed database of `version` (null: none, or it cannot be read).
  std::shared_ptr<const TitleDatabase> ParsedTitles(const TitleVersion* version);

  Store& store_;
  std::mutex titles_mutex_;
  std::map<Sha256Digest, std::shared_ptr<const TitleDatabase>> parsed_titles_;
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_SAMPLE_LOADER_H_
