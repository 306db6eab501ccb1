// NDR, the DCE/RPC transfer syntax (version 2.0, little-endian, as every Windows peer sends it),
// for the few shapes the winreg calls use: integers aligned to their size, unique pointers
// (a referent id, 0 for NULL), conformant varying arrays (max count, offset, actual count,
// elements) and RPC_UNICODE_STRING. Alignment is counted from the start of the stub, which a
// PDU always places at an 8-byte boundary.

#ifndef PERFHIVE_SOURCES_MSRRP_NDR_H_
#define PERFHIVE_SOURCES_MSRRP_NDR_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace perfhive::ndr {

// Builds a stub. Padding bytes are zero.
class Writer {
 public:
  void Align(size_t boundary);
  void U8(uint8_t value) { bytes_.push_back(value); }
  void U16(uint16_t value);
  void U32(uint32_t value);
  void Bytes(std::span<const uint8_t> bytes);
  // A non-NULL unique pointer: the next referent id (they only need to be distinct and
  // non-zero).
  void Referent() { U32(next_referent_++ * 4); }
  // RPC_UNICODE_STRING with its buffer deferred right behind it (the only pointer in the
  // structures sent here), NUL-terminated as MS-RRP's RRP_UNICODE_STRING must be, with Length
  // and MaximumLength in bytes including the NUL.
  void UnicodeString(std::string_view utf8);
  // RPC_UNICODE_STRING with no characters and room for `max_bytes` (even): a buffer the server
  // fills, as BaseRegEnumKey's name.
  void EmptyUnicodeString(uint16_t max_bytes);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t> Take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
  uint32_t next_referent_ = 1;
};

// Reads a stub without ever reading past its end. The first failure sticks: later reads
// return 0 and empty spans, and status() names the structure, the field and its byte offset,
// so a caller reads a whole reply and checks once. Errors are DataLoss: the peer sent bytes
// that do not parse.
class Reader {
 public:
  // `what` names the reply in messages ("BaseRegQueryValue reply").
  Reader(std::span<const uint8_t> stub, std::string what);

  void Align(size_t boundary, std::string_view field);
  uint8_t U8(std::string_view field);
  uint16_t U16(std::string_view field);
  uint32_t U32(std::string_view field);
  std::span<const uint8_t> Bytes(size_t count, std::string_view field);
  // A conformant varying byte array: max count, offset, actual count (checked against each
  // other and against `limit`), then the bytes.
  std::span<const uint8_t> ConformantVaryingBytes(std::string_view field, uint32_t limit);
  // RPC_UNICODE_STRING (Length, MaximumLength, a unique Buffer with its conformant varying array
  // of UTF-16 characters right behind it), as UTF-8 without the NULs that end it. Length must be
  // even and within MaximumLength, the array whole (offset 0) and of at most `limit` characters.
  std::string UnicodeString(std::string_view field, uint32_t limit);
  // Records a failure found by the caller (a value that parses but makes no sense).
  void Fail(std::string_view field, const std::string& problem);

  size_t offset() const { return offset_; }
  size_t remaining() const { return stub_.size() - offset_; }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  bool Need(size_t count, std::string_view field);
  void FailAt(size_t offset, std::string_view field, const std::string& problem);

  std::span<const uint8_t> stub_;
  std::string what_;
  size_t offset_ = 0;
  Status status_;
};

}  // namespace perfhive::ndr

#endif  // PERFHIVE_SOURCES_MSRRP_NDR_H_
