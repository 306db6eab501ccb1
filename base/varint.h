// The one LEB128 codec: unsigned numbers of up to 64 bits written seven bits a byte, low bits
// first, the high bit of each byte saying another follows. The store's columnar blocks and
// sectioned frames are made of them. GetVarint decodes one number; ByteReader reads a run of
// them, checking each against the bytes left, and keeps the first error and reads nothing after
// it, so a decoder checks once per loop instead of after every number.

#ifndef PERFHIVE_BASE_VARINT_H_
#define PERFHIVE_BASE_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace perfhive {

void PutVarint64(std::vector<uint8_t>& out, uint64_t value);
// The bytes PutVarint64 writes for `value`.
size_t VarintSize(uint64_t value);

// Signed numbers as varints: small magnitudes of either sign take few bytes (0, -1, 1, -2, ...).
inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

enum class VarintRead {
  kOk,
  kTruncated,  // the bytes end before the number does
  kTooLong,    // the number needs more than `max_bits`, or runs past their bytes
};
// Decodes the number at bytes[at] into `value`, of at most `max_bits` (32 or 64), and moves `at`
// past the bytes read (also when it fails, so an error can say where).
VarintRead GetVarint(std::span<const uint8_t> bytes, size_t& at, int max_bits, uint64_t& value);

class ByteReader {
 public:
  // `what` names the bytes in errors ("columnar block").
  ByteReader(std::span<const uint8_t> bytes, std::string what)
      : bytes_(bytes), what_(std::move(what)) {}

  // Each returns 0 (or empty) once an error was met; `field` names what was read.
  uint64_t Varint64(const char* field) {
    // One byte is the common case (counts, sizes, small deltas of a columnar block's values):
    // read here, inline; a decoder reads millions of them.
    if (error_.empty() && at_ < bytes_.size() && bytes_[at_] < 0x80) return bytes_[at_++];
    return LongVarint64(field);
  }
  // A varint that must not exceed `max`.
  uint64_t Bounded(uint64_t max, const char* field);
  uint8_t Byte(const char* field);
  std::span<const uint8_t> Fixed(uint64_t size, const char* field);
  // A varint length, then that many bytes.
  std::span<const uint8_t> Bytes(const char* field);
  // Records an error found by the caller (the first one is kept).
  void Fail(const std::string& message);

  size_t at() const { return at_; }
  size_t left() const { return bytes_.size() - at_; }
  bool ok() const { return error_.empty(); }
  // DATA_LOSS naming the bytes, the field and the byte; OK when nothing failed.
  Status status() const;

 private:
  uint64_t LongVarint64(const char* field);

  std::span<const uint8_t> bytes_;
  std::string what_;
  size_t at_ = 0;
  std::string error_;
};

}  // namespace perfhive

#endif  // PERFHIVE_BASE_VARINT_H_
