// MsrrpSource: a Windows host without an agent, read from Linux over MS-RRP (the remote
// registry protocol on \PIPE\winreg over SMB). It is RemoteHkpdSource over MsrrpRegistryApi,
// so reading, growing buffers, checking blocks, titles and their change detection, and
// reconnecting with backoff follow exactly the rules of the Windows sources
// (docs/windows_sources.md); what it adds is the cause of a failure, in the message and in
// the status code: PermissionDenied (access denied, wrong password), NotFound (the Remote
// Registry service is not running), Unavailable (host unreachable, connection lost),
// DeadlineExceeded (timeout), DataLoss (a malformed reply). Each message starts with the
// host's name and never contains the password.

#ifndef PERFHIVE_SOURCES_MSRRP_MSRRP_SOURCE_H_
#define PERFHIVE_SOURCES_MSRRP_MSRRP_SOURCE_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "sources/hkpd/hkpd_source.h"
#include "sources/msrrp/dcerpc_client.h"
#include "sources/msrrp/msrrp_registry_api.h"
#include "sources/msrrp/remote_target.h"
#include "sources/msrrp/smb_credentials.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct MsrrpSourceOptions {
  // Bounds every SMB operation: connecting, logging on, each read and write of a call.
  std::chrono::milliseconds call_timeout{10000};
  HkpdSourceOptions hkpd = DefaultHkpdOptions();
  DcerpcClientOptions rpc;
  // How the pipe is opened; empty: SMB with the credentials.
  PipeOpener open;

  // The Windows sources' defaults, with the buffer ceiling at MS-RRP's 64 MiB limit on a value.
  static HkpdSourceOptions DefaultHkpdOptions();
};

class MsrrpSource : public SnapshotSource {
 public:
  MsrrpSource(const RemoteTarget& target, SmbCredentials credentials,
              MsrrpSourceOptions options = {});

  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<std::vector<TitleBytes>> ReadTitles() override;
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override;
  std::vector<std::string> TakeWarnings() override { return {}; }
  Result<HostIdentity> Identity() override;
  Result<std::vector<DisabledProvider>> DisabledProviders() override;

  bool connected() const { return remote_.connected(); }

 private:
  // The result with the cause of its failure added (see the class comment).
  template <typename T>
  Result<T> Explained(Result<T> result);

  MsrrpRegistryApi api_;
  RemoteHkpdSource remote_;
  // The last failure below the registry: it still explains the errors of the backoff wait.
  Status last_failure_;
};

// The agent's offline mode: `target` as `\\HOST[:PORT]`, credentials from `credentials_file`
// or, when it is empty, from the environment (CredentialsFromEnvironment).
Result<std::unique_ptr<SnapshotSource>> OpenMsrrpSource(std::string_view target,
                                                        const std::string& credentials_file,
                                                        MsrrpSourceOptions options = {});

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_MSRRP_SOURCE_H_
