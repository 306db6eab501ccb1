#include "sources/hkpd/hkpd_source.h"

#include <algorithm>
#include <utility>

#include "sources/hkpd/windows_error.h"

namespace perfhive {
namespace {

// Whether a registry error on a connected remote key means the connection may be gone. A value
// the host does not have (2) or a provider still busy after the retries (170) is an answer from
// a working connection; anything else starts over with a new one.
bool MeansConnectionLost(long code) {
  return code != win_error::kSuccess && code != win_error::kFileNotFound &&
         code != win_error::kBusy;
}

}  // namespace

LocalHkpdSource::LocalHkpdSource(RegistryApi& api, Env& env, HkpdSourceOptions options)
    : api_(api),
      reader_(api, env, api.Predefined(PredefinedKey::kPerformanceData),
              api.Predefined(PredefinedKey::kLocalMachine), "", options.reader),
      watcher_(env, options.title_recheck) {}

LocalHkpdSource::~LocalHkpdSource() {
  api_.CloseKey(api_.Predefined(PredefinedKey::kPerformanceData));
}

Result<std::vector<uint8_t>> LocalHkpdSource::TakeSnapshot(std::string_view query) {
  return reader_.ReadSnapshot(query);
}

Result<std::vector<TitleBytes>> LocalHkpdSource::ReadTitles() { return reader_.ReadAllTitles(); }

Result<std::optional<std::vector<TitleBytes>>> LocalHkpdSource::ReadTitlesIfChanged() {
  return watcher_.ReadIfChanged(reader_);
}

Result<HostIdentity> LocalHkpdSource::Identity() { return reader_.ReadIdentity(); }

Result<std::vector<DisabledProvider>> LocalHkpdSource::DisabledProviders() {
  return reader_.ReadDisabledProviders();
}

RemoteHkpdSource::RemoteHkpdSource(RegistryApi& api, Env& env, std::string machine,
                                   HkpdSourceOptions options)
    : api_(api),
      env_(env),
      machine_(machine.starts_with("\\\\") ? std::move(machine) : "\\\\" + machine),
      options_(std::move(options)),
      watcher_(env, options_.title_recheck) {}

RemoteHkpdSource::~RemoteHkpdSource() { Disconnect(); }

Status RemoteHkpdSource::EnsureConnected() {
  if (reader_) return Status();
  std::chrono::steady_clock::time_point now = env_.SteadyNow();
  if (now < next_attempt_) {
    // The same text on every call of one wait, so a log that folds repeated lines writes it
    // once per attempt, not once per sample.
    return Status::Error(machine_ + ": not connected (" + last_error_ + "); waiting " +
                         std::to_string(backoff_.count()) + " ms between attempts");
  }
  RegistryKey performance_data = 0;
  long rc = api_.ConnectRegistry(machine_, PredefinedKey::kPerformanceData, &performance_data);
  if (rc != win_error::kSuccess) {
    StartBackoff(rc);
    return Status::Error(machine_ + ": RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed with " +
                         DescribeWindowsError(rc));
  }
  performance_data_ = performance_data;
  // Without HKEY_LOCAL_MACHINE (a host may refuse it) the titles come from the performance key
  // alone, and without Perflib's token only the periodic recheck notices a change.
  RegistryKey local_machine = 0;
  if (api_.ConnectRegistry(machine_, PredefinedKey::kLocalMachine, &local_machine) ==
      win_error::kSuccess) {
    local_machine_ = local_machine;
  }
  reader_.emplace(api_, env_, performance_data_, local_machine_, machine_, options_.reader);
  return Status();
}

void RemoteHkpdSource::Disconnect() {
  if (reader_) {
    api_.CloseKey(performance_data_);
    reader_.reset();
  }
  if (local_machine_) {
    api_.CloseKey(*local_machine_);
    local_machine_.reset();
  }
}

void RemoteHkpdSource::StartBackoff(long error_code) {
  backoff_ =
      backoff_.count() == 0 ? options_.first_backoff : std::min(backoff_ * 2, options_.max_backoff);
  next_attempt_ = env_.SteadyNow() + backoff_;
  last_error_ = "last error " + DescribeWindowsError(error_code);
}

template <typename T>
Result<T> RemoteHkpdSource::Checked(Result<T> result) {
  if (result.ok()) {
    backoff_ = std::chrono::milliseconds(0);
  } else if (long code = reader_->last_error_code(); MeansConnectionLost(code)) {
    Disconnect();
    StartBackoff(code);
  }
  return result;
}

Result<std::vector<uint8_t>> RemoteHkpdSource::TakeSnapshot(std::string_view query) {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  return Checked(reader_->ReadSnapshot(query));
}

Result<std::vector<TitleBytes>> RemoteHkpdSource::ReadTitles() {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  return Checked(reader_->ReadAllTitles());
}

Result<std::optional<std::vector<TitleBytes>>> RemoteHkpdSource::ReadTitlesIfChanged() {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  return Checked(watcher_.ReadIfChanged(*reader_));
}

Result<HostIdentity> RemoteHkpdSource::Identity() {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  HostIdentity identity = reader_->ReadIdentity();
  identity.name = machine_.substr(2);
  return identity;
}

Result<std::vector<DisabledProvider>> RemoteHkpdSource::DisabledProviders() {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  return Checked(reader_->ReadDisabledProviders());
}

}  // namespace perfhive
