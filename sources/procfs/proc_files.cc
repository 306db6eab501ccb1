#include "sources/procfs/proc_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "sources/procfs/proc_text.h"

namespace perfhive {
namespace {

constexpr long kProcSuperMagic = 0x9fa0;  // PROC_SUPER_MAGIC, <linux/magic.h>

int OpenDirectory(int at, const char* path) {
  return openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

std::string DescribePath(const std::string& root, const char* path, int error) {
  return root + "/" + path + ": " + std::strerror(error);
}

// Calls `visit` with the name of every entry of the directory at `path`; false when the
// directory cannot be opened.
template <typename Visit>
bool ForEachEntry(int at, const char* path, Visit visit) {
  int fd = OpenDirectory(at, path);
  if (fd < 0) return false;
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return false;
  }
  while (const dirent* entry = readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") visit(name);
  }
  closedir(dir);
  return true;
}

}  // namespace

Result<ProcFiles> ProcFiles::Open(std::string proc_root, std::string sys_root) {
  int proc_fd = OpenDirectory(AT_FDCWD, proc_root.c_str());
  if (proc_fd < 0) {
    return Status::Error("cannot open the proc root " + proc_root + ": " + std::strerror(errno));
  }
  // This process has descriptors open (proc_fd at least), so its fd directory has a size
  // exactly when the kernel reports counts.
  struct statfs fs {};
  struct stat self {};
  bool fd_size_is_count = fstatfs(proc_fd, &fs) == 0 && fs.f_type == kProcSuperMagic &&
                          fstatat(proc_fd, "self/fd", &self, 0) == 0 && self.st_size > 0;
  int sys_fd = OpenDirectory(AT_FDCWD, sys_root.c_str());
  return ProcFiles(std::move(proc_root), std::move(sys_root), proc_fd, sys_fd, fd_size_is_count);
}

ProcFiles::ProcFiles(ProcFiles&& other) noexcept
    : proc_root_(std::move(other.proc_root_)),
      sys_root_(std::move(other.sys_root_)),
      proc_fd_(std::exchange(other.proc_fd_, -1)),
      sys_fd_(std::exchange(other.sys_fd_, -1)),
      fd_size_is_count_(other.fd_size_is_count_) {}

ProcFiles::~ProcFiles() {
  if (proc_fd_ >= 0) close(proc_fd_);
  if (sys_fd_ >= 0) close(sys_fd_);
}

Status ProcFiles::ReadAt(int dir_fd, const std::string& root, const char* path, ReadBuffer& out) {
  out.Clear();
  if (dir_fd < 0) return Status::Error(DescribePath(root, path, ENOENT));
  int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(DescribePath(root, path, errno));
  // /proc files report size 0, so read until end of file into a buffer that grows.
  while (true) {
    if (out.spare() == 0) out.Grow();
    ssize_t n = read(fd, out.end(), out.spare());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      out.Clear();
      return Status::Error(DescribePath(root, path, error));
    }
    if (n == 0) break;
    out.Commit(static_cast<size_t>(n));
  }
  close(fd);
  return Status();
}

Status ProcFiles::Read(const char* path, ReadBuffer& out) const {
  return ReadAt(proc_fd_, proc_root_, path, out);
}

Status ProcFiles::ReadSys(const char* path, ReadBuffer& out) const {
  return ReadAt(sys_fd_, sys_root_, path, out);
}

int ProcFiles::OpenFile(const char* path, int flags) const {
  return openat(proc_fd_, path, O_RDONLY | O_CLOEXEC | flags);
}

std::string ProcFiles::Describe(const char* path, int error) const {
  return DescribePath(proc_root_, path, error);
}

bool ProcFiles::SysExists(const char* path) const {
  return sys_fd_ >= 0 && faccessat(sys_fd_, path, F_OK, 0) == 0;
}

std::vector<int32_t> ProcFiles::ListNumbered(const char* path) const {
  std::vector<int32_t> ids;
  ForEachEntry(proc_fd_, path, [&](std::string_view name) {
    std::optional<uint64_t> id = ParseU64(name);
    if (id && *id <= INT32_MAX) ids.push_back(static_cast<int32_t>(*id));
  });
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::optional<uint32_t> ProcFiles::CountEntries(const char* path) const {
  uint32_t count = 0;
  if (!ForEachEntry(proc_fd_, path, [&](std::string_view) { ++count; })) return std::nullopt;
  return count;
}

}  // namespace perfhive
