// zstd compression for bytes that cross a trust boundary (the network, the disk). Decompression
// takes the most bytes the caller will accept and refuses, before allocating, any frame that
// declares more, does not declare its size, or carries anything after the frame: a small hostile
// frame must not make the reader allocate without bound.

#ifndef PERFHIVE_CODEC_ZSTD_CODEC_H_
#define PERFHIVE_CODEC_ZSTD_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace perfhive {

// One zstd frame holding `data`, with its size and a checksum of the content in the frame
// header. `prefix`, if not empty, is content both sides already hold (a previous snapshot): the
// frame may refer to it, and decompression needs the same bytes.
std::vector<uint8_t> ZstdCompress(std::span<const uint8_t> data, int level,
                                  std::span<const uint8_t> prefix = {});

// The content of exactly one zstd frame, at most `max_size` bytes.
Result<std::vector<uint8_t>> ZstdDecompress(std::span<const uint8_t> frame, size_t max_size,
                                            std::span<const uint8_t> prefix = {});
// The same into `out`, which the frame must declare exactly: a caller that knows the size puts
// several frames' contents into one buffer without a copy.
Status ZstdDecompressInto(std::span<const uint8_t> frame, std::span<uint8_t> out,
                          std::span<const uint8_t> prefix = {});

}  // namespace perfhive

#endif  // PERFHIVE_CODEC_ZSTD_CODEC_H_
