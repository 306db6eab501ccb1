// The administrator's side of enrollment, as perfhive-server subcommands on a data directory
// (the running server reads the same registry): `enroll create|list|revoke` for enrollment
// tokens, `hosts list|revoke` for the credentials agents received and `readers list|revoke` for
// those readers received (perfhive login --enroll), kept apart since a reader may take a host's
// name. docs/enrollment.md.

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
  // Adds `enroll`, `hosts` and `readers` to `app`.
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
  Status ListReaders(EnrollmentRegistry& registry, Clock::time_point now, std::ostream& out) const;
  Status RevokeReader(EnrollmentRegistry& registry, Clock::time_point now, std::ostream& out) const;

  CLI::App* enroll_ = nullptr;
  CLI::App* create_ = nullptr;
  CLI::App* list_ = nullptr;
  CLI::App* revoke_ = nullptr;
  CLI::App* hosts_ = nullptr;
  CLI::App* hosts_list_ = nullptr;
  CLI::App* hosts_revoke_ = nullptr;
  CLI::App* readers_ = nullptr;
  CLI::App* readers_list_ = nullptr;
  CLI::App* readers_revoke_ = nullptr;
  std::string data_;
  std::vector<std::string> host_patterns_;
  std::optional<int> uses_;
  bool read_ = false;
  int64_t expires_seconds_ = 0;
  std::string id_;
  std::string name_;  // the host's or reader's to revoke
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_ENROLL_COMMAND_H_
