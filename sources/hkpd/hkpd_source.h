// The Windows snapshot sources: the local HKEY_PERFORMANCE_DATA, and a remote host's through
// RegConnectRegistryW (agentless). Both read through the RegistryApi seam, so they run against
// advapi32 on Windows and against a fake everywhere else.

#ifndef PERFHIVE_SOURCES_HKPD_HKPD_SOURCE_H_
#define PERFHIVE_SOURCES_HKPD_HKPD_SOURCE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "port/env.h"
#include "sources/hkpd/hkpd_reader.h"
#include "sources/hkpd/registry_api.h"
#include "sources/hkpd/title_watcher.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct HkpdSourceOptions {
  HkpdReaderOptions reader;
  // How often the title database is read again even when Perflib's token has not moved.
  std::chrono::steady_clock::duration title_recheck = std::chrono::hours(1);
  // Remote hosts: the wait after a failure before connecting again, doubling up to the most.
  std::chrono::milliseconds first_backoff{1000};
  std::chrono::milliseconds max_backoff{std::chrono::minutes(5)};
};

// This host. Keeps HKEY_PERFORMANCE_DATA open between samples (opening it loads the provider
// DLLs) and closes it when destroyed, as Windows expects of a performance data consumer.
class LocalHkpdSource : public SnapshotSource {
 public:
  // `env` is the clock and the sleeps (tests pass a fake).
  LocalHkpdSource(RegistryApi& api, Env& env, HkpdSourceOptions options = {});
  LocalHkpdSource(const LocalHkpdSource&) = delete;
  LocalHkpdSource& operator=(const LocalHkpdSource&) = delete;
  ~LocalHkpdSource() override;

  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<std::vector<TitleBytes>> ReadTitles() override;
  // Through TitleWatcher: Perflib's token, the hourly recheck, the digest.
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override;
  std::vector<std::string> TakeWarnings() override { return {}; }
  Result<HostIdentity> Identity() override;
  Result<std::vector<DisabledProvider>> DisabledProviders() override;

 private:
  RegistryApi& api_;
  HkpdReader reader_;
  TitleWatcher watcher_;
};

// A host without an agent, read through RegConnectRegistryW (HKEY_PERFORMANCE_DATA, and
// HKEY_LOCAL_MACHINE for Perflib when the host allows it). A failure to connect, or a registry
// error that means the connection is gone, closes the keys and waits before connecting again,
// the wait doubling up to a ceiling and starting over after a successful read. While it waits,
// calls fail at once with the last error, so one unreachable host never holds up the others.
// Sources of different hosts may be used from different threads at the same time.
class RemoteHkpdSource : public SnapshotSource {
 public:
  // `machine` as "name" or "\\name"; `env` is the clock and the sleeps (tests pass a fake).
  RemoteHkpdSource(RegistryApi& api, Env& env, std::string machine, HkpdSourceOptions options = {});
  RemoteHkpdSource(const RemoteHkpdSource&) = delete;
  RemoteHkpdSource& operator=(const RemoteHkpdSource&) = delete;
  ~RemoteHkpdSource() override;

  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<std::vector<TitleBytes>> ReadTitles() override;
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override;
  std::vector<std::string> TakeWarnings() override { return {}; }
  // The name is the one the host was reached by (without "\\"); OS facts where HKLM allows.
  Result<HostIdentity> Identity() override;
  Result<std::vector<DisabledProvider>> DisabledProviders() override;

  const std::string& machine() const { return machine_; }  // always "\\name"
  bool connected() const { return reader_.has_value(); }

 private:
  Status EnsureConnected();
  void Disconnect();
  // Waits first_backoff after the first failure, twice as long after each further one.
  void StartBackoff(long error_code);
  // Notes the outcome of a read: success ends the backoff, a lost connection starts it.
  template <typename T>
  Result<T> Checked(Result<T> result);

  RegistryApi& api_;
  Env& env_;
  std::string machine_;
  HkpdSourceOptions options_;
  TitleWatcher watcher_;
  std::optional<HkpdReader> reader_;
  RegistryKey performance_data_ = 0;
  std::optional<RegistryKey> local_machine_;
  std::chrono::milliseconds backoff_{0};
  std::chrono::steady_clock::time_point next_attempt_{};
  std::string last_error_;
};

#ifdef _WIN32
// The sources over the real registry (sources/hkpd/windows/).
std::unique_ptr<SnapshotSource> MakeLocalHkpdSource();
std::unique_ptr<SnapshotSource> MakeRemoteHkpdSource(const std::string& machine);
#endif

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_HKPD_SOURCE_H_
