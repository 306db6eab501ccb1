// Browsing one snapshot of a host, as PdhEnumObjects and PdhEnumObjectItems do: its objects,
// an object's counters (filtered by detail level), an object's instances with their identity;
// and a host's browsed samples (SampleReader::BrowseSamples) as one: the objects of all of them,
// the first that holds an object.

#ifndef PERFHIVE_QUERY_BROWSE_H_
#define PERFHIVE_QUERY_BROWSE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"
#include "query/host_samples.h"
#include "query/instance_identity.h"

namespace perfhive::query {

// "novice", "advanced", "expert", "wizard" (PERF_DETAIL_*), or the number for other values.
std::string DetailLevelName(uint32_t level);
// The level by name, ignoring case, or by number; nullopt for anything else.
std::optional<uint32_t> ParseDetailLevel(std::string_view text);

// The names a snapshot's indexes are shown with: English, else localized, else the decimal.
struct Titles {
  const TitleDatabase* english = nullptr;
  const TitleDatabase* localized = nullptr;

  std::string Name(uint32_t index) const;
  std::string Help(uint32_t index) const;  // empty when neither database has one
};

struct ObjectInfo {
  uint32_t index = 0;
  std::string name;
  std::string help;
  uint32_t detail_level = 0;
  int32_t num_instances = 0;  // as stored: a count, or −1 for an object without instances
  uint32_t num_counters = 0;
};

// Objects with data up to `max_detail` (PERF_DETAIL_WIZARD: all), in snapshot order.
std::vector<ObjectInfo> ListObjects(const SnapshotReader& snapshot, const Titles& titles,
                                    uint32_t max_detail);

// The objects of a host's browsed samples (SampleReader::BrowseSamples) up to `max_detail`: the
// first sample's, then those only the others hold, each once. kDataLoss when the first cannot be
// opened; another that cannot is passed over.
Result<std::vector<ObjectInfo>> ListObjects(std::span<const HostSample> samples,
                                            uint32_t max_detail);

struct CounterInfo {
  uint32_t index = 0;
  std::string name;
  std::string help;  // the explain text
  uint32_t type = 0;
  std::string type_name;  // "PERF_100NSEC_TIMER"
  std::string unit;       // query/units.h
  uint32_t detail_level = 0;
  int32_t default_scale = 0;
};

// The first object whose English or localized name (ignoring case), or decimal index, is
// `object`; kNotFound names the objects with a close name.
Result<ObjectView> FindObject(const SnapshotReader& snapshot, const Titles& titles,
                              std::string_view object);

// An object as browsing found it in one of a host's browsed samples, which stays the owner of
// the bytes `snapshot` and `object` read.
struct BrowsedObject {
  const HostSample* sample = nullptr;
  SnapshotReader snapshot;
  ObjectView object;

  Titles titles() const { return {sample->english.get(), sample->localized.get()}; }
};

// The first of a host's browsed samples that holds `object` (FindObject); when none does, the
// first sample's kNotFound, with its close names. kDataLoss when the first cannot be opened.
Result<BrowsedObject> FindObject(std::span<const HostSample> samples, std::string_view object);

// The object's counters up to `max_detail`, base counters left out, in definition order.
std::vector<CounterInfo> ListCounters(const ObjectView& object, const Titles& titles,
                                      uint32_t max_detail);

struct InstanceInfo {
  std::string name;  // the PDH name, "parent/name#n"
  InstanceIdentity identity;
};

// The object's instances in snapshot order (none for an object without instances).
std::vector<InstanceInfo> ListInstances(const SnapshotReader& snapshot, const ObjectView& object);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_BROWSE_H_
