// Env on Windows: files through CreateFileW/FlushFileBuffers/MoveFileExW, so the spool's writes
// are durable (MOVEFILE_WRITE_THROUGH returns once the rename is on disk); secrets get a DACL of
// their own (an SDDL string: sddl.h, which needs windows.h first).

// clang-format off
#include <windows.h>
#include <sddl.h>
// clang-format on

#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>

#include "port/env.h"
#include "port/private_files.h"
#include "port/wide_text.h"

namespace perfhive {
namespace {

Status LastErrorStatus(const std::string& what, const std::string& path) {
  DWORD error = GetLastError();
  std::string message = what + " " + path + ": " + std::system_category().message(error);
  if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) {
    return Status::NotFound(std::move(message));
  }
  if (error == ERROR_DISK_FULL) return Status::ResourceExhausted(std::move(message));
  if (error == ERROR_ACCESS_DENIED) return Status::PermissionDenied(std::move(message));
  return Status::Error(std::move(message));
}

Status ErrorCodeStatus(const std::string& what, const std::string& path, std::error_code error) {
  std::string message = what + " " + path + ": " + error.message();
  if (error == std::errc::no_such_file_or_directory) return Status::NotFound(std::move(message));
  return Status::Error(std::move(message));
}

// The lock is on a byte range far past the end of the file: the file's own bytes (the holder's
// process id) stay readable by the process that is refused.
constexpr DWORD kLockOffsetHigh = 0x40000000;

class WindowsFileLock : public FileLock {
 public:
  explicit WindowsFileLock(HANDLE file) : file_(file) {}
  ~WindowsFileLock() override { CloseHandle(file_); }

 private:
  HANDLE file_;
};

// The temporary file beside `path`, flushed, then renamed over it (a rename keeps the file's own
// security descriptor). With `security`, a leftover temporary is removed first: CreateFileW
// ignores the descriptor it is given when the file already exists.
Status WriteAtomically(const std::string& path, std::span<const uint8_t> bytes,
                       SECURITY_ATTRIBUTES* security) {
  std::string temp = path + ".tmp";
  if (security != nullptr) DeleteFileW(Wide(temp).c_str());
  HANDLE file =
      CreateFileW(Wide(temp).c_str(), GENERIC_WRITE, 0, security,
                  security != nullptr ? CREATE_NEW : CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) return LastErrorStatus("cannot create", temp);
  size_t written = 0;
  bool ok = true;
  while (ok && written < bytes.size()) {
    DWORD chunk = static_cast<DWORD>(std::min<size_t>(bytes.size() - written, 1 << 30));
    DWORD n = 0;
    ok = WriteFile(file, bytes.data() + written, chunk, &n, nullptr) != 0;
    written += n;
  }
  if (ok) ok = FlushFileBuffers(file) != 0;
  Status status = ok ? Status() : LastErrorStatus("cannot write", temp);
  CloseHandle(file);
  if (ok && !MoveFileExW(Wide(temp).c_str(), Wide(path).c_str(),
                         MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    status = LastErrorStatus("cannot rename to", path);
  }
  if (!status.ok()) DeleteFileW(Wide(temp).c_str());
  return status;
}

class WindowsEnv : public Env {
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
    return WriteAtomically(path, bytes, nullptr);
  }

  Status WriteSecretFileAtomically(const std::string& path,
                                   std::span<const uint8_t> bytes) override {
    // Protected (P): nothing inherited from the folder, which in %ProgramData% lets Users read.
    PSECURITY_DESCRIPTOR descriptor = nullptr;
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
            L"D:P(A;;FA;;;SY)(A;;FA;;;BA)", SDDL_REVISION_1, &descriptor, nullptr)) {
      return LastErrorStatus("cannot make the security descriptor of", path);
    }
    SECURITY_ATTRIBUTES attributes = {sizeof attributes, descriptor, FALSE};
    Status status = WriteAtomically(path, bytes, &attributes);
    LocalFree(descriptor);
    return status;
  }

  Result<std::vector<uint8_t>> ReadFile(const std::string& path) override {
    std::ifstream in(std::filesystem::u8path(path), std::ios::binary);
    if (!in) return Status::NotFound("cannot open " + path);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (in.bad()) return Status::Error("cannot read " + path);
    return bytes;
  }

  Result<std::vector<std::string>> ListDirectory(const std::string& dir) override {
    std::error_code error;
    std::vector<std::string> names;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::u8path(dir), error)) {
      std::u8string name = entry.path().filename().u8string();
      names.emplace_back(name.begin(), name.end());
    }
    if (error) return ErrorCodeStatus("cannot list", dir, error);
    return names;
  }

  Status CreateDirectories(const std::string& dir) override {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::u8path(dir), error);
    if (error) return ErrorCodeStatus("cannot create directory", dir, error);
    return Status();
  }

  Status RemoveFile(const std::string& path) override {
    if (!DeleteFileW(Wide(path).c_str())) return LastErrorStatus("cannot remove", path);
    return Status();
  }

  Result<uint64_t> FileSize(const std::string& path) override {
    std::error_code error;
    uintmax_t size = std::filesystem::file_size(std::filesystem::u8path(path), error);
    if (error) return ErrorCodeStatus("cannot stat", path, error);
    return static_cast<uint64_t>(size);
  }

  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    HANDLE file = CreateFileW(Wide(path).c_str(), GENERIC_READ | GENERIC_WRITE,
                              FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_ALWAYS,
                              FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) return LastErrorStatus("cannot open", path);
    OVERLAPPED range{};
    range.OffsetHigh = kLockOffsetHigh;
    if (!LockFileEx(file, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &range)) {
      DWORD error = GetLastError();
      char text[32] = {};
      DWORD n = 0;
      std::string holder;
      if (::ReadFile(file, text, sizeof text - 1, &n, nullptr) && n > 0) holder.assign(text, n);
      CloseHandle(file);
      if (error != ERROR_LOCK_VIOLATION) {
        SetLastError(error);
        return LastErrorStatus("cannot lock", path);
      }
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) {
        holder.pop_back();
      }
      return Status(StatusCode::kFailedPrecondition,
                    path + " is locked by process " + (holder.empty() ? "?" : holder));
    }
    std::string pid = std::to_string(GetCurrentProcessId()) + "\r\n";
    DWORD written = 0;
    if (SetFilePointer(file, 0, nullptr, FILE_BEGIN) == INVALID_SET_FILE_POINTER ||
        !SetEndOfFile(file) ||
        !WriteFile(file, pid.data(), static_cast<DWORD>(pid.size()), &written, nullptr)) {
      Status status = LastErrorStatus("cannot write", path);
      CloseHandle(file);
      return status;
    }
    return std::unique_ptr<FileLock>(new WindowsFileLock(file));
  }
};

}  // namespace

void KeepNewFilesPrivate() {}

Env& Env::Default() {
  static WindowsEnv* env = new WindowsEnv;  // never destroyed: used until the process ends
  return *env;
}

}  // namespace perfhive
