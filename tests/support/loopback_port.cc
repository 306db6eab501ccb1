#include "tests/support/loopback_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>

namespace perfhive::testing {
namespace {

// The lowest port the kernel hands out on its own (32768 by default).
int EphemeralRangeStart() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0;
  if (!(range >> low)) return 32768;
  return low;
}

bool Bindable(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address = LoopbackAddress(port);
  bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return bound;
}

}  // namespace

sockaddr_in LoopbackAddress(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  return address;
}

uint16_t UnusedLoopbackPort() {
  // 10,000 ports under the ephemeral range, or from 1024 up where the range starts low.
  const int end = EphemeralRangeStart();
  const int begin = end - 10'000 >= 1024 ? end - 10'000 : 1024;
  if (end <= begin) throw std::runtime_error("ip_local_port_range leaves no port below it");
  std::random_device seed;
  std::mt19937 random(seed());
  std::uniform_int_distribution<int> pick(begin, end - 1);
  // A test often asks for several ports before it binds any (a server's gRPC, console and
  // metrics ports): each goes to one caller of this process only.
  static std::mutex mutex;
  static std::set<uint16_t> handed_out;
  std::lock_guard lock(mutex);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto port = static_cast<uint16_t>(pick(random));
    if (!handed_out.contains(port) && Bindable(port)) {
      handed_out.insert(port);
      return port;
    }
  }
  throw std::runtime_error("no port on 127.0.0.1 below the ephemeral range could be bound");
}

}  // namespace perfhive::testing
