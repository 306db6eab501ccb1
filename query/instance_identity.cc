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

// One Linux clock tick (USER_HZ 100), the coarsest resolution a source writes starts in, in
// the object's time base.
uint64_t OneTickOf(const ObjectView& object) {
  return object.perf_freq() > 0 ? static_cast<uint64_t>(object.perf_freq()) / 100 : 0;
}

}  // namespace

uint64_t ProcessStarts::KeyStart(const std::string& name_and_pid, uint64_t start,
                                 uint64_t tolerance) {
  std::vector<uint64_t>& starts = seen_[name_and_pid];
  for (uint64_t seen : starts) {
    if ((start > seen ? start - seen : seen - start) <= tolerance) return seen;
  }
  starts.push_back(start);
  return start;
}

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
                                                const std::vector<InstancePathName>& names,
                                                ProcessStarts* starts) {
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
        // _Total and Idle share PID 0 and have no start of their own (a source may give them
        // the boot time, or its oldest process's start): they are known by name.
        identity.key = "n|" + FoldCase(name.ToString());
      } else if (tid) {
        // A thread's own name is its position in the process, which moves, so only its
        // process's name is kept.
        identity.key = "t|" + FoldCase(name.parent) + "|" + std::to_string(*identity.pid) + "|" +
                       std::to_string(*identity.tid);
      } else {
        std::string name_and_pid = FoldCase(name.name) + "|" + std::to_string(*identity.pid);
        uint64_t key_start = identity.start.value_or(0);
        if (starts != nullptr && identity.start) {
          key_start = starts->KeyStart(name_and_pid, key_start, OneTickOf(object));
        }
        identity.key = "p|" + name_and_pid + "|" + std::to_string(key_start);
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
