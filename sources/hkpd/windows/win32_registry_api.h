// Win32RegistryApi: the RegistryApi seam over the real advapi32 calls.

#ifndef PERFHIVE_SOURCES_HKPD_WINDOWS_WIN32_REGISTRY_API_H_
#define PERFHIVE_SOURCES_HKPD_WINDOWS_WIN32_REGISTRY_API_H_

#include "sources/hkpd/registry_api.h"

namespace perfhive {

class Win32RegistryApi : public RegistryApi {
 public:
  RegistryKey Predefined(PredefinedKey which) override;
  long QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer, uint32_t* size,
                  uint32_t* type) override;
  long ConnectRegistry(const std::string& machine, PredefinedKey which, RegistryKey* out) override;
  long OpenKey(RegistryKey parent, const std::string& subkey, RegistryKey* out) override;
  long EnumKey(RegistryKey key, uint32_t index, std::string* name) override;
  long CloseKey(RegistryKey key) override;
};

// The registry API has no state: one instance serves every source.
Win32RegistryApi& SystemRegistry();

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_WINDOWS_WIN32_REGISTRY_API_H_
