#include "agent/spool.h"

#include <algorithm>
#include <charconv>

#include "agent/spool_format.h"
#include "wire/title_digest.h"

namespace perfhive {
namespace {

constexpr std::string_view kSnapshotSuffix = ".snap";
constexpr std::string_view kTitlesPrefix = "titles-";
constexpr std::string_view kTitlesSuffix = ".bin";
constexpr std::string_view kTempSuffix = ".tmp";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The id of "00000000000000000042.snap"; 0 for any other name.
uint64_t SnapshotId(std::string_view name) {
  if (!EndsWith(name, kSnapshotSuffix)) return 0;
  std::string_view digits = name.substr(0, name.size() - kSnapshotSuffix.size());
  uint64_t id = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (error != std::errc() || end != digits.data() + digits.size()) return 0;
  return id;
}

}  // namespace

Result<std::unique_ptr<Spool>> Spool::Open(Env& env, std::string dir, uint64_t max_bytes,
                                           std::optional<SnapshotOwner> owner, Logger& log) {
  if (Status status = env.CreateDirectories(dir); !status.ok()) {
    return status.Prefixed("spool: ");
  }
  Result<std::unique_ptr<FileLock>> lock = env.LockFile(dir + "/" + kLockFile);
  if (!lock.ok()) {
    if (lock.status().code() != StatusCode::kFailedPrecondition) {
      return lock.status().Prefixed("spool: ");
    }
    return Status(StatusCode::kFailedPrecondition,
                  "spool " + dir + " is in use by another perfhive-agent (" + lock.error() +
                      "); each agent needs a spool folder of its own: give this one another "
                      "--spool-dir, or leave it unset (the default is a folder per host name)");
  }
  std::unique_ptr<Spool> spool(
      new Spool(env, std::move(dir), max_bytes, std::move(lock).value(), log));
  if (Status status = spool->Recover(owner); !status.ok()) return status.Prefixed("spool: ");
  return spool;
}

Status Spool::Recover(const std::optional<SnapshotOwner>& owner) {
  Result<std::vector<std::string>> names = env_.ListDirectory(dir_);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> ids;
  std::vector<std::string> title_files;
  for (const std::string& name : *names) {
    if (EndsWith(name, kTempSuffix)) {
      // A write a crash interrupted; its snapshot was never counted as spooled.
      (void)env_.RemoveFile(dir_ + "/" + name);
    } else if (uint64_t id = SnapshotId(name); id != 0) {
      ids.push_back(id);
    } else if (name.starts_with(kTitlesPrefix) && EndsWith(name, kTitlesSuffix)) {
      title_files.push_back(name);
    }
  }
  std::sort(ids.begin(), ids.end());
  std::set<std::string> referenced;
  std::map<std::string, size_t> aside;  // owner label -> snapshots kept aside
  for (uint64_t id : ids) {
    std::string path = SnapshotPath(id);
    Result<std::vector<uint8_t>> bytes = env_.ReadFile(path);
    Result<SnapshotRecord> record =
        bytes.ok() ? DecodeSpoolRecord(*bytes) : Result<SnapshotRecord>(bytes.status());
    if (!record.ok()) {
      log_.Warning("spool: skipping " + path + ": " + record.error());
      (void)env_.RemoveFile(path);
      continue;
    }
    for (const TitleRef& title : record->titles) {
      referenced.insert(std::string(kTitlesPrefix) + ToHex(title.sha256) +
                        std::string(kTitlesSuffix));
    }
    // Past every file, own or not: a new file never takes an old one's name.
    next_id_ = id + 1;
    if (owner && !record->owner.SameHostAs(*owner)) {
      ++aside[record->owner.host.name.empty() ? std::string() : record->owner.Label()];
      continue;
    }
    record->raw.clear();
    record->raw.shrink_to_fit();
    sizes_[id] = bytes->size();
    bytes_ += bytes->size();
    recovered_.push_back(Entry{.id = id, .bytes = bytes->size(), .record = std::move(*record)});
  }
  for (const std::string& name : title_files) {
    // A database no spooled snapshot refers to is no longer needed; the running agent writes
    // its own again.
    if (!referenced.contains(name)) (void)env_.RemoveFile(dir_ + "/" + name);
  }
  if (!recovered_.empty()) {
    log_.Info("spool: " + std::to_string(recovered_.size()) + " snapshots (" +
              std::to_string(bytes_) + " bytes) left by an earlier run in " + dir_);
  }
  for (const auto& [label, count] : aside) {
    kept_aside_ += count;
    std::string whose = label.empty() ? "written by an older agent, which did not record whose "
                                        "they are,"
                                      : "taken as " + label + ",";
    std::string how = label.empty() ? "`perfhive-agent drain --spool-dir " + dir_ +
                                          " --host-name NAME` ships them as NAME"
                                    : "ship them under their own name with `perfhive-agent drain "
                                      "--spool-dir " +
                                          dir_ + "` while no agent uses the folder";
    log_.Warning("spool " + dir_ + ": " + std::to_string(count) + " snapshots " + whose +
                 " are kept aside there, never shipped as " + owner->Label() + "; " + how);
  }
  return Status();
}

void Spool::SetMaxBytes(uint64_t max_bytes) {
  std::lock_guard lock(mutex_);
  max_bytes_ = max_bytes;
}

std::vector<Spool::Entry> Spool::TakeRecovered() {
  std::lock_guard lock(mutex_);
  return std::move(recovered_);
}

Result<Spool::Appended> Spool::Append(const SnapshotRecord& record) {
  std::vector<uint8_t> bytes = EncodeSpoolRecord(record);
  std::lock_guard lock(mutex_);
  if (bytes.size() > max_bytes_) {
    ++dropped_;
    return Status::ResourceExhausted("spool: a snapshot of " + std::to_string(bytes.size()) +
                                     " bytes does not fit the spool's limit of " +
                                     std::to_string(max_bytes_) + " bytes; dropped");
  }
  Appended appended;
  while (bytes_ + bytes.size() > max_bytes_ && !sizes_.empty()) {
    uint64_t oldest = sizes_.begin()->first;
    RemoveLocked(oldest);
    appended.dropped.push_back(oldest);
    ++dropped_;
  }
  if (!appended.dropped.empty()) {
    log_.Warning("spool: over its limit of " + std::to_string(max_bytes_) +
                 " bytes; dropped the oldest snapshots (" + std::to_string(dropped_) + " so far)");
  }
  appended.id = next_id_;
  if (Status status = env_.WriteFileAtomically(SnapshotPath(appended.id), bytes); !status.ok()) {
    return status.Prefixed("spool: ");
  }
  ++next_id_;
  sizes_[appended.id] = bytes.size();
  bytes_ += bytes.size();
  return appended;
}

Result<SnapshotRecord> Spool::Read(uint64_t id) {
  std::string path = SnapshotPath(id);
  Result<std::vector<uint8_t>> bytes = env_.ReadFile(path);
  if (!bytes.ok()) return bytes.status().Prefixed("spool: ");
  Result<SnapshotRecord> record = DecodeSpoolRecord(*bytes);
  if (!record.ok()) {
    std::lock_guard lock(mutex_);
    RemoveLocked(id);
    return record.status().Prefixed("spool: " + path + ": ");
  }
  return record;
}

void Spool::Remove(uint64_t id) {
  std::lock_guard lock(mutex_);
  RemoveLocked(id);
}

void Spool::RemoveLocked(uint64_t id) {
  auto it = sizes_.find(id);
  if (it == sizes_.end()) return;
  bytes_ -= it->second;
  sizes_.erase(it);
  if (Status status = env_.RemoveFile(SnapshotPath(id)); !status.ok()) {
    log_.Warning("spool: " + status.message());
  }
}

Status Spool::WriteTitles(const TitleBytes& titles, const Sha256Digest& digest) {
  {
    std::lock_guard lock(mutex_);
    if (titles_.contains(digest)) return Status();
  }
  if (Status status = env_.WriteFileAtomically(TitlesPath(digest), EncodeSpoolTitles(titles));
      !status.ok()) {
    return status.Prefixed("spool: ");
  }
  std::lock_guard lock(mutex_);
  titles_.insert(digest);
  return Status();
}

Result<TitleBytes> Spool::ReadTitles(const Sha256Digest& digest) {
  std::string path = TitlesPath(digest);
  Result<std::vector<uint8_t>> bytes = env_.ReadFile(path);
  if (!bytes.ok()) return bytes.status().Prefixed("spool: ");
  Result<TitleBytes> titles = DecodeSpoolTitles(*bytes);
  if (!titles.ok()) return titles.status().Prefixed("spool: " + path + ": ");
  if (TitleDigest(titles->language, titles->counters, titles->helps) != digest) {
    return Status::DataLoss("spool: " + path + " is damaged: its content has another digest");
  }
  return titles;
}

uint64_t Spool::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

size_t Spool::size() const {
  std::lock_guard lock(mutex_);
  return sizes_.size();
}

uint64_t Spool::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::string Spool::SnapshotPath(uint64_t id) const {
  std::string digits = std::to_string(id);
  return dir_ + "/" + std::string(20 - std::min<size_t>(digits.size(), 20), '0') + digits +
         std::string(kSnapshotSuffix);
}

std::string Spool::TitlesPath(const Sha256Digest& digest) const {
  return dir_ + "/" + std::string(kTitlesPrefix) + ToHex(digest) + std::string(kTitlesSuffix);
}

}  // namespace perfhive
