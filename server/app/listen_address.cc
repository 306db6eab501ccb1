#include "server/app/listen_address.h"

#include <exception>

namespace perfhive {

bool IsLoopback(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  return host == "localhost" || host.starts_with("127.") || host == "[::1]" || host == "::1";
}

Result<std::pair<std::string, uint16_t>> SplitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("give HOST:PORT, not " + address);
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535) return Status::InvalidArgument("bad port in " + address);
  return std::make_pair(host, static_cast<uint16_t>(port));
}

}  // namespace perfhive
