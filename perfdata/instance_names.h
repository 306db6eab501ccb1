// Instance names as PDH builds them: a child names its parent through ParentObjectTitleIndex and
// ParentObjectInstance (Thread instances read "explorer/0"), duplicates of the same parent and
// name (ignoring case in every script, as paths match names: "Ява" and "ява" are duplicates) get
// "#1", "#2", ... in order of appearance, and instances without a name are named by their
// UniqueID. docs/counter_paths.md has the details.

#ifndef PERFHIVE_PERFDATA_INSTANCE_NAMES_H_
#define PERFHIVE_PERFDATA_INSTANCE_NAMES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "perfdata/snapshot_reader.h"

namespace perfhive {

// How a counter path names one instance: (parent/name#duplicate).
struct InstancePathName {
  std::string parent;  // empty when the instance names no parent (or it is not in the snapshot)
  std::string name;
  uint32_t duplicate = 0;  // the #index: 0 for the first of its parent and name

  // "parent/name#2", "name" (#0 is implied, as PDH writes it).
  std::string ToString() const;
};

// The PDH names of `object`'s instances, in order. An object without instances yields one
// empty name; a metadata object none.
std::vector<InstancePathName> NameInstances(const SnapshotReader& snapshot,
                                            const ObjectView& object);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_INSTANCE_NAMES_H_
