// The fleet's counter health (docs/health.md): which hosts lack objects or counters their peers
// have, since when and after what change; objects and counters a host lost or that come and go;
// indexes a host's title database does not name; what agents report failing. Each finding names
// the hosts, the object and counter, since when, the likely cause and what to do.
//
// It is computed from the inventory histories the store records as it writes
// (query/inventory_history.h), never from the snapshots themselves: a report over a fleet and a
// day reads a few rows per host. Names are matched across hosts as browsing matches them
// (English, else the host's language, else the index; ignoring case), each host's with its title
// databases in force at the report's time: an extensible object's index differs from host to
// host, its name does not.

#ifndef PERFHIVE_QUERY_COUNTER_HEALTH_H_
#define PERFHIVE_QUERY_COUNTER_HEALTH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "perfdata/instance_gaps.h"
#include "perfdata/title_database.h"
#include "query/host_selector.h"
#include "query/inventory_history.h"

namespace perfhive::query {

// What the report knows of one host.
struct HealthHost {
  HostInventories inventories;
  std::string os;  // "Windows Server 2022", "Linux": its first word is the family peers share
  std::string os_version;  // "10.0.20348": hosts of one build should share a title database
  HostLabels labels;
  // Its title databases in force at the report's time; null: indexes are shown as numbers.
  std::shared_ptr<const TitleDatabase> english;
  std::shared_ptr<const TitleDatabase> localized;
  // The English database in force before `english` (null when none was): names it changed.
  std::shared_ptr<const TitleDatabase> english_before;
  // When each version of its title databases came into force (sample times), in any order.
  std::vector<int64_t> title_versions_ns;
  std::string last_error;  // what its agent or poller last reported failing, and when
  int64_t last_error_ns = 0;
  // The providers its agent last reported disabled, by service.
  std::vector<DisabledProviderSince> disabled_providers;
  // What its agent last reported it lost since it started; nullopt: it reported nothing.
  std::optional<CollectionLosses> losses;
  // Its counters without a valid value now, as the store keeps their runs.
  std::vector<InvalidCounterRun> invalid_counters;
  // Each object's time asked for alone, as its agent last reported; nullopt: none reported.
  std::optional<ObjectTimings> object_timings;
  // Its instances that went and came back, as the store keeps them, by time.
  std::vector<InstanceGap> instance_gaps;
};

// The range a report covers when its caller gives none: the last day.
inline constexpr int64_t kHealthDefaultRangeNs = 24LL * 3600 * 1'000'000'000;

struct HealthRequest {
  // Findings from this time on are new (the CLI's --since: it exits non-zero on a new one); a
  // lost object or counter, one that came and went, and an error are reported when they
  // happened from here on.
  int64_t from_ns = 0;
  int64_t at_ns = INT64_MAX;  // each host as its inventories stood then
  // The labels hosts share, beside their OS family, to be peers (a SQL server's counters are not
  // missing on a web server): hosts without the label are peers of each other.
  std::vector<std::string> peers_by = {"role"};
};

enum class HealthFindingKind {
  kObjectMissing,        // peers have the object, these hosts do not
  kCounterMissing,       // peers' object has the counter, these hosts' does not
  kObjectLost,           // the host had the object in the range and has it no more (peers or not)
  kCounterLost,          // the same for a counter of an object it still has
  kObjectCameAndWent,    // it went and came back in the range
  kUnnamedIndex,         // indexes the host's snapshots use and its title database does not name
  kTitlesDiffer,         // its title database is not the one most hosts of its OS build have
  kCollectionError,      // the host's agent or poller reports an error
  kProviderDisabled,     // a service's performance counter provider is disabled on the host
  kObjectNotReturned,    // its agent asks for the object by index and gets nothing back
  kNamesChanged,         // its last title database change renamed indexes its snapshots use
  kNameDuplicated,       // two counters of one object have the same name in its title database
  kCollectionLosses,     // its agent skipped ticks, failed reads or lost snapshots in the range
  kCounterInvalid,       // no instance of the counter has had a valid value since a time
  kSlowObject,           // asked for alone, the object took its source long enough to matter
  kInstanceCameAndWent,  // an instance of an object that stayed went and came back in the range
};

// Every kind, for those that list them all (/metrics gives each a count, 0 included).
inline constexpr HealthFindingKind kHealthFindingKinds[] = {
    HealthFindingKind::kObjectMissing,     HealthFindingKind::kCounterMissing,
    HealthFindingKind::kObjectLost,        HealthFindingKind::kCounterLost,
    HealthFindingKind::kObjectCameAndWent, HealthFindingKind::kUnnamedIndex,
    HealthFindingKind::kTitlesDiffer,      HealthFindingKind::kCollectionError,
    HealthFindingKind::kProviderDisabled,  HealthFindingKind::kObjectNotReturned,
    HealthFindingKind::kNamesChanged,      HealthFindingKind::kNameDuplicated,
    HealthFindingKind::kCollectionLosses,  HealthFindingKind::kCounterInvalid,
    HealthFindingKind::kSlowObject,        HealthFindingKind::kInstanceCameAndWent,
};

// Label keys separated by commas ("role,env"; "": the OS family alone), as --peers-by takes them.
Result<std::vector<std::string>> ParsePeersBy(std::string_view text);

// "object-missing", "counter-missing", ...
const char* HealthFindingKindName(HealthFindingKind kind);

// One host of a finding.
struct HostFinding {
  std::string host;
  int64_t since_ns = 0;  // the first snapshot without it (or when the error was reported)
  // The last snapshot with it; nullopt: none recorded (the host never had it, as far as the
  // store knows, or recorded inventories started after it).
  std::optional<int64_t> last_with_ns;
  std::string cause;   // what changed then, in words
  std::string action;  // what to do about it
  // For an object or instance that came and went: each (gone, back) in the range.
  std::vector<std::pair<int64_t, int64_t>> gaps = {};
};

struct HealthFinding {
  HealthFindingKind kind = HealthFindingKind::kObjectMissing;
  // As the first host that has it names it; empty for an unnamed index and an error.
  std::string object;
  // Empty for an object; the instance's name (instance-came-and-went); the unnamed indexes as
  // ranges ("6", "6, 1234-1320"), the OS build whose title databases differ ("Windows
  // 10.0.20348"), the error's message, or the service whose provider is disabled.
  std::string counter;
  std::string peers;      // the peer group: "Windows", "Windows role=sql"; empty when not compared
  size_t peers_with = 0;  // of the group's hosts, how many have it (missing kinds)
  size_t peer_hosts = 0;  // hosts in the group
  std::vector<HostFinding> hosts;  // by name
  int64_t newest_ns = 0;           // the latest since_ns of its hosts
};

// A host's slowest objects as its agent last timed them, for /metrics.
struct HostSlowestObjects {
  std::string host;
  struct Object {
    std::string name;  // as its titles name it
    int64_t nanos = 0;
  };
  std::vector<Object> objects;  // the slowest first, at most kSlowestObjectsKept
};
inline constexpr size_t kSlowestObjectsKept = 5;

struct HealthReport {
  int64_t at_ns = 0;
  std::vector<std::string> hosts;  // those with an inventory by at_ns, by name
  // Of each host whose agent timed its objects, the slowest, by host name.
  std::vector<HostSlowestObjects> slowest_objects;
  // Findings, those touching the most hosts first, then by kind, object and counter.
  std::vector<HealthFinding> findings;
};

// When the last snapshot of `host`'s `query` before `before_ns` was taken; nullopt: none.
using LastSampleBefore = std::function<std::optional<int64_t>(
    const std::string& host, const std::string& query, int64_t before_ns)>;

HealthReport ReportCounterHealth(const HealthRequest& request, std::span<const HealthHost> hosts,
                                 const LastSampleBefore& last_sample_before);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_COUNTER_HEALTH_H_
