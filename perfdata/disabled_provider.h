// DisabledProvider: a Windows service whose performance counter provider Perflib will not load,
// because its `Disable Performance Counters` registry value is not 0. Perflib sets the value to 1
// when a provider's DLL fails its checks (the Application event log then has a Perflib error), and
// administrators set it by hand or with `lodctr /D:<service>`. Its objects then vanish from
// HKEY_PERFORMANCE_DATA without an error: the agent looks for these values and the server's
// health report names them (docs/health.md).

#ifndef PERFHIVE_PERFDATA_DISABLED_PROVIDER_H_
#define PERFHIVE_PERFDATA_DISABLED_PROVIDER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace perfhive {

// Where services keep their providers, under HKEY_LOCAL_MACHINE.
inline constexpr char kServicesKey[] = "SYSTEM\\CurrentControlSet\\Services";
inline constexpr char kDisablePerformanceCounters[] = "Disable Performance Counters";

struct DisabledProvider {
  std::string service;         // the service's key name: "PerfOS", "MSSQL$SQL01"
  uint32_t disable_value = 0;  // `Disable Performance Counters`, never 0 here
  std::string library;         // the provider's DLL (its "Library" value); empty when not set
  // The title indexes of the objects it provides (its "Object List" value), when it has one.
  std::vector<uint32_t> object_indexes;

  bool operator==(const DisabledProvider&) const = default;
};

// "HKLM\SYSTEM\CurrentControlSet\Services\<service>\Performance": the key to look at.
inline std::string ProviderKeyPath(const std::string& service) {
  return std::string("HKLM\\") + kServicesKey + "\\" + service + "\\Performance";
}

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_DISABLED_PROVIDER_H_
