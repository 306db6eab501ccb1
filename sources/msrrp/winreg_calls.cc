#include "sources/msrrp/winreg_calls.h"

#include <algorithm>
#include <string>

#include "sources/msrrp/ndr.h"

namespace perfhive::winreg {
namespace {

void PutHandle(ndr::Writer& out, const ContextHandle& key) { out.Bytes(key); }

}  // namespace

std::vector<uint8_t> EncodeOpenPredefinedKey(uint32_t sam_desired) {
  ndr::Writer out;
  out.U32(0);  // ServerName: NULL (MS-RRP: SHOULD be NULL, MUST be ignored)
  out.U32(sam_desired);
  return out.Take();
}

std::vector<uint8_t> EncodeCloseKey(const ContextHandle& key) {
  ndr::Writer out;
  PutHandle(out, key);
  return out.Take();
}

std::vector<uint8_t> EncodeOpenKey(const ContextHandle& parent, std::string_view subkey,
                                   uint32_t sam_desired) {
  ndr::Writer out;
  PutHandle(out, parent);
  out.UnicodeString(subkey);
  out.U32(0);  // dwOptions
  out.U32(sam_desired);
  return out.Take();
}

// Key names are at most 255 characters; the buffer holds them and the NUL.
constexpr uint16_t kKeyNameBytes = 256 * 2;

std::vector<uint8_t> EncodeEnumKey(const ContextHandle& key, uint32_t index) {
  ndr::Writer out;
  PutHandle(out, key);
  out.U32(index);
  out.EmptyUnicodeString(kKeyNameBytes);  // lpNameIn: the room for the name
  // lpClassIn: Samba refuses a NULL one; an empty buffer of its own asks for no class.
  out.Referent();
  out.EmptyUnicodeString(kKeyNameBytes);
  out.U32(0);  // lpftLastWriteTime: not asked for
  return out.Take();
}

std::vector<uint8_t> EncodeQueryValue(const ContextHandle& key, std::string_view name,
                                      uint32_t buffer_bytes) {
  buffer_bytes = std::min(buffer_bytes, kMaxValueBytes);
  ndr::Writer out;
  PutHandle(out, key);
  out.UnicodeString(name);
  out.Referent();  // lpType
  out.U32(0);
  // lpData: a buffer of buffer_bytes with nothing in it yet, so only its conformance travels.
  // It must not be NULL: a server then reports the size without data (Samba answers success).
  out.Referent();
  out.U32(buffer_bytes);  // max count
  out.U32(0);             // offset
  out.U32(0);             // actual count
  out.Referent();         // lpcbData
  out.U32(buffer_bytes);
  out.Referent();  // lpcbLen
  out.U32(0);
  return out.Take();
}

Result<HandleReply> ParseHandleReply(std::span<const uint8_t> stub, std::string_view call) {
  ndr::Reader in(stub, std::string(call) + " reply");
  HandleReply reply{};
  std::span<const uint8_t> handle = in.Bytes(reply.handle.size(), "phKey");
  reply.error = in.U32("return value");
  if (!in.ok()) return in.status();
  std::copy(handle.begin(), handle.end(), reply.handle.begin());
  return reply;
}

Result<EnumKeyReply> ParseEnumKeyReply(std::span<const uint8_t> stub) {
  ndr::Reader in(stub, "BaseRegEnumKey reply");
  EnumKeyReply reply;
  reply.name = in.UnicodeString("lpNameOut", kKeyNameBytes / 2);
  if (in.U32("lplpClassOut pointer") != 0) in.UnicodeString("lplpClassOut", kKeyNameBytes / 2);
  if (in.U32("lpftLastWriteTime pointer") != 0) in.Bytes(8, "lpftLastWriteTime");
  reply.error = in.U32("return value");
  if (!in.ok()) return in.status();
  if (reply.error != 0) reply.name.clear();
  return reply;
}

Result<QueryValueReply> ParseQueryValueReply(std::span<const uint8_t> stub, uint32_t buffer_bytes) {
  buffer_bytes = std::min(buffer_bytes, kMaxValueBytes);
  ndr::Reader in(stub, "BaseRegQueryValue reply");
  QueryValueReply reply;
  if (in.U32("lpType pointer") != 0) reply.type = in.U32("lpType");
  size_t data_offset = 0;
  if (in.U32("lpData pointer") != 0) {
    data_offset = in.offset();
    std::span<const uint8_t> data = in.ConformantVaryingBytes("lpData", kMaxValueBytes);
    reply.data.assign(data.begin(), data.end());
  }
  if (in.U32("lpcbData pointer") != 0) reply.data_size = in.U32("lpcbData");
  if (in.U32("lpcbLen pointer") != 0) reply.data_length = in.U32("lpcbLen");
  reply.error = in.U32("return value");
  if (!in.ok()) return in.status();
  if (reply.data.size() > buffer_bytes) {
    return Status::DataLoss("BaseRegQueryValue reply: lpData at byte " +
                            std::to_string(data_offset) + ": " + std::to_string(reply.data.size()) +
                            " bytes in a " + std::to_string(buffer_bytes) + "-byte buffer");
  }
  if (reply.error == 0 && reply.data_length && *reply.data_length != reply.data.size()) {
    return Status::DataLoss("BaseRegQueryValue reply: lpcbLen says " +
                            std::to_string(*reply.data_length) + " bytes, lpData at byte " +
                            std::to_string(data_offset) + " holds " +
                            std::to_string(reply.data.size()));
  }
  return reply;
}

}  // namespace perfhive::winreg
