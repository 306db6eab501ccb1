// What the end-to-end tests of Windows programs under Wine share: Debian's wine, Linux paths as
// those programs name them, and waiting until what they ship has reached the Linux server.

#ifndef PERFHIVE_TESTS_E2E_WINE_H_
#define PERFHIVE_TESTS_E2E_WINE_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_cluster.h"

namespace perfhive::testing {

// Debian's wine (package wine), where tests/support finds smbd and prometheus too.
inline constexpr char kWine[] = "/usr/bin/wine";

// A Linux path as a Windows program under Wine names it (Wine maps / to drive Z:).
inline std::string WinePath(const std::string& path) {
  std::string windows = "Z:" + path;
  for (char& c : windows) {
    if (c == '/') c = '\\';
  }
  return windows;
}

// The snapshots `server` holds for `host`, asked with the CLI every half second until there are
// at least `at_least` or `timeout` has passed; `cli_flags` reach the server (--insecure, or TLS
// and a token). A host is unknown to the server (exit code 3) until its first snapshot arrives.
inline nlohmann::json WaitForSnapshots(const ScratchDir& scratch, const ServerProcess& server,
                                       const std::string& host, size_t at_least,
                                       const std::vector<std::string>& cli_flags,
                                       std::chrono::seconds timeout = std::chrono::seconds(30)) {
  nlohmann::json snapshots = nlohmann::json::array();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (snapshots.size() < at_least && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::vector<std::string> argv = {CliBinary(),      "snapshots", "\\\\" + host, "--server",
                                     server.address(), "--format",  "json"};
    argv.insert(argv.end(), cli_flags.begin(), cli_flags.end());
    CommandResult listed = RunCommand(scratch, argv);
    if (listed.exit_code == 0) snapshots = nlohmann::json::parse(listed.out)["snapshots"];
  }
  return snapshots;
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_E2E_WINE_H_
