#include "agent/instance_id.h"

#include <array>
#include <cstdint>
#include <random>

#include "port/sha256.h"

namespace perfhive {

std::string NewInstanceId() {
  std::random_device random;
  std::array<uint8_t, 16> bits;
  for (size_t i = 0; i < bits.size(); i += 4) {
    uint32_t word = random();
    for (size_t j = 0; j < 4; ++j) bits[i + j] = static_cast<uint8_t>(word >> (8 * j));
  }
  return ToHex(bits);
}

}  // namespace perfhive
