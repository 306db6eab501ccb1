#include "perfdata/instance_names.h"

#include <unordered_map>

namespace perfhive {

std::string PdhInstanceName::ToString() const {
  std::string text;
  if (!parent.empty()) {
    text = parent;
    text += '/';
  }
  text += name;
  if (duplicate != 0) {
    text += '#';
    text += std::to_string(duplicate);
  }
  return text;
}

namespace {

std::string BaseName(const ObjectView& object, const InstanceView& instance) {
  std::string name = InstanceName(object, instance);
  if (name.empty() && instance.unique_id() != winperf::kNoUniqueId) {
    name = std::to_string(instance.unique_id());
  }
  return name;
}

}  // namespace

std::vector<PdhInstanceName> NameInstances(const SnapshotReader& snapshot,
                                           const ObjectView& object) {
  std::vector<PdhInstanceName> names;
  if (!object.has_instance_list()) {
    if (object.has_data()) names.emplace_back();
    return names;
  }
  names.reserve(object.instances().size());
  // Parent names by object index, each computed once, only for the parents children name.
  std::unordered_map<uint32_t, std::vector<std::string>> parents;
  std::unordered_map<std::string, uint32_t> seen;  // parent and name → how many so far
  seen.reserve(object.instances().size());
  for (InstanceView instance : object.instances()) {
    PdhInstanceName pdh;
    pdh.name = BaseName(object, instance);
    if (uint32_t parent_index = instance.parent_object_index(); parent_index != 0) {
      auto [it, inserted] = parents.try_emplace(parent_index);
      if (inserted) {
        if (std::optional<ObjectView> parent = snapshot.FindObject(parent_index)) {
          for (InstanceView p : parent->instances()) it->second.push_back(BaseName(*parent, p));
        }
      }
      if (instance.parent_instance() < it->second.size()) {
        pdh.parent = it->second[instance.parent_instance()];
      }
    }
    // NUL cannot occur in a decoded name, so the key tells "a/b"+"c" from "a"+"b/c".
    std::string key = pdh.parent;
    key += '\0';
    key += pdh.name;
    pdh.duplicate = seen[key]++;
    names.push_back(std::move(pdh));
  }
  return names;
}

}  // namespace perfhive
