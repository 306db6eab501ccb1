// Pairing one object's instances and counters across two samples of a host: what reading rates
// off a real pair and measuring how consecutive samples differ both need.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_SAMPLE_PAIRING_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_SAMPLE_PAIRING_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/snapshot_reader.h"

namespace perfhive::fleet {

// A key per instance of `object`, in order, that finds the same instance in another sample: the
// PDH name ("svchost#2"), or for processes the bare name and PID, since a process that starts
// renumbers its namesakes.
std::vector<std::string> InstanceKeys(const SnapshotReader& snapshot, const ObjectView& object);

// The instances of `object` by InstanceKeys.
std::unordered_map<std::string, InstanceView> InstancesByKey(const SnapshotReader& snapshot,
                                                             const ObjectView& object);

// Whether two objects define the same counters (index, type, size) in the same order, so that a
// counter's position means the same in both.
bool SameDefinitions(const ObjectView& a, const ObjectView& b);

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_SAMPLE_PAIRING_H_
