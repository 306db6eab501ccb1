#include "sources/hkpd/windows_error.h"

#include <array>
#include <string_view>

namespace perfhive {
namespace {

struct KnownError {
  long code;
  std::string_view text;
};

constexpr std::array kKnownErrors = {
    KnownError{2, "ERROR_FILE_NOT_FOUND: no such value or key"},
    KnownError{5, "ERROR_ACCESS_DENIED: access is denied"},
    KnownError{6, "ERROR_INVALID_HANDLE: the handle is invalid"},
    KnownError{8, "ERROR_NOT_ENOUGH_MEMORY: not enough memory"},
    KnownError{53, "ERROR_BAD_NETPATH: the network path was not found"},
    KnownError{87, "ERROR_INVALID_PARAMETER: the parameter is incorrect"},
    KnownError{170, "ERROR_BUSY: the requested resource is in use"},
    KnownError{234, "ERROR_MORE_DATA: more data is available"},
    KnownError{1326, "ERROR_LOGON_FAILURE: unknown user name or bad password"},
    KnownError{1460, "ERROR_TIMEOUT: the operation timed out"},
    KnownError{1722, "RPC_S_SERVER_UNAVAILABLE: the RPC server is unavailable"},
    KnownError{1726, "RPC_S_CALL_FAILED: the remote procedure call failed"},
    KnownError{1783, "RPC_X_BAD_STUB_DATA: the stub received bad data"},
};

}  // namespace

std::string DescribeWindowsError(long code) {
  for (const KnownError& known : kKnownErrors) {
    if (known.code == code) return std::to_string(code) + " (" + std::string(known.text) + ")";
  }
  return std::to_string(code);
}

}  // namespace perfhive
