#include "base/varint.h"

namespace perfhive {

void PutVarint64(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

size_t VarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

VarintRead GetVarint(std::span<const uint8_t> bytes, size_t& at, int max_bits, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < max_bits; shift += 7) {
    if (at >= bytes.size()) return VarintRead::kTruncated;
    const uint8_t byte = bytes[at++];
    // The tenth byte of a 64-bit number may carry only its 64th bit.
    if (shift == 63 && byte > 1) return VarintRead::kTooLong;
    value |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) {
      return max_bits < 64 && value >> max_bits != 0 ? VarintRead::kTooLong : VarintRead::kOk;
    }
  }
  return VarintRead::kTooLong;
}

uint64_t ByteReader::LongVarint64(const char* field) {
  if (!ok()) return 0;
  uint64_t value = 0;
  switch (GetVarint(bytes_, at_, 64, value)) {
    case VarintRead::kOk:
      return value;
    case VarintRead::kTruncated:
      Fail(std::string("ends inside ") + field);
      return 0;
    case VarintRead::kTooLong:
      break;
  }
  Fail(std::string(field) + " is not a 64-bit number");
  return 0;
}

uint64_t ByteReader::Bounded(uint64_t max, const char* field) {
  const uint64_t value = Varint64(field);
  if (value > max) {
    Fail(std::string(field) + " is " + std::to_string(value) + ", more than " +
         std::to_string(max));
    return 0;
  }
  return value;
}

uint8_t ByteReader::Byte(const char* field) {
  if (!ok()) return 0;
  if (at_ >= bytes_.size()) {
    Fail(std::string("ends inside ") + field);
    return 0;
  }
  return bytes_[at_++];
}

std::span<const uint8_t> ByteReader::Fixed(uint64_t size, const char* field) {
  if (!ok()) return {};
  if (size > left()) {
    Fail(std::string(field) + " of " + std::to_string(size) + " bytes runs past the end");
    return {};
  }
  std::span<const uint8_t> bytes = bytes_.subspan(at_, static_cast<size_t>(size));
  at_ += static_cast<size_t>(size);
  return bytes;
}

std::span<const uint8_t> ByteReader::Bytes(const char* field) {
  const uint64_t size = Varint64(field);
  return Fixed(size, field);
}

void ByteReader::Fail(const std::string& message) {
  if (error_.empty()) error_ = message + " at byte " + std::to_string(at_);
}

Status ByteReader::status() const {
  if (error_.empty()) return Status();
  return Status::DataLoss(what_ + ": " + error_);
}

}  // namespace perfhive
