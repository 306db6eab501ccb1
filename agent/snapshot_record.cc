#include "agent/snapshot_record.h"

#include "perfdata/case_folding.h"

namespace perfhive {

bool SnapshotOwner::SameHostAs(const SnapshotOwner& other) const {
  return agentless == other.agentless && FoldCase(host.name) == FoldCase(other.host.name);
}

std::string SnapshotOwner::Label() const {
  return host.name + (agentless ? " (agentless)" : " (agent)");
}

}  // namespace perfhive
