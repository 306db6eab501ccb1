// RemoteTarget: a host to read over MS-RRP, as a user writes it: `\\HOST`, `\\HOST:PORT`,
// `HOST` or `HOST:PORT` (445 when no port is given; another port is for tests and for hosts
// behind a forwarded port).

#ifndef PERFHIVE_SOURCES_MSRRP_REMOTE_TARGET_H_
#define PERFHIVE_SOURCES_MSRRP_REMOTE_TARGET_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

struct RemoteTarget {
  std::string host;
  uint16_t port = 445;

  // "\\HOST" or "\\HOST:PORT" (the port only when it is not 445): how messages name it.
  std::string Name() const;
};

Result<RemoteTarget> ParseRemoteTarget(std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_REMOTE_TARGET_H_
