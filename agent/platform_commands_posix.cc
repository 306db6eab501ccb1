// Linux and other POSIX systems have no commands of their own: systemd starts `run` as the
// Debian package installs it (packaging/debian).

#include "agent/platform_commands.h"

namespace perfhive {

namespace {

class PosixCommands : public PlatformCommands {
 public:
  std::optional<int> RunParsed(const std::function<int(const std::string&, Logger&)>&) override {
    return std::nullopt;
  }
  int AfterConfigure(bool, Logger&) override { return 0; }
};

}  // namespace

std::unique_ptr<PlatformCommands> AddPlatformCommands(CLI::App&, CLI::App&) {
  return std::make_unique<PosixCommands>();
}

}  // namespace perfhive
