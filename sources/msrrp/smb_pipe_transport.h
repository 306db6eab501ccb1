// SmbPipeTransport: \PIPE\winreg on a remote host, opened through libsmbclient as the file
// smb://HOST:PORT/IPC$/winreg. libsmbclient does the SMB2/3 dialect, the NTLMv2 logon, and
// signing or encryption as the server requires; Kerberos is off (the credentials are a user
// name and password) and there is no fallback to an anonymous session. Every SMB operation is
// bounded by the timeout. Each transport has its own libsmbclient context, freed when the
// transport is destroyed, so a broken connection never lingers in a cache. Transports may be
// used from several threads, but their libsmbclient calls take turns (see the .cc).

#ifndef PERFHIVE_SOURCES_MSRRP_SMB_PIPE_TRANSPORT_H_
#define PERFHIVE_SOURCES_MSRRP_SMB_PIPE_TRANSPORT_H_

#include <chrono>
#include <memory>

#include "base/status.h"
#include "sources/msrrp/pipe_transport.h"
#include "sources/msrrp/remote_target.h"
#include "sources/msrrp/smb_credentials.h"

typedef struct _SMBCCTX SMBCCTX;
typedef struct _SMBCFILE SMBCFILE;

namespace perfhive {

class SmbPipeTransport : public PipeTransport {
 public:
  // Connects, logs on and opens the pipe. Errors are classified by code: PermissionDenied
  // (access denied or a failed logon), NotFound (no winreg pipe: the Remote Registry service
  // is not running), DeadlineExceeded, Unavailable (host unreachable, connection refused).
  static Result<std::unique_ptr<SmbPipeTransport>> Open(const RemoteTarget& target,
                                                        const SmbCredentials& credentials,
                                                        std::chrono::milliseconds timeout);
  SmbPipeTransport(const SmbPipeTransport&) = delete;
  SmbPipeTransport& operator=(const SmbPipeTransport&) = delete;
  ~SmbPipeTransport() override;

  Status Write(std::span<const uint8_t> bytes) override;
  Status ReadExactly(std::span<uint8_t> out) override;

 private:
  explicit SmbPipeTransport(SmbCredentials credentials);
  static void SupplyCredentials(SMBCCTX* context, const char* server, const char* share,
                                char* workgroup, int workgroup_length, char* user, int user_length,
                                char* password, int password_length);

  SmbCredentials credentials_;
  SMBCCTX* context_ = nullptr;
  SMBCFILE* pipe_ = nullptr;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_SMB_PIPE_TRANSPORT_H_
