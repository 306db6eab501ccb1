// SnapshotSource: where an agent gets one host's raw performance data. Each platform's reader
// (the local HKEY_PERFORMANCE_DATA, a remote registry, Linux /proc) implements it, so the
// sampler and shipper above it are the same everywhere and tested everywhere.

#ifndef PERFHIVE_AGENT_SNAPSHOT_SOURCE_H_
#define PERFHIVE_AGENT_SNAPSHOT_SOURCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/status.h"

namespace perfhive {

// A host's title database as the registry returns it: the REG_MULTI_SZ bytes (UTF-16LE) of
// "Counter <lang>" and "Help <lang>".
struct TitleBytes {
  std::string language = "009";
  std::vector<uint8_t> counters;
  std::vector<uint8_t> helps;
};

class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;

  // One raw PERF_DATA_BLOCK, checked to be well formed. `query` is what RegQueryValueExW takes:
  // "Global", "Costly", or object indexes separated by spaces ("230 238").
  virtual Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) = 0;

  // The host's title database (English, "009").
  virtual Result<TitleBytes> ReadTitles() = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SNAPSHOT_SOURCE_H_
