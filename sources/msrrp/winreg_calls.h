// The winreg (MS-RRP) calls the remote performance source makes, as NDR stubs: requests built
// and replies parsed, nothing sent. Opnums and parameter lists follow MS-RRP section 3.1.5:
//   OpenLocalMachine (2), OpenPerformanceData (3): [in, unique] PREGISTRY_SERVER_NAME (sent
//     NULL), [in] REGSAM; [out] RPC_HKEY, error_status_t.
//   BaseRegCloseKey (5): [in, out] RPC_HKEY; error_status_t.
//   BaseRegEnumKey (9): [in] RPC_HKEY, [in] DWORD index, [in] PRRP_UNICODE_STRING lpNameIn,
//     [in, unique] PRRP_UNICODE_STRING lpClassIn, [in, out, unique] PFILETIME; [out]
//     PRRP_UNICODE_STRING lpNameOut, [out] PRPC_UNICODE_STRING* lplpClassOut, the FILETIME,
//     error_status_t.
//   BaseRegOpenKey (15): [in] RPC_HKEY, [in] RRP_UNICODE_STRING subkey, [in] DWORD options,
//     [in] REGSAM; [out] RPC_HKEY, error_status_t.
//   BaseRegQueryValue (17): [in] RPC_HKEY, [in] RRP_UNICODE_STRING name, [in, out, unique]
//     LPDWORD type, [in, out, unique, size_is(*lpcbData), length_is(*lpcbLen)] LPBYTE data,
//     [in, out, unique] LPDWORD lpcbData, lpcbLen; error_status_t.
// An RPC_HKEY is a 20-byte context handle the client only hands back.

#ifndef PERFHIVE_SOURCES_MSRRP_WINREG_CALLS_H_
#define PERFHIVE_SOURCES_MSRRP_WINREG_CALLS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace perfhive::winreg {

inline constexpr uint16_t kOpenLocalMachine = 2;
inline constexpr uint16_t kOpenPerformanceData = 3;
inline constexpr uint16_t kBaseRegCloseKey = 5;
inline constexpr uint16_t kBaseRegEnumKey = 9;
inline constexpr uint16_t kBaseRegOpenKey = 15;
inline constexpr uint16_t kBaseRegQueryValue = 17;

// KEY_READ (winnt.h): what the reader asks of HKEY_LOCAL_MACHINE and its subkeys.
inline constexpr uint32_t kKeyRead = 0x20019;
// MAXIMUM_ALLOWED: what OpenPerformanceData asks for. MS-RRP says the mask SHOULD be 0 and is
// ignored; Samba does not ignore it and refuses 0 with error 8.
inline constexpr uint32_t kMaximumAllowed = 0x02000000;
// MS-RRP's range on lpData: the largest buffer a request may announce.
inline constexpr uint32_t kMaxValueBytes = 0x4000000;

using ContextHandle = std::array<uint8_t, 20>;

// OpenLocalMachine / OpenPerformanceData.
std::vector<uint8_t> EncodeOpenPredefinedKey(uint32_t sam_desired);
std::vector<uint8_t> EncodeCloseKey(const ContextHandle& key);
std::vector<uint8_t> EncodeOpenKey(const ContextHandle& parent, std::string_view subkey,
                                   uint32_t sam_desired);
// The `index`-th subkey's name, with room for the longest a key may have (255 characters).
std::vector<uint8_t> EncodeEnumKey(const ContextHandle& key, uint32_t index);
// Asks for up to `buffer_bytes` (at most kMaxValueBytes) of the value's data.
std::vector<uint8_t> EncodeQueryValue(const ContextHandle& key, std::string_view name,
                                      uint32_t buffer_bytes);

// The reply of the opening calls and of BaseRegCloseKey: a handle and the Windows error code.
struct HandleReply {
  ContextHandle handle;
  uint32_t error;
};
Result<HandleReply> ParseHandleReply(std::span<const uint8_t> stub, std::string_view call);

struct QueryValueReply {
  uint32_t error = 0;
  std::optional<uint32_t> type;
  std::vector<uint8_t> data;          // what the server sent (possibly nothing)
  std::optional<uint32_t> data_size;  // lpcbData: on ERROR_MORE_DATA, what it says it needs
  std::optional<uint32_t> data_length;
};
struct EnumKeyReply {
  uint32_t error = 0;
  std::string name;  // the subkey's, UTF-8; empty unless error is 0
};
Result<EnumKeyReply> ParseEnumKeyReply(std::span<const uint8_t> stub);

// Checks the reply's structure and its consistency: the data's actual count equals lpcbLen
// and is within what was asked (`buffer_bytes`).
Result<QueryValueReply> ParseQueryValueReply(std::span<const uint8_t> stub, uint32_t buffer_bytes);

}  // namespace perfhive::winreg

#endif  // PERFHIVE_SOURCES_MSRRP_WINREG_CALLS_H_
