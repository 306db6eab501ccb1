// MsrrpRegistryApi: the RegistryApi seam implemented over MS-RRP, so that the reading rules of
// the Windows sources (HkpdReader's grow-and-retry, ceiling and checks, TitleWatcher's change
// detection, RemoteHkpdSource's reconnection and backoff) are the same code for a Windows host
// read from Linux. ConnectRegistry opens the pipe and binds when no connection is up, then
// opens the predefined key; the connection closes with the last key. Keys are small tokens
// standing for the server's context handles; tokens of a connection that is gone are refused
// with ERROR_INVALID_HANDLE.
//
// Failures below the registry (SMB, DCE/RPC, a reply that does not parse) come back as the
// Windows code RegConnectRegistryW would give (5, 53, 1460, 1722, 1726, 1783), drop the
// connection, and are kept whole in last_failure() so that the source can tell people what
// happened.

#ifndef PERFHIVE_SOURCES_MSRRP_MSRRP_REGISTRY_API_H_
#define PERFHIVE_SOURCES_MSRRP_MSRRP_REGISTRY_API_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "sources/hkpd/registry_api.h"
#include "sources/msrrp/dcerpc_client.h"
#include "sources/msrrp/pipe_transport.h"
#include "sources/msrrp/remote_target.h"
#include "sources/msrrp/winreg_calls.h"

namespace perfhive {

// Opens the winreg pipe on a host; SmbPipeTransport::Open in production, scripted in tests.
using PipeOpener = std::function<Result<std::unique_ptr<PipeTransport>>(const RemoteTarget&)>;

class MsrrpRegistryApi : public RegistryApi {
 public:
  explicit MsrrpRegistryApi(PipeOpener open, DcerpcClientOptions rpc = {});
  MsrrpRegistryApi(const MsrrpRegistryApi&) = delete;
  MsrrpRegistryApi& operator=(const MsrrpRegistryApi&) = delete;
  ~MsrrpRegistryApi() override;

  // There is no local registry behind this API: always 0, which no key token is.
  RegistryKey Predefined(PredefinedKey which) override;
  long QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer, uint32_t* size,
                  uint32_t* type) override;
  // `machine` as RemoteTarget parses it ("\\host:4455").
  long ConnectRegistry(const std::string& machine, PredefinedKey which, RegistryKey* out) override;
  long OpenKey(RegistryKey parent, const std::string& subkey, RegistryKey* out) override;
  long EnumKey(RegistryKey key, uint32_t index, std::string* name) override;
  long CloseKey(RegistryKey key) override;

  // The failure behind the last non-registry error code; OK after a call that reached the
  // registry (whatever it answered). Calls that fail locally (a key of a connection that is
  // gone) leave it alone, so it still explains why the connection went.
  const Status& last_failure() const { return last_failure_; }
  bool connected() const { return connection_ != nullptr; }

 private:
  struct Connection;

  // One call on the live connection; a failure is recorded and drops the connection.
  Result<std::vector<uint8_t>> Call(uint16_t opnum, const std::vector<uint8_t>& stub,
                                    std::string_view name);
  // Records a failure below the registry and drops the connection with all its keys.
  void Drop(Status failure);
  long Fail(Status failure, long code);
  // A reply's handle as a new token.
  RegistryKey AddKey(const winreg::ContextHandle& handle);

  PipeOpener open_;
  DcerpcClientOptions rpc_options_;
  std::unique_ptr<Connection> connection_;
  std::map<RegistryKey, winreg::ContextHandle> keys_;  // of the live connection
  RegistryKey next_key_ = 1;
  Status last_failure_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_MSRRP_REGISTRY_API_H_
