#include "pki/random_hex.h"

#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <span>

#include "port/sha256.h"

namespace perfhive {

Result<std::string> RandomHex(size_t bytes) {
  std::array<uint8_t, 32> random{};
  if (bytes > random.size() || RAND_bytes(random.data(), static_cast<int>(bytes)) != 1) {
    return Status::Internal("the random number generator failed");
  }
  return ToHex(std::span<const uint8_t>(random.data(), bytes));
}

}  // namespace perfhive
