#include "sources/msrrp/msrrp_registry_api.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace perfhive {
namespace {

inline constexpr long kTimeout = 1460;         // ERROR_TIMEOUT
inline constexpr long kRpcBadStubData = 1783;  // RPC_X_BAD_STUB_DATA

// The Windows code a failure below the registry stands for. `connecting` tells an unreachable
// host (53) from a connection lost during a call (1726).
long WindowsCodeFor(const Status& failure, bool connecting) {
  switch (failure.code()) {
    case StatusCode::kPermissionDenied:
      return win_error::kAccessDenied;
    case StatusCode::kNotFound:
      return win_error::kRpcServerUnavailable;
    case StatusCode::kDeadlineExceeded:
      return kTimeout;
    case StatusCode::kDataLoss:
      return kRpcBadStubData;
    case StatusCode::kUnavailable:
      return connecting ? win_error::kBadNetpath : win_error::kRpcCallFailed;
    default:
      return win_error::kRpcCallFailed;
  }
}

}  // namespace

struct MsrrpRegistryApi::Connection {
  Connection(std::unique_ptr<PipeTransport> pipe_in, DcerpcClientOptions options)
      : pipe(std::move(pipe_in)), rpc(*pipe, options) {}
  std::unique_ptr<PipeTransport> pipe;
  DcerpcClient rpc;
};

MsrrpRegistryApi::MsrrpRegistryApi(PipeOpener open, DcerpcClientOptions rpc)
    : open_(std::move(open)), rpc_options_(rpc) {}

MsrrpRegistryApi::~MsrrpRegistryApi() = default;

RegistryKey MsrrpRegistryApi::Predefined(PredefinedKey) { return 0; }

void MsrrpRegistryApi::Drop(Status failure) {
  last_failure_ = std::move(failure);
  connection_.reset();
  keys_.clear();
}

long MsrrpRegistryApi::Fail(Status failure, long code) {
  Drop(std::move(failure));
  return code;
}

Result<std::vector<uint8_t>> MsrrpRegistryApi::Call(uint16_t opnum,
                                                    const std::vector<uint8_t>& stub,
                                                    std::string_view name) {
  last_failure_ = Status();
  Result<std::vector<uint8_t>> reply = connection_->rpc.Call(opnum, stub, name);
  if (!reply.ok()) Drop(reply.status());
  return reply;
}

RegistryKey MsrrpRegistryApi::AddKey(const winreg::ContextHandle& handle) {
  RegistryKey key = next_key_++;
  keys_[key] = handle;
  return key;
}

long MsrrpRegistryApi::ConnectRegistry(const std::string& machine, PredefinedKey which,
                                       RegistryKey* out) {
  last_failure_ = Status();
  // As RegConnectRegistryW: HKEY_PERFORMANCE_NLSTEXT is no remote host's.
  if (which == PredefinedKey::kPerformanceNlsText) return win_error::kInvalidParameter;
  if (!connection_) {
    Result<RemoteTarget> target = ParseRemoteTarget(machine);
    if (!target.ok()) return Fail(target.status(), win_error::kBadNetpath);
    Result<std::unique_ptr<PipeTransport>> pipe = open_(*target);
    if (!pipe.ok()) return Fail(pipe.status(), WindowsCodeFor(pipe.status(), true));
    auto connection = std::make_unique<Connection>(std::move(pipe).value(), rpc_options_);
    if (Status bound = connection->rpc.Bind(); !bound.ok()) {
      return Fail(bound, WindowsCodeFor(bound, true));
    }
    connection_ = std::move(connection);
  }
  bool performance = which == PredefinedKey::kPerformanceData;
  Result<std::vector<uint8_t>> stub = Call(
      performance ? winreg::kOpenPerformanceData : winreg::kOpenLocalMachine,
      winreg::EncodeOpenPredefinedKey(performance ? winreg::kMaximumAllowed : winreg::kKeyRead),
      performance ? "OpenPerformanceData" : "OpenLocalMachine");
  if (!stub.ok()) return WindowsCodeFor(stub.status(), false);
  Result<winreg::HandleReply> reply =
      winreg::ParseHandleReply(*stub, performance ? "OpenPerformanceData" : "OpenLocalMachine");
  if (!reply.ok()) return Fail(reply.status(), kRpcBadStubData);
  if (reply->error != win_error::kSuccess) return static_cast<long>(reply->error);
  *out = AddKey(reply->handle);
  return win_error::kSuccess;
}

long MsrrpRegistryApi::OpenKey(RegistryKey parent, const std::string& subkey, RegistryKey* out) {
  auto found = keys_.find(parent);
  if (found == keys_.end()) return win_error::kInvalidHandle;
  Result<std::vector<uint8_t>> stub =
      Call(winreg::kBaseRegOpenKey, winreg::EncodeOpenKey(found->second, subkey, winreg::kKeyRead),
           "BaseRegOpenKey");
  if (!stub.ok()) return WindowsCodeFor(stub.status(), false);
  Result<winreg::HandleReply> reply = winreg::ParseHandleReply(*stub, "BaseRegOpenKey");
  if (!reply.ok()) return Fail(reply.status(), kRpcBadStubData);
  if (reply->error != win_error::kSuccess) return static_cast<long>(reply->error);
  *out = AddKey(reply->handle);
  return win_error::kSuccess;
}

long MsrrpRegistryApi::QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer,
                                  uint32_t* size, uint32_t* type) {
  auto found = keys_.find(key);
  if (found == keys_.end()) return win_error::kInvalidHandle;
  uint32_t asked = std::min(*size, winreg::kMaxValueBytes);
  Result<std::vector<uint8_t>> stub =
      Call(winreg::kBaseRegQueryValue, winreg::EncodeQueryValue(found->second, name, asked),
           "BaseRegQueryValue");
  if (!stub.ok()) return WindowsCodeFor(stub.status(), false);
  Result<winreg::QueryValueReply> reply = winreg::ParseQueryValueReply(*stub, asked);
  if (!reply.ok()) return Fail(reply.status(), kRpcBadStubData);
  if (type != nullptr) *type = reply->type.value_or(0);
  if (reply->error == win_error::kMoreData) {
    *size = reply->data_size.value_or(0);
    return win_error::kMoreData;
  }
  if (reply->error != win_error::kSuccess) return static_cast<long>(reply->error);
  if (!reply->data.empty()) std::memcpy(buffer, reply->data.data(), reply->data.size());
  *size = static_cast<uint32_t>(reply->data.size());
  return win_error::kSuccess;
}

long MsrrpRegistryApi::EnumKey(RegistryKey key, uint32_t index, std::string* name) {
  auto found = keys_.find(key);
  if (found == keys_.end()) return win_error::kInvalidHandle;
  Result<std::vector<uint8_t>> stub =
      Call(winreg::kBaseRegEnumKey, winreg::EncodeEnumKey(found->second, index), "BaseRegEnumKey");
  if (!stub.ok()) return WindowsCodeFor(stub.status(), false);
  Result<winreg::EnumKeyReply> reply = winreg::ParseEnumKeyReply(*stub);
  if (!reply.ok()) return Fail(reply.status(), kRpcBadStubData);
  if (reply->error != win_error::kSuccess) return static_cast<long>(reply->error);
  *name = std::move(reply->name);
  return win_error::kSuccess;
}

long MsrrpRegistryApi::CloseKey(RegistryKey key) {
  auto found = keys_.find(key);
  if (found == keys_.end()) return win_error::kInvalidHandle;
  winreg::ContextHandle handle = found->second;
  keys_.erase(found);
  Result<std::vector<uint8_t>> stub =
      Call(winreg::kBaseRegCloseKey, winreg::EncodeCloseKey(handle), "BaseRegCloseKey");
  if (!stub.ok()) return WindowsCodeFor(stub.status(), false);
  Result<winreg::HandleReply> reply = winreg::ParseHandleReply(*stub, "BaseRegCloseKey");
  if (!reply.ok()) return Fail(reply.status(), kRpcBadStubData);
  // The connection lives as long as some key is open.
  if (keys_.empty()) connection_.reset();
  return static_cast<long>(reply->error);
}

}  // namespace perfhive
