// The administrator's side of enrollment, as perfhive-server subcommands on a data directory
// (the running server reads the same registry): `enroll create|list|revoke` for enrollment
// tokens and `hosts revoke|list` for the credentials agents received. docs/enrollment.md.

#ifndef PERFHIVE_SERVER_APP_ENROLL_COMMAND_H_
#define PERFHIVE_SERVER_APP_ENROLL_COMMAND_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"

namespace perfhive {

class EnrollmentRegistry;

// The subcommands and what they were given.
class EnrollCommands {
 public:
  // Adds `enroll` and `hosts` to `app`.
  explicit EnrollCommands(CLI::App& app);

  // Whether one of them was on the command line.
  bool parsed() const;
  // Runs it, writing its answer to `out`; an error names what is wrong.
  Status Run(std::ostream& out) const;

 private:
  using Clock = std::chrono::system_clock;

  // One for each subcommand, on the registry Run opened.
  Status CreateToken(EnrollmentRegistry& registry, Clock::time_point now, std::ostream& out) const;
  Status ListTokens(EnrollmentRegistry& registry, Clock::time_point now, std::ostream& out) const;
  Status RevokeToken(EnrollmentRegistry& registry, std::ostream& out) const;
  Status ListHosts(EnrollmentRegistry& registry, Clock::time_point now, std::ostream& out) const;
  Status RevokeHost(EnrollmentRegistry& registry, Clock::time_point now, std::ostream& out) const;

  CLI::App* enroll_ = nullptr;
  CLI::App* create_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* revoke_ = nullptr;
  CLI::App* hosts_ = nullptr;
  CLI::App* hosts_list_ = nullptr;
  CLI::App* hosts_revoke_ = nullptr;
  std::string data_;
  std::vector<std::string> host_patterns_;
  std::optional<int> uses_;
  bool read_ = false;
  int64_t expires_seconds_ = 0;
  std::string id_;
  std::string host_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_ENROLL_COMMAND_H_
