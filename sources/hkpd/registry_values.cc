#include "sources/hkpd/registry_values.h"

#include <span>
#include <vector>

#include "base/byte_order.h"
#include "perfdata/text_encoding.h"

namespace perfhive {

std::optional<uint32_t> ReadDwordValue(RegistryApi& api, RegistryKey key, const std::string& name) {
  uint8_t value[4];
  uint32_t size = sizeof value;
  uint32_t type = 0;
  if (api.QueryValue(key, name, value, &size, &type) != win_error::kSuccess || type != kRegDword ||
      size != sizeof value) {
    return std::nullopt;
  }
  return LoadU32(value);
}

std::string ReadTextValue(RegistryApi& api, RegistryKey key, const std::string& name,
                          size_t max_bytes, bool expandable) {
  std::vector<uint8_t> value(max_bytes);
  uint32_t size = static_cast<uint32_t>(value.size());
  uint32_t type = 0;
  if (api.QueryValue(key, name, value.data(), &size, &type) != win_error::kSuccess ||
      !(type == kRegSz || (expandable && type == kRegExpandSz)) || size > value.size()) {
    return "";
  }
  std::string text = Utf16LeToUtf8(std::span<const uint8_t>(value.data(), size & ~1u));
  return text.substr(0, text.find('\0'));
}

}  // namespace perfhive
