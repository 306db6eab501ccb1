#include "sources/msrrp/msrrp_source.h"

#include <utility>

#include "port/env.h"
#include "sources/msrrp/smb_pipe_transport.h"
#include "sources/msrrp/winreg_calls.h"

namespace perfhive {
namespace {

PipeOpener SmbOpener(SmbCredentials credentials, std::chrono::milliseconds timeout) {
  return [credentials = std::move(credentials),
          timeout](const RemoteTarget& target) -> Result<std::unique_ptr<PipeTransport>> {
    Result<std::unique_ptr<SmbPipeTransport>> pipe =
        SmbPipeTransport::Open(target, credentials, timeout);
    if (!pipe.ok()) return pipe.status();
    return std::unique_ptr<PipeTransport>(std::move(pipe).value());
  };
}

}  // namespace

HkpdSourceOptions MsrrpSourceOptions::DefaultHkpdOptions() {
  HkpdSourceOptions options;
  options.reader.max_buffer_bytes = winreg::kMaxValueBytes;
  return options;
}

MsrrpSource::MsrrpSource(const RemoteTarget& target, SmbCredentials credentials,
                         MsrrpSourceOptions options)
    : api_(options.open ? std::move(options.open)
                        : SmbOpener(std::move(credentials), options.call_timeout),
           options.rpc),
      remote_(api_, Env::Default(), target.Name(), std::move(options.hkpd)) {}

template <typename T>
Result<T> MsrrpSource::Explained(Result<T> result) {
  if (result.ok()) return result;
  if (!api_.last_failure().ok()) {
    last_failure_ = api_.last_failure();
  } else if (remote_.connected() || last_failure_.ok()) {
    // An answer of the registry itself (no such value) or a malformed block: its message
    // already says everything.
    return result;
  }
  return Status(last_failure_.code(), result.error() + ": " + last_failure_.message());
}

Result<std::vector<uint8_t>> MsrrpSource::TakeSnapshot(std::string_view query) {
  return Explained(remote_.TakeSnapshot(query));
}

Result<std::vector<TitleBytes>> MsrrpSource::ReadTitles() {
  return Explained(remote_.ReadTitles());
}

Result<std::optional<std::vector<TitleBytes>>> MsrrpSource::ReadTitlesIfChanged() {
  return Explained(remote_.ReadTitlesIfChanged());
}

Result<HostIdentity> MsrrpSource::Identity() { return Explained(remote_.Identity()); }

Result<std::vector<DisabledProvider>> MsrrpSource::DisabledProviders() {
  return Explained(remote_.DisabledProviders());
}

Result<std::unique_ptr<SnapshotSource>> OpenMsrrpSource(std::string_view target,
                                                        const std::string& credentials_file,
                                                        MsrrpSourceOptions options) {
  Result<RemoteTarget> parsed = ParseRemoteTarget(target);
  if (!parsed.ok()) return parsed.status();
  Result<SmbCredentials> credentials = credentials_file.empty()
                                           ? CredentialsFromEnvironment()
                                           : ReadCredentialsFile(credentials_file);
  if (!credentials.ok()) return credentials.status();
  return std::unique_ptr<SnapshotSource>(
      std::make_unique<MsrrpSource>(*parsed, std::move(credentials).value(), std::move(options)));
}

}  // namespace perfhive
