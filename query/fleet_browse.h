// FleetBrowser: browsing many hosts at once, as `perfhive objects --select role=web` and
// `perfhive instances '\\web*\Process'` ask: the objects, an object's counters or its instances
// across the hosts a host name pattern and a selector pick, each with how many of those hosts
// have it and the first few that lack it. Each host is browsed as one host is (its
// SampleReader::BrowseSamples at the time asked). Names are matched across hosts as they are
// shown (English, else the host's language, else the index), ignoring case as PDH does: an
// extensible object's index differs from host to host, its name does not.

#ifndef PERFHIVE_QUERY_FLEET_BROWSE_H_
#define PERFHIVE_QUERY_FLEET_BROWSE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "perfdata/winperf.h"
#include "query/browse.h"
#include "query/host_selector.h"
#include "query/sample_reader.h"

namespace perfhive::query {

struct FleetBrowseRequest {
  std::string hosts = "*";                       // a host name pattern (web*); empty: every host
  HostSelector selector;                         // and of those, the ones it selects
  int64_t at_ns = INT64_MAX;                     // each host's newest sample at or before this
  uint32_t max_detail = winperf::kDetailWizard;  // objects and counters up to this level
};

// Which of the browsed hosts have a name.
struct Presence {
  size_t hosts = 0;                  // how many
  std::vector<std::string> lacking;  // the first FleetBrowser::kLackingNamed without it, by name
};

// A name browsed on several hosts: as the first host (by name) that has it shows it, and where.
template <typename Info>
struct Present {
  Info info;
  Presence presence;
};

// The hosts a browse read.
struct BrowsedHosts {
  std::vector<std::string> names;  // selected, with a sample at or before the time; by name
  size_t without_sample = 0;       // selected, but with no sample by then: left out
  int64_t oldest_ns = 0;           // of the samples browsed (each host's first)
  int64_t newest_ns = 0;
};

struct FleetObjects {
  BrowsedHosts hosts;
  // In the order they first appear, hosts taken by name; each ObjectInfo as the first host shows
  // it, but num_instances: on all of them together (−1: none has instances), and num_counters:
  // the most any has.
  std::vector<Present<ObjectInfo>> objects;
};

// An object's counters or instances across hosts.
template <typename Item>
struct FleetObjectItems {
  BrowsedHosts hosts;
  std::string object;                // as the first host that has it names it
  Presence object_presence;          // which hosts have the object
  std::vector<Present<Item>> items;  // in the order they first appear
};
using FleetCounters = FleetObjectItems<CounterInfo>;
using FleetInstances = FleetObjectItems<std::string>;  // PDH instance names, "parent/name#n"

class FleetBrowser {
 public:
  // The hosts lacking a name that Presence names.
  static constexpr size_t kLackingNamed = 10;

  explicit FleetBrowser(SampleReader& reader) : reader_(reader) {}

  // Where hosts' labels come from, for selectors by label; without it every host has none.
  void set_host_labels(HostLabelsLookup labels) { labels_ = std::move(labels); }

  // Errors: kNotFound when the pattern or the selector leaves no host, or no host selected has
  // a sample by the time asked; kUnavailable or kDataLoss when a host's samples cannot be read.
  Result<FleetObjects> Objects(const FleetBrowseRequest& request);
  // `object` by name (English or the host's language) or index, on each host. Errors as
  // Objects', and kNotFound when no host browsed has the object, with the close names the first
  // of them has.
  Result<FleetCounters> Counters(const FleetBrowseRequest& request, std::string_view object);
  Result<FleetInstances> Instances(const FleetBrowseRequest& request, std::string_view object);

 private:
  // The hosts the request's pattern and selector pick, by name.
  Result<std::vector<std::string>> SelectHosts(const FleetBrowseRequest& request);
  // Each host `request` selects browsed in parallel: `browse` makes the host's part from its
  // samples (with `objects`, as BrowseSamples). The parts of the hosts in `hosts`, in order.
  template <typename Part, typename Browse>
  Result<std::vector<Part>> BrowseEach(const FleetBrowseRequest& request,
                                       const ObjectNameFilter* objects, const Browse& browse,
                                       BrowsedHosts& hosts);
  // Counters and Instances: `items` lists a host's items of the object it found.
  template <typename Item, typename Items>
  Result<FleetObjectItems<Item>> ObjectItems(const FleetBrowseRequest& request,
                                             std::string_view object, const Items& items);

  SampleReader& reader_;
  HostLabelsLookup labels_;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_FLEET_BROWSE_H_
