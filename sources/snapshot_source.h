// SnapshotSource: where an agent gets one host's raw performance data. Every kind of source
// implements all of it (this host's HKEY_PERFORMANCE_DATA, a remote registry, Linux /proc,
// recorded files), so the sampler and shipper above it are the same everywhere and tested
// everywhere.

#ifndef PERFHIVE_SOURCES_SNAPSHOT_SOURCE_H_
#define PERFHIVE_SOURCES_SNAPSHOT_SOURCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "perfdata/disabled_provider.h"
#include "perfdata/title_bytes.h"

namespace perfhive {

// Who a source reads: what the server files its snapshots under and shows in `perfhive hosts`.
struct HostIdentity {
  std::string name;        // the host's own name ("WEB01", "build-7"), as it reports it
  std::string os;          // "Windows", "Linux"
  std::string os_version;  // "10.0 build 17763", "6.1.0-18-amd64"; empty when unknown

  bool operator==(const HostIdentity&) const = default;
};

class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;

  // One raw PERF_DATA_BLOCK, checked to be well formed. `query` is what RegQueryValueExW takes:
  // "Global", "Costly", or object indexes separated by spaces ("230 238").
  virtual Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) = 0;

  // The host's title databases, never empty: English ("009") first (another language only where
  // the host has no English one), then the host's display language ("CurrentLanguage") where it
  // has one that differs. Object names in queries resolve through the first.
  virtual Result<std::vector<TitleBytes>> ReadTitles() = 0;

  // The title databases when any of them differs from what this call last returned (the first
  // call always returns them), std::nullopt when unchanged. How a source notices a change is its
  // own business; what it returns is always the complete set.
  virtual Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() = 0;

  // What the snapshots since the last call left out or set to 0, and why (a container without
  // /proc/diskstats); each warning is handed out once.
  virtual std::vector<std::string> TakeWarnings() = 0;

  virtual Result<HostIdentity> Identity() = 0;

  // The host's performance counter providers that are disabled (`Disable Performance Counters`
  // set): a Windows host's, read from its registry; none for sources without providers (Linux,
  // recordings). Read now, on every call: callers space their calls.
  virtual Result<std::vector<DisabledProvider>> DisabledProviders() = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_SNAPSHOT_SOURCE_H_
