#include "tests/bench/realistic_fleet/sample_pairing.h"

#include <optional>

#include "perfdata/instance_names.h"
#include "perfdata/well_known_indexes.h"

namespace perfhive::fleet {

std::vector<std::string> InstanceKeys(const SnapshotReader& snapshot, const ObjectView& object) {
  std::optional<CounterDefinitionView> pid;
  for (const CounterDefinitionView& counter : object.counters()) {
    if (counter.name_index() == title_index::kIdProcess) {
      pid = counter;
      break;
    }
  }
  std::vector<InstancePathName> names = NameInstances(snapshot, object);
  std::vector<std::string> keys;
  keys.reserve(names.size());
  size_t at = 0;
  for (const InstanceView& instance : object.instances()) {
    const InstancePathName& name = names[at++];
    if (pid.has_value()) {
      keys.push_back(name.name + "|" + std::to_string(instance.counters().Value(*pid).value_or(0)));
    } else {
      keys.push_back(name.ToString());
    }
  }
  return keys;
}

std::unordered_map<std::string, InstanceView> InstancesByKey(const SnapshotReader& snapshot,
                                                             const ObjectView& object) {
  std::vector<std::string> keys = InstanceKeys(snapshot, object);
  std::unordered_map<std::string, InstanceView> instances;
  size_t at = 0;
  for (const InstanceView& instance : object.instances()) {
    instances.emplace(std::move(keys[at++]), instance);
  }
  return instances;
}

bool SameDefinitions(const ObjectView& a, const ObjectView& b) {
  if (a.num_counters() != b.num_counters()) return false;
  auto theirs = b.counters().begin();
  for (const CounterDefinitionView& counter : a.counters()) {
    const CounterDefinitionView other = *theirs++;
    if (counter.name_index() != other.name_index() || counter.type() != other.type() ||
        counter.size() != other.size()) {
      return false;
    }
  }
  return true;
}

}  // namespace perfhive::fleet
