// ProcFiles: reads the files of /proc and /sys under roots that tests can move to a fake tree.
// Paths are relative to the roots and opened with openat() from directory descriptors held
// open, so each read costs one open, one or two reads and one close.

#ifndef PERFHIVE_SOURCES_PROCFS_PROC_FILES_H_
#define PERFHIVE_SOURCES_PROCFS_PROC_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sources/procfs/read_buffer.h"

namespace perfhive {

class ProcFiles {
 public:
  // The proc root must be a readable directory; a missing sys root only leaves out what comes
  // from /sys (disk kinds, link speeds).
  static Result<ProcFiles> Open(std::string proc_root, std::string sys_root);

  ProcFiles(ProcFiles&& other) noexcept;
  ProcFiles& operator=(ProcFiles&&) = delete;
  ProcFiles(const ProcFiles&) = delete;
  ProcFiles& operator=(const ProcFiles&) = delete;
  ~ProcFiles();

  // Replaces `out` with the whole file at `path` (relative to the root); the error names the
  // full path and the reason.
  Status Read(const char* path, ReadBuffer& out) const;
  Status ReadSys(const char* path, ReadBuffer& out) const;
  bool SysExists(const char* path) const;

  // Opens a file under the proc root for reading (with `flags` added to O_RDONLY | O_CLOEXEC):
  // a descriptor, or -1 with errno set.
  int OpenFile(const char* path, int flags = 0) const;
  // "<proc root>/<path>: <reason>", for errors.
  std::string Describe(const char* path, int error) const;

  // The entries of a directory under the proc root whose names are decimal numbers (process
  // and thread ids), in increasing order. Empty when the directory cannot be read.
  std::vector<int32_t> ListNumbered(const char* path) const;
  // How many entries (other than . and ..) a directory under the proc root holds; nullopt when
  // it cannot be read.
  std::optional<uint32_t> CountEntries(const char* path) const;

  const std::string& proc_root() const { return proc_root_; }
  // Whether the size of /proc/<pid>/fd is its number of open descriptors: true on procfs since
  // Linux 6.2 (false for a test's fake tree).
  bool fd_directory_size_is_count() const { return fd_size_is_count_; }

 private:
  ProcFiles(std::string proc_root, std::string sys_root, int proc_fd, int sys_fd,
            bool fd_size_is_count)
      : proc_root_(std::move(proc_root)),
        sys_root_(std::move(sys_root)),
        proc_fd_(proc_fd),
        sys_fd_(sys_fd),
        fd_size_is_count_(fd_size_is_count) {}
  static Status ReadAt(int dir_fd, const std::string& root, const char* path, ReadBuffer& out);

  std::string proc_root_;
  std::string sys_root_;
  int proc_fd_ = -1;
  int sys_fd_ = -1;
  bool fd_size_is_count_ = false;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROC_FILES_H_
