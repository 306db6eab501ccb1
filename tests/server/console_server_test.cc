// The console's Host check: what an --insecure console (nobody logs in) accepts as addressed to
// this machine's loopback, and the names a DNS-rebinding page would send, which it refuses.

#include "server/http/console_server.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

TEST(ConsoleServerTest, LoopbackHostsAreTheLoopbackNamesAndAddressesWithOrWithoutAPort) {
  for (const char* host : {"localhost", "LOCALHOST:7480", "127.0.0.1", "127.0.0.1:7480",
                           "127.255.3.9:1", "[::1]", "[::1]:7480"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
}

// Regression: the --insecure console answered `Host: rebind.attacker.example` with the API's data.
TEST(ConsoleServerTest, OtherNamesAndMalformedHostsAreNotLoopback) {
  for (const char* host :
       {"", "rebind.attacker.example", "rebind.attacker.example:7480", "localhost.attacker.example",
        "127.0.0.1.attacker.example", "127.0.0", "127.0.0.256", "127.0.0.1:", "127.0.0.1:80x",
        "128.0.0.1", "[::2]", "[::1", "[::1]x", "10.0.0.1", "0.0.0.0"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

}  // namespace
}  // namespace perfhive
