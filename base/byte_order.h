// Little-endian loads and stores at arbitrary (possibly unaligned) addresses. Windows
// performance data is little-endian whatever the host; memcpy keeps the loads free of
// alignment and aliasing undefined behaviour and compiles to a single move.

#ifndef PERFHIVE_BASE_BYTE_ORDER_H_
#define PERFHIVE_BASE_BYTE_ORDER_H_

#include <bit>
#include <cstdint>
#include <cstring>

namespace perfhive {

static_assert(std::endian::native == std::endian::little,
              "perfhive reads little-endian performance data in place");

inline uint16_t LoadU16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline int32_t LoadI32(const uint8_t* p) { return static_cast<int32_t>(LoadU32(p)); }
inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline int64_t LoadI64(const uint8_t* p) { return static_cast<int64_t>(LoadU64(p)); }

inline void StoreU16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, sizeof v); }
inline void StoreU32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, sizeof v); }
inline void StoreI32(uint8_t* p, int32_t v) { StoreU32(p, static_cast<uint32_t>(v)); }
inline void StoreU64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, sizeof v); }
inline void StoreI64(uint8_t* p, int64_t v) { StoreU64(p, static_cast<uint64_t>(v)); }

}  // namespace perfhive

#endif  // PERFHIVE_BASE_BYTE_ORDER_H_
