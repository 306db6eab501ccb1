#include "sources/msrrp/ndr.h"

#include <algorithm>
#include <limits>

#include "base/byte_order.h"
#include "perfdata/text_encoding.h"

namespace perfhive::ndr {

void Writer::Align(size_t boundary) {
  while (bytes_.size() % boundary != 0) bytes_.push_back(0);
}

void Writer::U16(uint16_t value) {
  Align(2);
  uint8_t raw[2];
  StoreU16(raw, value);
  Bytes(raw);
}

void Writer::U32(uint32_t value) {
  Align(4);
  uint8_t raw[4];
  StoreU32(raw, value);
  Bytes(raw);
}

void Writer::Bytes(std::span<const uint8_t> bytes) {
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
}

void Writer::UnicodeString(std::string_view utf8) {
  std::vector<uint8_t> utf16 = Utf8ToUtf16Le(utf8);
  // The lengths are 16-bit byte counts: a longer name (none is, registry names stop at 16383
  // characters) is cut rather than wrapped around.
  utf16.resize(std::min<size_t>(utf16.size(), std::numeric_limits<uint16_t>::max() - 3));
  utf16.push_back(0);
  utf16.push_back(0);
  auto bytes = static_cast<uint16_t>(utf16.size());
  U16(bytes);      // Length
  U16(bytes);      // MaximumLength
  Referent();      // Buffer
  U32(bytes / 2);  // max count, in characters
  U32(0);          // offset
  U32(bytes / 2);  // actual count
  Bytes(utf16);
  Align(4);
}

void Writer::EmptyUnicodeString(uint16_t max_bytes) {
  U16(0);          // Length
  U16(max_bytes);  // MaximumLength
  Referent();      // Buffer
  U32(max_bytes / 2);
  U32(0);
  U32(0);
}

Reader::Reader(std::span<const uint8_t> stub, std::string what)
    : stub_(stub), what_(std::move(what)) {}

void Reader::Fail(std::string_view field, const std::string& problem) {
  FailAt(offset_, field, problem);
}

void Reader::FailAt(size_t offset, std::string_view field, const std::string& problem) {
  if (!status_.ok()) return;
  status_ = Status::DataLoss(what_ + ": " + std::string(field) + " at byte " +
                             std::to_string(offset) + ": " + problem);
}

bool Reader::Need(size_t count, std::string_view field) {
  if (!status_.ok()) return false;
  if (count > remaining()) {
    Fail(field, "needs " + std::to_string(count) + " bytes, the stub has " +
                    std::to_string(remaining()) + " left");
    return false;
  }
  return true;
}

void Reader::Align(size_t boundary, std::string_view field) {
  size_t padding = (boundary - offset_ % boundary) % boundary;
  if (Need(padding, field)) offset_ += padding;
}

uint8_t Reader::U8(std::string_view field) {
  if (!Need(1, field)) return 0;
  return stub_[offset_++];
}

uint16_t Reader::U16(std::string_view field) {
  Align(2, field);
  if (!Need(2, field)) return 0;
  uint16_t value = LoadU16(stub_.data() + offset_);
  offset_ += 2;
  return value;
}

uint32_t Reader::U32(std::string_view field) {
  Align(4, field);
  if (!Need(4, field)) return 0;
  uint32_t value = LoadU32(stub_.data() + offset_);
  offset_ += 4;
  return value;
}

std::span<const uint8_t> Reader::Bytes(size_t count, std::string_view field) {
  if (!Need(count, field)) return {};
  std::span<const uint8_t> bytes = stub_.subspan(offset_, count);
  offset_ += count;
  return bytes;
}

std::span<const uint8_t> Reader::ConformantVaryingBytes(std::string_view field, uint32_t limit) {
  Align(4, field);
  size_t start = offset_;
  uint32_t max_count = U32(field);
  uint32_t first = U32(field);
  uint32_t actual = U32(field);
  if (!ok()) return {};
  if (max_count > limit) {
    FailAt(
        start, field,
        "max count " + std::to_string(max_count) + " is above the limit " + std::to_string(limit));
  } else if (first != 0) {
    // Every peer sends whole arrays; an offset would leave the array's head undefined.
    FailAt(start, field, "offset " + std::to_string(first) + " is not 0");
  } else if (actual > max_count) {
    FailAt(start, field,
           "actual count " + std::to_string(actual) + " exceeds max count " +
               std::to_string(max_count));
  }
  if (!ok()) return {};
  return Bytes(actual, field);
}

std::string Reader::UnicodeString(std::string_view field, uint32_t limit) {
  const size_t start = offset_;
  const uint16_t length = U16(field);
  const uint16_t max_length = U16(field);
  const uint32_t buffer = U32(field);
  if (!ok()) return "";
  if (length % 2 != 0 || length > max_length) {
    FailAt(start, field,
           "Length " + std::to_string(length) + " is odd or above MaximumLength " +
               std::to_string(max_length));
    return "";
  }
  if (buffer == 0) {
    if (length != 0) FailAt(start, field, "Length " + std::to_string(length) + " without a Buffer");
    return "";
  }
  Align(4, field);
  const size_t array = offset_;
  const uint32_t max_count = U32(field);
  const uint32_t first = U32(field);
  const uint32_t actual = U32(field);
  if (!ok()) return "";
  // Peers differ on whether Length counts the NUL that ends the characters: not checked.
  if (max_count > limit || first != 0 || actual > max_count) {
    FailAt(array, field,
           "its characters (max count " + std::to_string(max_count) + ", offset " +
               std::to_string(first) + ", actual count " + std::to_string(actual) +
               ") are not an array of at most " + std::to_string(limit));
    return "";
  }
  std::span<const uint8_t> characters = Bytes(size_t{actual} * 2, field);
  std::string text = Utf16LeToUtf8(characters);
  text.erase(std::find(text.begin(), text.end(), '\0'), text.end());
  return text;
}

}  // namespace perfhive::ndr
