// The console's Host check: what an --insecure console (nobody logs in) accepts as addressed to
// this machine's loopback, and the names a DNS-rebinding page would send, which it refuses; and
// which POSTs come from another site's page.

#include "server/http/console_server.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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
// Issue 34, 9: another site's page could post the login form with the attacker's own read
// token, logging the browser in as the attacker. Browsers name the page's origin on a POST.
TEST(ConsoleServerTest, APostFromAnotherSitesPageIsCrossSite) {
  auto post = [](bool tls, std::string host,
                 std::vector<std::pair<std::string, std::string>> with) {
    HttpRequest request;
    request.method = "POST";
    request.path = "/login";
    request.tls = tls;
    request.headers.emplace("Host", std::move(host));
    for (auto& [name, value] : with) request.headers.emplace(name, value);
    return request;
  };
  EXPECT_FALSE(IsCrossSitePost(post(true, "console:8443", {{"Origin", "https://console:8443"}})));
  EXPECT_FALSE(
      IsCrossSitePost(post(false, "127.0.0.1:8080", {{"Origin", "http://127.0.0.1:8080"}})));
  EXPECT_TRUE(IsCrossSitePost(post(true, "console:8443", {{"Origin", "https://evil.example"}})));
  EXPECT_TRUE(IsCrossSitePost(post(true, "console:8443", {{"Origin", "http://console:8443"}})));
  EXPECT_TRUE(IsCrossSitePost(post(true, "console:8443", {{"Origin", "null"}})));
  // The console's own form under Referrer-Policy: no-referrer, and another site's sandbox.
  EXPECT_FALSE(IsCrossSitePost(
      post(true, "console:8443", {{"Origin", "null"}, {"Sec-Fetch-Site", "same-origin"}})));
  EXPECT_TRUE(IsCrossSitePost(
      post(true, "console:8443", {{"Origin", "null"}, {"Sec-Fetch-Site", "cross-site"}})));
  EXPECT_TRUE(IsCrossSitePost(post(true, "console:8443", {{"Sec-Fetch-Site", "cross-site"}})));
  EXPECT_TRUE(IsCrossSitePost(post(true, "console:8443", {{"Sec-Fetch-Site", "same-site"}})));
  EXPECT_FALSE(IsCrossSitePost(post(true, "console:8443", {{"Sec-Fetch-Site", "same-origin"}})));
  // curl and scripts: no browser, no other site's page.
  EXPECT_FALSE(IsCrossSitePost(post(true, "console:8443", {})));
}

}  // namespace perfhive
