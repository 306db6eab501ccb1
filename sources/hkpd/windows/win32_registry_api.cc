#include "sources/hkpd/windows/win32_registry_api.h"

#include <windows.h>

#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

HKEY ToHkey(RegistryKey key) { return reinterpret_cast<HKEY>(key); }
RegistryKey FromHkey(HKEY key) { return reinterpret_cast<RegistryKey>(key); }

std::wstring Widen(const std::string& utf8) {
  std::vector<uint8_t> utf16 = Utf8ToUtf16Le(utf8);
  std::wstring wide(utf16.size() / 2, L'\0');
  std::memcpy(wide.data(), utf16.data(), utf16.size());
  return wide;
}

}  // namespace

Win32RegistryApi& SystemRegistry() {
  static Win32RegistryApi api;
  return api;
}

RegistryKey Win32RegistryApi::Predefined(PredefinedKey which) {
  switch (which) {
    case PredefinedKey::kPerformanceData:
      return FromHkey(HKEY_PERFORMANCE_DATA);
    case PredefinedKey::kPerformanceNlsText:
      return FromHkey(HKEY_PERFORMANCE_NLSTEXT);
    case PredefinedKey::kLocalMachine:
      break;
  }
  return FromHkey(HKEY_LOCAL_MACHINE);
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

long Win32RegistryApi::EnumKey(RegistryKey key, uint32_t index, std::string* name) {
  wchar_t buffer[256];  // a key name is at most 255 characters
  DWORD length = static_cast<DWORD>(std::size(buffer));
  LONG rc = RegEnumKeyExW(ToHkey(key), index, buffer, &length, nullptr, nullptr, nullptr, nullptr);
  if (rc == ERROR_SUCCESS) {
    *name = Utf16LeToUtf8(std::span(reinterpret_cast<const uint8_t*>(buffer), length * 2));
  }
  return rc;
}

long Win32RegistryApi::CloseKey(RegistryKey key) { return RegCloseKey(ToHkey(key)); }

}  // namespace perfhive
