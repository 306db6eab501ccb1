#include "agent/windows/win32_registry_api.h"

#include <windows.h>

#include <memory>
#include <string>

#include "agent/hkpd_source.h"

namespace perfhive {
namespace {

HKEY ToHkey(RegistryKey key) { return reinterpret_cast<HKEY>(key); }
RegistryKey FromHkey(HKEY key) { return reinterpret_cast<RegistryKey>(key); }

std::wstring Widen(const std::string& utf8) {
  if (utf8.empty()) return std::wstring();
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring wide(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), wide.data(), n);
  return wide;
}

}  // namespace

RegistryKey Win32RegistryApi::Predefined(PredefinedKey which) {
  return FromHkey(which == PredefinedKey::kPerformanceData ? HKEY_PERFORMANCE_DATA
                                                           : HKEY_LOCAL_MACHINE);
}

long Win32RegistryApi::QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer,
                                  uint32_t* size, uint32_t* type) {
  std::wstring wide_name = Widen(name);  // never NULL: a NULL name crashes Wine
  DWORD bytes = *size;
  DWORD value_type = 0;
  LONG rc = RegQueryValueExW(ToHkey(key), wide_name.c_str(), nullptr, &value_type, buffer, &bytes);
  *size = bytes;
  if (type) *type = value_type;
  return rc;
}

long Win32RegistryApi::ConnectRegistry(const std::string& machine, PredefinedKey which,
                                       RegistryKey* out) {
  std::wstring wide_machine = Widen(machine);
  HKEY result = nullptr;
  LONG rc = RegConnectRegistryW(wide_machine.c_str(), ToHkey(Predefined(which)), &result);
  if (rc == ERROR_SUCCESS) *out = FromHkey(result);
  return rc;
}

long Win32RegistryApi::OpenKey(RegistryKey parent, const std::string& subkey, RegistryKey* out) {
  std::wstring wide_subkey = Widen(subkey);
  HKEY result = nullptr;
  LONG rc = RegOpenKeyExW(ToHkey(parent), wide_subkey.c_str(), 0, KEY_READ, &result);
  if (rc == ERROR_SUCCESS) *out = FromHkey(result);
  return rc;
}

long Win32RegistryApi::CloseKey(RegistryKey key) { return RegCloseKey(ToHkey(key)); }

std::unique_ptr<SnapshotSource> MakeLocalHkpdSource() {
  static Win32RegistryApi api;
  return std::make_unique<LocalHkpdSource>(api);
}

std::unique_ptr<SnapshotSource> MakeRemoteHkpdSource(const std::string& machine) {
  static Win32RegistryApi api;
  return std::make_unique<RemoteHkpdSource>(api, machine);
}

}  // namespace perfhive
