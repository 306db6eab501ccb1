// The HOST:PORT addresses perfhive-server listens on (--listen, --metrics-listen, --http-listen):
// whether one is on loopback, where --insecure may serve, and its parts for the HTTP servers.

#ifndef PERFHIVE_SERVER_APP_LISTEN_ADDRESS_H_
#define PERFHIVE_SERVER_APP_LISTEN_ADDRESS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "base/status.h"

namespace perfhive {

// Whether the host of `address` (HOST:PORT) is localhost, 127.x.x.x or ::1.
bool IsLoopback(const std::string& address);

// HOST:PORT, with the port a number; brackets around an IPv6 host are taken off.
Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& address);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_LISTEN_ADDRESS_H_
