// One small registry value read through the RegistryApi seam, as the Windows sources read them:
// Perflib's counts, the computer's name and build, a provider's settings.

#ifndef PERFHIVE_SOURCES_HKPD_REGISTRY_VALUES_H_
#define PERFHIVE_SOURCES_HKPD_REGISTRY_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "sources/hkpd/registry_api.h"

namespace perfhive {

// A REG_DWORD value; nullopt when absent or of another type or size.
std::optional<uint32_t> ReadDwordValue(RegistryApi& api, RegistryKey key, const std::string& name);

// A REG_SZ value (and REG_EXPAND_SZ, unexpanded, when `expandable`) of at most `max_bytes`, as
// UTF-8 without the NUL that ends it (which the registry may or may not count); "" when absent,
// of another type or longer.
std::string ReadTextValue(RegistryApi& api, RegistryKey key, const std::string& name,
                          size_t max_bytes, bool expandable = false);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_REGISTRY_VALUES_H_
