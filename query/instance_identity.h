// InstanceIdentity: who an instance is, so that a series follows one process or thread across
// samples instead of a "#n" position. Process instances are known by their name, "ID Process"
// and their start (the raw "Elapsed Time", a timestamp in the object's time base); Thread
// instances by their process's name, "ID Process" and "ID Thread"; every other instance by its
// PDH name. Two instances of one snapshot with the same identity (the Idle threads share PID 0
// and TID 0) are told apart by their order. docs/query_semantics.md states the rule.

#ifndef PERFHIVE_QUERY_INSTANCE_IDENTITY_H_
#define PERFHIVE_QUERY_INSTANCE_IDENTITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfdata/instance_names.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive::query {

struct InstanceIdentity {
  std::optional<uint64_t> pid;    // Process and Thread
  std::optional<uint64_t> tid;    // Thread
  std::optional<uint64_t> start;  // Process: the raw Elapsed Time
  // Equal keys in two samples of one host and object mean the same instance.
  std::string key;
};

// The counters whose values, with the instance's name, make its identity (all absent for an
// object known by names alone).
struct IdentityCounters {
  std::optional<CounterDefinitionView> pid, tid, start;

  bool by_name() const { return !pid && !tid && !start; }
};
IdentityCounters IdentityCountersOf(const ObjectView& object);

// The identities of `object`'s instances, in order; `names` is NameInstances(snapshot, object).
std::vector<InstanceIdentity> IdentifyInstances(const ObjectView& object,
                                                const std::vector<InstancePathName>& names);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_INSTANCE_IDENTITY_H_
