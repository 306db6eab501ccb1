// ScanDisabledProviders: which services' performance counter providers a Windows host has
// disabled, read from its registry (local, or remote through RegConnectRegistryW or MS-RRP)
// through the RegistryApi seam: every `HKLM\SYSTEM\CurrentControlSet\Services\<service>
// \Performance` key whose `Disable Performance Counters` value is not 0, with the provider's
// library and the objects it lists.

#ifndef PERFHIVE_SOURCES_HKPD_PROVIDER_SCAN_H_
#define PERFHIVE_SOURCES_HKPD_PROVIDER_SCAN_H_

#include <vector>

#include "base/status.h"
#include "perfdata/disabled_provider.h"
#include "sources/hkpd/registry_api.h"

namespace perfhive {

// `local_machine` is an open HKEY_LOCAL_MACHINE, left open. Services whose Performance key
// cannot be opened (none, or access denied) are not providers this scan can judge and are
// passed over; a failure to list the services is an error. By service name.
Result<std::vector<DisabledProvider>> ScanDisabledProviders(RegistryApi& api,
                                                            RegistryKey local_machine);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_PROVIDER_SCAN_H_
