#include "query/instance_identity.h"

#include <unordered_map>

#include "perfdata/case_folding.h"
#include "perfdata/well_known_indexes.h"

namespace perfhive::query {
namespace {

// The first definition of the object with this title index and a numeric value.
std::optional<CounterDefinitionView> FindCounter(const ObjectView& object, uint32_t name_index) {
  for (CounterDefinitionView counter : object.counters()) {
    if (counter.name_index() == name_index && (counter.size() == 4 || counter.size() == 8)) {
      return counter;
    }
  }
  return std::nullopt;
}

}  // namespace

IdentityCounters IdentityCountersOf(const ObjectView& object) {
  IdentityCounters counters;
  if (object.name_index() == title_index::kProcess || object.name_index() == title_index::kThread) {
    counters.pid = FindCounter(object, title_index::kIdProcess);
  }
  if (object.name_index() == title_index::kProcess) {
    counters.start = FindCounter(object, title_index::kElapsedTime);
  } else if (object.name_index() == title_index::kThread) {
    counters.tid = FindCounter(object, title_index::kIdThread);
  }
  return counters;
}

std::vector<InstanceIdentity> IdentifyInstances(const ObjectView& object,
                                                const std::vector<InstancePathName>& names) {
  std::vector<InstanceIdentity> identities;
  identities.reserve(names.size());
  const auto [pid, tid, start] = IdentityCountersOf(object);
  const bool by_ids = pid && (object.name_index() == title_index::kProcess || tid);
  std::unordered_map<std::string, uint32_t> seen;  // key → instances with it so far
  size_t position = 0;
  for (InstanceView instance : object.instances()) {
    const InstancePathName& name = names[position++];
    InstanceIdentity identity;
    if (!instance.has_definition()) {
      identities.push_back(std::move(identity));  // the single instance: nothing to tell apart
      continue;
    }
    CounterBlockView block = instance.counters();
    if (by_ids) {
      identity.pid = block.Value(*pid);
      if (tid) identity.tid = block.Value(*tid);
      if (start) identity.start = block.Value(*start);
      if (!tid && *identity.pid == 0) {
        // _Total and Idle share PID 0 and have no start of their own (the Linux source's
        // _Total "starts" with its oldest process): they are known by name.
        identity.key = "n|" + FoldCase(name.ToString());
      } else {
        // A thread's own name is its position in the process, which moves, so only its
        // process's name is kept.
        identity.key = (tid ? "t|" + FoldCase(name.parent) : "p|" + FoldCase(name.name)) + "|" +
                       std::to_string(*identity.pid) + "|" +
                       std::to_string(tid ? *identity.tid : identity.start.value_or(0));
      }
    } else {
      identity.key = "n|" + FoldCase(name.ToString());
    }
    uint32_t occurrence = seen[identity.key]++;
    if (occurrence != 0) identity.key += "#" + std::to_string(occurrence);
    identities.push_back(std::move(identity));
  }
  return identities;
}

}  // namespace perfhive::query
