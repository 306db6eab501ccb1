// The Windows snapshot sources: the local HKEY_PERFORMANCE_DATA, and a remote host's through
// RegConnectRegistryW (agentless). Both read through the RegistryApi seam, so they run against
// advapi32 on Windows and against a fake everywhere else.

#ifndef PERFHIVE_AGENT_HKPD_SOURCE_H_
#define PERFHIVE_AGENT_HKPD_SOURCE_H_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "agent/hkpd_reader.h"
#include "agent/registry_api.h"
#include "agent/snapshot_source.h"

namespace perfhive {

// Remembers which title database the server has, so it is sent again only after it changed
// (lodctr /R): the cheap Perflib Last Counter/Last Help token when the host has it, else a
// digest of the bytes.
class TitleWatcher {
 public:
  // The titles if they differ from the last ones returned, std::nullopt if unchanged.
  Result<std::optional<TitleBytes>> ReadIfChanged(HkpdReader& reader,
                                                  std::optional<RegistryKey> local_machine);

 private:
  std::optional<TitleVersion> version_;
  std::optional<uint64_t> digest_;
};

// The local host. Keeps HKEY_PERFORMANCE_DATA open between samples and closes it on
// destruction, as Windows expects of a performance data consumer.
class LocalHkpdSource : public SnapshotSource {
 public:
  explicit LocalHkpdSource(RegistryApi& api, HkpdReaderOptions options = {});
  ~LocalHkpdSource() override;

  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<TitleBytes> ReadTitles() override;
  Result<std::optional<TitleBytes>> ReadTitlesIfChanged();

 private:
  RegistryApi& api_;
  RegistryKey local_machine_;
  HkpdReader reader_;
  TitleWatcher watcher_;
};

struct RemoteHkpdOptions {
  HkpdReaderOptions reader;
  std::chrono::milliseconds first_backoff{1000};
  std::chrono::milliseconds max_backoff{std::chrono::minutes(5)};
  std::function<std::chrono::steady_clock::time_point()> now = std::chrono::steady_clock::now;
};

// A host without an agent, read through RegConnectRegistryW. A failure closes the connection
// and waits, doubling the wait up to a ceiling, before connecting again; until then, snapshots
// fail at once with the last error, so one unreachable host never holds up the others.
class RemoteHkpdSource : public SnapshotSource {
 public:
  RemoteHkpdSource(RegistryApi& api, std::string machine, RemoteHkpdOptions options = {});
  ~RemoteHkpdSource() override;

  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<TitleBytes> ReadTitles() override;

  const std::string& machine() const { return machine_; }
  bool connected() const { return reader_.has_value(); }

 private:
  Status EnsureConnected();
  void Disconnect(long error_code);
  template <typename T>
  Result<T> Checked(Result<T> result);

  RegistryApi& api_;
  std::string machine_;  // always with the leading "\\"
  RemoteHkpdOptions options_;
  std::optional<HkpdReader> reader_;
  RegistryKey performance_data_ = 0;
  std::optional<RegistryKey> local_machine_;
  std::chrono::milliseconds backoff_{0};
  std::chrono::steady_clock::time_point next_attempt_{};
  std::string last_error_;
};

#ifdef _WIN32
// The sources over the real registry (agent/windows/).
std::unique_ptr<SnapshotSource> MakeLocalHkpdSource();
std::unique_ptr<SnapshotSource> MakeRemoteHkpdSource(const std::string& machine);
#endif

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_HKPD_SOURCE_H_
