#include "config/remote_target.h"

namespace perfhive {

std::string RemoteHostConfig::Name() const {
  if (!host_name.empty()) return host_name;
  std::string_view rest = address;
  if (rest.starts_with("\\\\")) rest.remove_prefix(2);
  return std::string(rest.substr(0, rest.find(':')));
}

Status CheckTargetName(const RemoteHostConfig& target, std::string_view where) {
  std::string name = target.Name();
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\\") != std::string::npos) {
    return Status::InvalidArgument(std::string(where) + ": \"" + name + "\" is not a host name");
  }
  return Status();
}

Result<RemoteHostConfig> ParseTargetFlag(std::string_view text) {
  RemoteHostConfig target;
  size_t equals = text.find('=');
  target.address = std::string(text.substr(0, equals));
  if (equals != std::string_view::npos) target.host_name = std::string(text.substr(equals + 1));
  std::string where = "--target " + std::string(text);
  if (target.address.empty()) {
    return Status::InvalidArgument(where + ": expected \\\\HOST[:PORT] or \\\\HOST[:PORT]=NAME");
  }
  if (Status status = CheckTargetName(target, where); !status.ok()) return status;
  return target;
}

}  // namespace perfhive
