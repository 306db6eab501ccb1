// Env on POSIX systems: files through open/fsync/rename so the spool's writes are durable.

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "port/env.h"
#include "port/private_files.h"

namespace perfhive {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int error) {
  std::string message = what + " " + path + ": " + std::strerror(error);
  if (error == ENOENT) return Status::NotFound(std::move(message));
  if (error == ENOSPC || error == EDQUOT) return Status::ResourceExhausted(std::move(message));
  if (error == EACCES || error == EPERM) return Status::PermissionDenied(std::move(message));
  return Status::Error(std::move(message));
}

// Closes a descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, reporting the error close() may be the first to see.
  int Close() {
    int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// flock(), not fcntl(): fcntl's locks belong to the process, so a second lock taken in the same
// process would succeed, and closing any descriptor of the file would drop them.
class PosixFileLock : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override { ::close(fd_); }

 private:
  int fd_;
};

// The temporary file beside `path`, flushed, renamed over it, and the directory flushed. A
// secret's temporary is made 0600 before a byte is written: a leftover of a crash (O_TRUNC keeps
// its mode) or the umask never decide who may read it.
Status WriteAtomically(const std::string& path, std::span<const uint8_t> bytes, bool secret) {
  std::string temp = path + ".tmp";
  {
    FileDescriptor fd(
        ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, secret ? 0600 : 0644));
    if (fd.get() < 0) return ErrnoStatus("cannot create", temp, errno);
    if (secret && ::fchmod(fd.get(), 0600) != 0) {
      int error = errno;
      ::unlink(temp.c_str());
      return ErrnoStatus("cannot restrict", temp, error);
    }
    size_t written = 0;
    while (written < bytes.size()) {
      ssize_t n = ::write(fd.get(), bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int error = errno;
        ::unlink(temp.c_str());
        return ErrnoStatus("cannot write", temp, error);
      }
      written += static_cast<size_t>(n);
    }
    if (::fsync(fd.get()) != 0 || fd.Close() != 0) {
      int error = errno;
      ::unlink(temp.c_str());
      return ErrnoStatus("cannot flush", temp, error);
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return ErrnoStatus("cannot rename to", path, error);
  }
  std::string dir = DirectoryOf(path);
  FileDescriptor dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0) return ErrnoStatus("cannot open directory", dir, errno);
  if (::fsync(dir_fd.get()) != 0) return ErrnoStatus("cannot flush directory", dir, errno);
  return Status();
}

class PosixEnv : public Env {
 public:
  std::chrono::steady_clock::time_point SteadyNow() override {
    return std::chrono::steady_clock::now();
  }
  std::chrono::system_clock::time_point SystemNow() override {
    return std::chrono::system_clock::now();
  }
  void SleepFor(std::chrono::nanoseconds duration) override {
    std::this_thread::sleep_for(duration);
  }

  Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes) override {
    return WriteAtomically(path, bytes, false);
  }

  Status WriteSecretFileAtomically(const std::string& path,
                                   std::span<const uint8_t> bytes) override {
    return WriteAtomically(path, bytes, true);
  }

  Result<std::vector<uint8_t>> ReadFile(const std::string& path) override {
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return ErrnoStatus("cannot open", path, errno);
    std::vector<uint8_t> bytes;
    struct stat info;
    if (::fstat(fd.get(), &info) == 0 && info.st_size > 0) {
      bytes.reserve(static_cast<size_t>(info.st_size));
    }
    uint8_t buffer[64 * 1024];
    while (true) {
      ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("cannot read", path, errno);
      if (n == 0) break;
      bytes.insert(bytes.end(), buffer, buffer + n);
    }
    return bytes;
  }

  Result<std::vector<std::string>> ListDirectory(const std::string& dir) override {
    DIR* handle = ::opendir(dir.c_str());
    if (handle == nullptr) return ErrnoStatus("cannot list", dir, errno);
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(handle)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    ::closedir(handle);
    return names;
  }

  Status CreateDirectories(const std::string& dir) override {
    if (dir.empty()) return Status();
    struct stat info;
    if (::stat(dir.c_str(), &info) == 0) {
      if (S_ISDIR(info.st_mode)) return Status();
      return Status::Error("cannot create directory " + dir + ": a file of that name exists");
    }
    std::string parent = DirectoryOf(dir);
    if (parent != dir && parent != "." && parent != "/") {
      if (Status status = CreateDirectories(parent); !status.ok()) return status;
    }
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoStatus("cannot create directory", dir, errno);
    }
    return Status();
  }

  Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return ErrnoStatus("cannot remove", path, errno);
    return Status();
  }

  Result<uint64_t> FileSize(const std::string& path) override {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) return ErrnoStatus("cannot stat", path, errno);
    return static_cast<uint64_t>(info.st_size);
  }

  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("cannot open", path, errno);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int error = errno;
      std::string holder;
      char text[32];
      ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
      ::close(fd);
      if (error != EWOULDBLOCK) return ErrnoStatus("cannot lock", path, error);
      if (n > 0) holder.assign(text, static_cast<size_t>(n));
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      return Status(StatusCode::kFailedPrecondition,
                    path + " is locked by process " + (holder.empty() ? "?" : holder));
    }
    std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
      int error = errno;
      ::close(fd);
      return ErrnoStatus("cannot write", path, error);
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(fd));
  }
};

}  // namespace

void KeepNewFilesPrivate() { ::umask(077); }

Env& Env::Default() {
  static PosixEnv* env = new PosixEnv;  // never destroyed: used until the process ends
  return *env;
}

}  // namespace perfhive
