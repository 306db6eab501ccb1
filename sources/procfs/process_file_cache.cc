#include "sources/procfs/process_file_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace perfhive {
namespace {

constexpr const char* kFileNames[] = {"stat", "statm", "io", "fd"};  // by slot
constexpr int kRefused = -2;  // opening was refused (io of another user's process): not retried

// Reads the whole file from offset 0. These are single-record seq files, which the kernel
// writes whole in one read when the buffer is large enough, so a short read is the end; a full
// buffer is grown and read again.
bool ReadFromStart(int fd, ReadBuffer& out) {
  out.Clear();
  if (out.spare() == 0) out.Grow();
  while (true) {
    ssize_t n = pread(fd, out.end(), out.spare(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (static_cast<size_t>(n) < out.spare()) {
      out.Commit(static_cast<size_t>(n));
      return true;
    }
    out.Grow();
  }
}

// "<pid>/<file>", built only to open a file or to name it in an error.
std::string PathOf(int32_t pid, int slot) { return std::to_string(pid) + "/" + kFileNames[slot]; }

}  // namespace

ProcessFileCache::~ProcessFileCache() {
  for (auto& [pid, entry] : entries_) Close(entry);
}

void ProcessFileCache::Close(Entry& entry) {
  for (int& fd : entry.fds) {
    if (fd >= 0) {
      close(fd);
      --open_files_;
    }
    fd = -1;
  }
}

int ProcessFileCache::Descriptor(Entry& entry, int32_t pid, int slot, int flags, bool* temporary) {
  int& fd = entry.fds[slot];
  *temporary = false;
  if (fd >= 0) return fd;
  if (fd == kRefused) {
    errno = EACCES;
    return -1;
  }
  int opened = files_.OpenFile(PathOf(pid, slot).c_str(), flags);
  if (opened < 0) {
    if (errno == EACCES || errno == EPERM) fd = kRefused;
    return -1;
  }
  if (open_files_ >= max_open_) {
    *temporary = true;
    return opened;
  }
  ++open_files_;
  return fd = opened;
}

Status ProcessFileCache::Read(int32_t pid, File file, ReadBuffer& out) {
  Entry& entry = entries_[pid];
  entry.seen = true;
  if (entry.fds[file] >= 0) {
    if (ReadFromStart(entry.fds[file], out)) return Status();
    if (errno != ESRCH || file != kStat) {
      return Status::Error(files_.Describe(PathOf(pid, file).c_str(), errno));
    }
    // The process these files belonged to has ended; the pid may belong to a new one.
    Close(entry);
  }
  bool temporary = false;
  int fd = Descriptor(entry, pid, file, 0, &temporary);
  bool read = fd >= 0 && ReadFromStart(fd, out);
  int error = errno;
  if (temporary) close(fd);
  if (!read) return Status::Error(files_.Describe(PathOf(pid, file).c_str(), error));
  return Status();
}

std::optional<uint32_t> ProcessFileCache::CountDescriptors(int32_t pid) {
  if (!files_.fd_directory_size_is_count()) {
    return files_.CountEntries(PathOf(pid, kFdDirectory).c_str());
  }
  Entry& entry = entries_[pid];
  entry.seen = true;
  bool temporary = false;
  int fd = Descriptor(entry, pid, kFdDirectory, O_PATH | O_DIRECTORY, &temporary);
  struct stat st {};
  bool sized = fd >= 0 && fstat(fd, &st) == 0;
  if (temporary) close(fd);
  if (!sized) return std::nullopt;
  return static_cast<uint32_t>(st.st_size);
}

void ProcessFileCache::Sweep() {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.seen) {
      it->second.seen = false;
      ++it;
    } else {
      Close(it->second);
      it = entries_.erase(it);
    }
  }
}

}  // namespace perfhive
