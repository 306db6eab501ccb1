// RemoteHostConfig: a host without an agent that an agent polls over the remote registry, as
// an agent's --target flag, its config file's [[target]] tables and a central policy's
// `targets` (docs/policies.md) write it.

#ifndef PERFHIVE_CONFIG_REMOTE_TARGET_H_
#define PERFHIVE_CONFIG_REMOTE_TARGET_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

// A polled host, shipped as if it had its own agent.
struct RemoteHostConfig {
  std::string address;           // "\\HOST" or "\\HOST:PORT"
  std::string host_name;         // the name its snapshots are filed under; empty: HOST
  std::string credentials_file;  // smbclient's format; empty: PERFHIVE_SMB_* in the environment
  std::optional<std::chrono::milliseconds> interval;      // unset: the agent's interval
  std::optional<std::chrono::milliseconds> call_timeout;  // unset: the remote source's (10s)

  bool operator==(const RemoteHostConfig&) const = default;
  // host_name, or the HOST part of the address when it is empty.
  std::string Name() const;
};

// A target's name becomes a folder of the spool and a name on the server: no path separators,
// and not a name a folder cannot have. `where` begins the error.
Status CheckTargetName(const RemoteHostConfig& target, std::string_view where);

// "\\HOST[:PORT]" or "\\HOST[:PORT]=NAME" (the name to file its snapshots under). The
// credentials come from elsewhere (--credentials, [[target]]), never from the text.
Result<RemoteHostConfig> ParseTargetFlag(std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_CONFIG_REMOTE_TARGET_H_
