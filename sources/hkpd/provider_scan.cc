#include "sources/hkpd/provider_scan.h"

#include <algorithm>
#include <string>

#include "perfdata/index_list.h"
#include "sources/hkpd/registry_values.h"
#include "sources/hkpd/windows_error.h"

namespace perfhive {
namespace {

// A host has a few hundred services; more than this is not a registry to walk.
constexpr uint32_t kMostServices = 20000;
// A provider's Library and Object List: up to 1,024 characters.
constexpr size_t kMostTextBytes = 2048;

// Closes a key it was given when it goes.
class KeyCloser {
 public:
  KeyCloser(RegistryApi& api, RegistryKey key) : api_(api), key_(key) {}
  KeyCloser(const KeyCloser&) = delete;
  KeyCloser& operator=(const KeyCloser&) = delete;
  ~KeyCloser() { api_.CloseKey(key_); }

 private:
  RegistryApi& api_;
  RegistryKey key_;
};

}  // namespace

Result<std::vector<DisabledProvider>> ScanDisabledProviders(RegistryApi& api,
                                                            RegistryKey local_machine) {
  RegistryKey services = 0;
  if (long rc = api.OpenKey(local_machine, kServicesKey, &services); rc != win_error::kSuccess) {
    return Status::Unavailable(std::string("cannot open HKLM\\") + kServicesKey + ": " +
                               DescribeWindowsError(rc));
  }
  KeyCloser close_services(api, services);
  std::vector<DisabledProvider> disabled;
  for (uint32_t index = 0;; ++index) {
    if (index == kMostServices) {
      return Status::ResourceExhausted(std::string("HKLM\\") + kServicesKey + " has over " +
                                       std::to_string(kMostServices) + " services");
    }
    std::string service;
    long rc = api.EnumKey(services, index, &service);
    if (rc == win_error::kNoMoreItems) break;
    if (rc != win_error::kSuccess) {
      return Status::Unavailable(std::string("cannot list the services under HKLM\\") +
                                 kServicesKey + ": " + DescribeWindowsError(rc));
    }
    RegistryKey performance = 0;
    if (api.OpenKey(services, service + "\\Performance", &performance) != win_error::kSuccess) {
      continue;
    }
    KeyCloser close_performance(api, performance);
    std::optional<uint32_t> value = ReadDwordValue(api, performance, kDisablePerformanceCounters);
    if (!value || *value == 0) continue;
    disabled.push_back(
        {.service = service,
         .disable_value = *value,
         .library = ReadTextValue(api, performance, "Library", kMostTextBytes,
                                  /*expandable=*/true),
         // An "Object List" that is not one (none is) lists no objects.
         .object_indexes =
             ParseIndexList(ReadTextValue(api, performance, "Object List", kMostTextBytes))
                 .value_or(std::vector<uint32_t>{})});
  }
  std::sort(
      disabled.begin(), disabled.end(),
      [](const DisabledProvider& a, const DisabledProvider& b) { return a.service < b.service; });
  return disabled;
}

}  // namespace perfhive
