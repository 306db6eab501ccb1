// The source of a host without an agent, for `snapshot --target` and for polling: over MS-RRP
// from Linux (docs/msrrp.md), through RegConnectRegistryW on Windows (docs/windows_sources.md).

#ifndef PERFHIVE_AGENT_REMOTE_SOURCE_H_
#define PERFHIVE_AGENT_REMOTE_SOURCE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// `address` is `\\HOST[:PORT]`. On Linux the credentials come from `credentials_file`, or from
// PERFHIVE_SMB_* when it is empty, and `call_timeout` (when set) bounds every SMB operation. On
// Windows the agent connects as its own account: a credentials file is an error.
Result<std::unique_ptr<SnapshotSource>> OpenRemoteSource(
    const std::string& address, const std::string& credentials_file,
    std::optional<std::chrono::milliseconds> call_timeout = std::nullopt);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_REMOTE_SOURCE_H_
