#include "agent/hkpd_source.h"

#include <algorithm>
#include <utility>

#include "agent/windows_error.h"

namespace perfhive {

Result<std::optional<TitleBytes>> TitleWatcher::ReadIfChanged(
    HkpdReader& reader, std::optional<RegistryKey> local_machine) {
  if (local_machine) {
    TitleVersion version = reader.ReadTitleVersion(*local_machine);
    bool has_token = version.last_counter.has_value() || version.last_help.has_value();
    if (has_token && version_ == version && digest_) return std::optional<TitleBytes>();
    if (has_token) version_ = version;
  }
  Result<TitleBytes> titles = reader.ReadTitles(local_machine);
  if (!titles.ok()) return titles.status();
  uint64_t digest = TitleDigest(*titles);
  if (digest_ == digest) return std::optional<TitleBytes>();
  digest_ = digest;
  return std::optional<TitleBytes>(std::move(titles).value());
}

LocalHkpdSource::LocalHkpdSource(RegistryApi& api, HkpdReaderOptions options)
    : api_(api),
      local_machine_(api.Predefined(PredefinedKey::kLocalMachine)),
      reader_(api, api.Predefined(PredefinedKey::kPerformanceData), "HKEY_PERFORMANCE_DATA",
              std::move(options)) {}

LocalHkpdSource::~LocalHkpdSource() {
  api_.CloseKey(api_.Predefined(PredefinedKey::kPerformanceData));
}

Result<std::vector<uint8_t>> LocalHkpdSource::TakeSnapshot(std::string_view query) {
  return reader_.ReadSnapshot(query);
}

Result<TitleBytes> LocalHkpdSource::ReadTitles() { return reader_.ReadTitles(local_machine_); }

Result<std::optional<TitleBytes>> LocalHkpdSource::ReadTitlesIfChanged() {
  return watcher_.ReadIfChanged(reader_, local_machine_);
}

RemoteHkpdSource::RemoteHkpdSource(RegistryApi& api, std::string machine, RemoteHkpdOptions options)
    : api_(api),
      machine_(machine.starts_with("\\\\") ? std::move(machine) : "\\\\" + machine),
      options_(std::move(options)) {}

RemoteHkpdSource::~RemoteHkpdSource() { Disconnect(0); }

Status RemoteHkpdSource::EnsureConnected() {
  if (reader_) return Status();
  auto now = options_.now();
  if (now < next_attempt_) {
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_attempt_ - now);
    return Status::Error(machine_ + ": not connected (" + last_error_ + "); next attempt in " +
                         std::to_string(wait.count()) + " ms");
  }
  RegistryKey key = 0;
  long rc = api_.ConnectRegistry(machine_, PredefinedKey::kPerformanceData, &key);
  if (rc != win_error::kSuccess) {
    Disconnect(rc);
    return Status::Error(machine_ + ": RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed with " +
                         DescribeWindowsError(rc));
  }
  performance_data_ = key;
  RegistryKey local_machine = 0;
  if (api_.ConnectRegistry(machine_, PredefinedKey::kLocalMachine, &local_machine) ==
      win_error::kSuccess) {
    local_machine_ = local_machine;
  }
  reader_.emplace(api_, performance_data_, machine_, options_.reader);
  backoff_ = std::chrono::milliseconds(0);
  return Status();
}

void RemoteHkpdSource::Disconnect(long error_code) {
  if (reader_) {
    api_.CloseKey(performance_data_);
    reader_.reset();
  }
  if (local_machine_) {
    api_.CloseKey(*local_machine_);
    local_machine_.reset();
  }
  if (error_code == 0) return;
  backoff_ =
      backoff_.count() == 0 ? options_.first_backoff : std::min(backoff_ * 2, options_.max_backoff);
  next_attempt_ = options_.now() + backoff_;
  last_error_ = "last error " + DescribeWindowsError(error_code);
}

template <typename T>
Result<T> RemoteHkpdSource::Checked(Result<T> result) {
  // A registry error on a remote key usually means the connection is gone: start over later.
  if (!result.ok() && reader_ && reader_->last_error_code() != 0) {
    Disconnect(reader_->last_error_code());
  }
  return result;
}

Result<std::vector<uint8_t>> RemoteHkpdSource::TakeSnapshot(std::string_view query) {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  return Checked(reader_->ReadSnapshot(query));
}

Result<TitleBytes> RemoteHkpdSource::ReadTitles() {
  if (Status s = EnsureConnected(); !s.ok()) return s;
  return Checked(reader_->ReadTitles(local_machine_));
}

}  // namespace perfhive
