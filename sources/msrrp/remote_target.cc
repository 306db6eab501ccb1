#include "sources/msrrp/remote_target.h"

#include <charconv>

namespace perfhive {

std::string RemoteTarget::Name() const {
  return "\\\\" + host + (port == 445 ? "" : ":" + std::to_string(port));
}

Result<RemoteTarget> ParseRemoteTarget(std::string_view text) {
  std::string_view rest = text;
  if (rest.starts_with("\\\\")) rest.remove_prefix(2);
  RemoteTarget target;
  size_t colon = rest.find(':');
  target.host = std::string(rest.substr(0, colon));
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("target \"" + std::string(text) + "\": " + why +
                                   " (expected \\\\HOST or \\\\HOST:PORT)");
  };
  if (target.host.empty()) return bad("no host name");
  // Characters that would change the meaning of the smb:// URL the transport builds.
  if (target.host.find_first_of("/\\@?#% ") != std::string::npos) {
    return bad("the host name has a character a host name cannot have");
  }
  if (colon != std::string_view::npos) {
    std::string_view port = rest.substr(colon + 1);
    unsigned value = 0;
    auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535) {
      return bad("the port is not a number from 1 to 65535");
    }
    target.port = static_cast<uint16_t>(value);
  }
  return target;
}

}  // namespace perfhive
