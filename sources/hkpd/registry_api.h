// RegistryApi: the seam over the few registry calls the Windows sources make
// (RegQueryValueExW, RegConnectRegistryW, RegOpenKeyExW, RegEnumKeyExW, RegCloseKey). The real
// implementation (sources/hkpd/windows/) forwards to advapi32; tests on any platform use a fake
// that replays recorded or builder-made blobs and scripted failures, so the same source code is
// tested everywhere.

#ifndef PERFHIVE_SOURCES_HKPD_REGISTRY_API_H_
#define PERFHIVE_SOURCES_HKPD_REGISTRY_API_H_

#include <cstdint>
#include <string>

namespace perfhive {

// An open key: an HKEY's bits on Windows, any token in a fake.
using RegistryKey = uintptr_t;

// kPerformanceNlsText (HKEY_PERFORMANCE_NLSTEXT: the title lists in the display language) is
// this machine's only: RegConnectRegistryW does not offer it for another.
enum class PredefinedKey { kPerformanceData, kLocalMachine, kPerformanceNlsText };

// Windows error codes the sources act on (winerror.h).
namespace win_error {
inline constexpr long kSuccess = 0;
inline constexpr long kFileNotFound = 2;
inline constexpr long kAccessDenied = 5;
inline constexpr long kInvalidHandle = 6;
inline constexpr long kBadNetpath = 53;
inline constexpr long kInvalidParameter = 87;
inline constexpr long kBusy = 170;
inline constexpr long kMoreData = 234;
inline constexpr long kNoMoreItems = 259;
inline constexpr long kRpcServerUnavailable = 1722;
inline constexpr long kRpcCallFailed = 1726;
}  // namespace win_error

// Registry value types (winnt.h).
inline constexpr uint32_t kRegSz = 1;
inline constexpr uint32_t kRegExpandSz = 2;
inline constexpr uint32_t kRegBinary = 3;
inline constexpr uint32_t kRegDword = 4;
inline constexpr uint32_t kRegMultiSz = 7;

class RegistryApi {
 public:
  virtual ~RegistryApi() = default;

  // The predefined key on this machine (HKEY_PERFORMANCE_DATA, HKEY_LOCAL_MACHINE,
  // HKEY_PERFORMANCE_NLSTEXT).
  virtual RegistryKey Predefined(PredefinedKey which) = 0;

  // RegQueryValueExW: on entry *size is the buffer's size, on return the bytes written (or, with
  // kMoreData, whatever the implementation reports: not to be trusted). `name` is UTF-8 and never
  // null (a NULL value name crashes Wine). Returns a Windows error code.
  virtual long QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer, uint32_t* size,
                          uint32_t* type) = 0;

  // RegConnectRegistryW(machine, which, out). `machine` as the user wrote it ("\\host" or "host").
  virtual long ConnectRegistry(const std::string& machine, PredefinedKey which,
                               RegistryKey* out) = 0;

  // RegOpenKeyExW(parent, subkey, 0, KEY_READ, out).
  virtual long OpenKey(RegistryKey parent, const std::string& subkey, RegistryKey* out) = 0;

  // RegEnumKeyExW(key, index, ...): the name of its index-th subkey (UTF-8), or kNoMoreItems
  // past the last.
  virtual long EnumKey(RegistryKey key, uint32_t index, std::string* name) = 0;

  // RegCloseKey.
  virtual long CloseKey(RegistryKey key) = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_REGISTRY_API_H_
