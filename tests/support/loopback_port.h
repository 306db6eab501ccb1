// Ports on 127.0.0.1 for test servers that must know their port before they start (restarted
// servers that agents reconnect to, addresses written into policies and configuration files).
#ifndef PERFHIVE_TESTS_SUPPORT_LOOPBACK_PORT_H_
#define PERFHIVE_TESTS_SUPPORT_LOOPBACK_PORT_H_

#include <netinet/in.h>

#include <cstdint>

namespace perfhive::testing {

// A TCP port on 127.0.0.1 that nothing was bound to when asked, and that this process has not
// handed out before. It is chosen at random below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range), where neither an outgoing connection nor a bind to port 0 takes
// ports: end-to-end tests run side by side, and a port from that range, probed and closed, could
// be taken by another test's connection before the server that was to use it starts, or while it
// restarts.
uint16_t UnusedLoopbackPort();

// 127.0.0.1:`port`, for bind and connect.
sockaddr_in LoopbackAddress(uint16_t port);

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_LOOPBACK_PORT_H_
