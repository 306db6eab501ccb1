// HostSamples: what a query reads for one host, its raw snapshots in time order, each with the
// title databases in force when it was taken. The bytes and the databases are shared, not
// copied: the store's cache, the server and the query may all hold them.

#ifndef PERFHIVE_QUERY_HOST_SAMPLES_H_
#define PERFHIVE_QUERY_HOST_SAMPLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/counter_path.h"
#include "perfdata/title_database.h"

namespace perfhive::query {

// One raw snapshot of a host.
struct HostSample {
  int64_t time_ns = 0;  // when it was taken, Unix nanoseconds (the store's sample time)
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // the PERF_DATA_BLOCK as received
  std::shared_ptr<const TitleDatabase> english;       // "009"; null: names are indexes
  std::shared_ptr<const TitleDatabase> localized;     // the host's display language, or null
  // The agent's query that took it ("Global", "Costly", "230 238"); empty when unknown. Values
  // are computed between samples of one query (AddHostSeries).
  std::string query = {};
};

struct HostSamples {
  std::string host;  // the name the agent gave; it is the machine of every path answered
  std::vector<HostSample> samples;  // in time order
};

// Whether the path's machine pattern selects `host` (a path without a machine selects every
// host). Matching ignores case, as PDH does; a leading "\\" on `host` is not expected.
bool MachineMatches(const CounterPath& path, std::string_view host);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_HOST_SAMPLES_H_
