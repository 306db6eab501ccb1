// The Network Interface object (510) from /proc/net/dev and /sys/class/net, with the counters
// and counter types of a real Windows Network Interface.

#ifndef PERFHIVE_AGENT_LINUX_NETWORK_OBJECT_H_
#define PERFHIVE_AGENT_LINUX_NETWORK_OBJECT_H_

#include "agent/linux/procfs_context.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/status.h"

namespace perfhive {

// One instance per interface of the agent's network namespace, loopback included; Windows has
// no _Total here. Nothing is added when /proc/net/dev cannot be read.
Status AddNetworkInterfaceObject(ProcfsContext& context, SnapshotBuilder& snapshot);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_LINUX_NETWORK_OBJECT_H_
