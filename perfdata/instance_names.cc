#include "perfdata/instance_names.h"

#include <string_view>
#include <unordered_map>

#include "perfdata/case_folding.h"

namespace perfhive {

std::string InstancePathName::ToString() const {
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

// A parent and name pair, compared ignoring case as paths match them: "Xorg" and "xorg" are
// duplicates, or the path of the second would select the first. The pair is compared, not the
// joined text: parent "a/b" with "c" differs from parent "a" with "b/c".
struct DuplicateKey {
  std::string_view parent;
  std::string_view name;
  bool operator==(const DuplicateKey& other) const {
    return EqualIgnoringCase(parent, other.parent) && EqualIgnoringCase(name, other.name);
  }
};

struct DuplicateKeyHash {
  size_t operator()(const DuplicateKey& key) const {
    return HashIgnoringCase(key.parent) * 31 + HashIgnoringCase(key.name);
  }
};

}  // namespace

std::vector<InstancePathName> NameInstances(const SnapshotReader& snapshot,
                                            const ObjectView& object) {
  std::vector<InstancePathName> names;
  if (!object.has_instance_list()) {
    if (object.has_data()) names.emplace_back();
    return names;
  }
  // Reserved once, so the keys below can view the names in place.
  names.reserve(object.instances().size());
  // Parent names by object index, each computed once, only for the parents children name. The
  // map's vectors are never changed after they are filled: keys view their strings too.
  std::unordered_map<uint32_t, std::vector<std::string>> parents;
  std::unordered_map<DuplicateKey, uint32_t, DuplicateKeyHash> seen;  // → how many so far
  seen.reserve(object.instances().size());
  for (InstanceView instance : object.instances()) {
    InstancePathName& pdh = names.emplace_back();
    pdh.name = BaseName(object, instance);
    std::string_view parent;
    if (uint32_t parent_index = instance.parent_object_index(); parent_index != 0) {
      auto [it, inserted] = parents.try_emplace(parent_index);
      if (inserted) {
        if (std::optional<ObjectView> parent_object = snapshot.FindObject(parent_index)) {
          for (InstanceView p : parent_object->instances()) {
            it->second.push_back(BaseName(*parent_object, p));
          }
        }
      }
      if (instance.parent_instance() < it->second.size()) {
        parent = it->second[instance.parent_instance()];
        pdh.parent = parent;
      }
    }
    pdh.duplicate = seen[DuplicateKey{parent, pdh.name}]++;
  }
  return names;
}

}  // namespace perfhive
