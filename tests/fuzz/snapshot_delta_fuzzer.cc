// Feeds hostile delta frames to DecodeDelta and to the bounded zstd decoder. The input is a
// little-endian u16 base length, that many base bytes, then the frame. Any crash, read outside a
// buffer, or allocation beyond the limit (libFuzzer's -rss_limit_mb and -malloc_limit_mb) is a
// bug; a frame that decodes must come back the same through EncodeDelta.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "codec/snapshot_delta.h"
#include "codec/zstd_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  size_t base_size = data[0] | (size_t{data[1]} << 8);
  std::span<const uint8_t> input(data + 2, size - 2);
  if (base_size > input.size()) return 0;
  std::span<const uint8_t> base = input.first(base_size);
  std::span<const uint8_t> frame = input.subspan(base_size);

  // A small limit, as a server has: hostile headers must not reach past it.
  constexpr size_t kLimit = 4 * 1024 * 1024;
  (void)perfhive::ZstdDecompress(frame, kLimit);
  (void)perfhive::ZstdDecompress(frame, kLimit, base);
  perfhive::Result<std::vector<uint8_t>> restored = perfhive::DecodeDelta(base, frame, kLimit);
  if (!restored.ok()) return 0;
  std::vector<uint8_t> again = perfhive::EncodeDelta(base, *restored);
  perfhive::Result<std::vector<uint8_t>> back = perfhive::DecodeDelta(base, again, kLimit);
  if (!back.ok() || *back != *restored) std::abort();
  return 0;
}
