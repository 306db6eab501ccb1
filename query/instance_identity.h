// InstanceIdentity: who an instance is, so that a series follows one process or thread across
// samples instead of a "#n" position. Process instances are known by their name, "ID Process"
// and their start (the raw "Elapsed Time", a timestamp in the object's time base), starts
// within one clock tick of each other being one (ProcessStarts); Thread instances by their
// process's name, "ID Process" and "ID Thread"; every other instance by its PDH name. Two
// instances of one snapshot with the same identity (the Idle threads share PID 0 and TID 0)
// are told apart by their order. docs/query_semantics.md states the rule.

#ifndef PERFHIVE_QUERY_INSTANCE_IDENTITY_H_
#define PERFHIVE_QUERY_INSTANCE_IDENTITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/instance_names.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive::query {

struct InstanceIdentity {
  std::optional<uint64_t> pid;    // Process and Thread
  std::optional<uint64_t> tid;    // Thread
  std::optional<uint64_t> start;  // Process: the raw Elapsed Time
  // Equal keys in two samples of one host and object mean the same instance (when both were
  // identified with the same ProcessStarts).
  std::string key;
};

// The process starts seen in one host's samples, so that a start written a little differently
// is the same process. A source may round a start: the Linux source's resolution is one clock
// tick (10 ms), and it once measured its boot time from two clocks, which moved every start by
// a unit now and then. Starts of one name and PID that differ by at most one tick, counted in
// the Process object's own time base (PerfFreq / 100 units), are one process, keyed by the start
// seen first; starts further apart are a PID reused.
class ProcessStarts {
 public:
  // The start that keys the process named `name_and_pid` that started at `start`.
  uint64_t KeyStart(const std::string& name_and_pid, uint64_t start, uint64_t tolerance);

 private:
  // name|pid → the starts its processes are keyed by, one per process that had that PID.
  std::unordered_map<std::string, std::vector<uint64_t>> seen_;
};

// The counters whose values, with the instance's name, make its identity (all absent for an
// object known by names alone).
struct IdentityCounters {
  std::optional<CounterDefinitionView> pid, tid, start;

  bool by_name() const { return !pid && !tid && !start; }
};
IdentityCounters IdentityCountersOf(const ObjectView& object);

// The identities of `object`'s instances, in order; `names` is NameInstances(snapshot, object).
// Processes are keyed by the start `starts` saw first within a tick (null: by their own start,
// for one sample alone).
std::vector<InstanceIdentity> IdentifyInstances(const ObjectView& object,
                                                const std::vector<InstancePathName>& names,
                                                ProcessStarts* starts = nullptr);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_INSTANCE_IDENTITY_H_
