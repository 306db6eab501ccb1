// The Network Interface object (510) from /proc/net/dev and /sys/class/net, with the counters
// and counter types of a real Windows Network Interface.

#ifndef PERFHIVE_SOURCES_PROCFS_NETWORK_OBJECT_H_
#define PERFHIVE_SOURCES_PROCFS_NETWORK_OBJECT_H_

#include "base/status.h"
#include "perfdata/snapshot_builder.h"
#include "sources/procfs/procfs_context.h"

namespace perfhive {

// One instance per interface of the agent's network namespace, loopback included; Windows has
// no _Total here. Nothing is added when /proc/net/dev cannot be read.
Status AddNetworkInterfaceObject(ProcfsContext& context, SnapshotBuilder& snapshot);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_NETWORK_OBJECT_H_
