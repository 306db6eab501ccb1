#include "agent/remote_source.h"

#ifdef _WIN32
#include "sources/hkpd/hkpd_source.h"
#else
#include "sources/msrrp/msrrp_source.h"
#endif

namespace perfhive {

Result<std::unique_ptr<SnapshotSource>> OpenRemoteSource(
    const std::string& address, const std::string& credentials_file,
    std::optional<std::chrono::milliseconds> call_timeout) {
#ifdef _WIN32
  (void)call_timeout;  // the registry API has no timeout to give
  if (!credentials_file.empty()) {
    return Status::Error(
        "on Windows, a remote host is read as the agent's own account; credentials files are "
        "for Linux");
  }
  return MakeRemoteHkpdSource(address);
#else
  MsrrpSourceOptions options;
  if (call_timeout) options.call_timeout = *call_timeout;
  return OpenMsrrpSource(address, credentials_file, std::move(options));
#endif
}

}  // namespace perfhive
