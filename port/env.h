// Env: the one seam to the operating system for clocks, sleeps and the files the agent's spool
// keeps, after LevelDB's Env. Portable code (the sampler, spool and shipper, the Windows registry
// sources) calls only this, so it builds unchanged for Windows and tests can fake the clock or
// point it at a temporary directory.

#ifndef PERFHIVE_PORT_ENV_H_
#define PERFHIVE_PORT_ENV_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace perfhive {

// An exclusive lock on a file, held until this object is destroyed or the process ends, however
// it ends: the operating system lets go of it for a process that was killed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

// The wall clock now, in Unix nanoseconds: the timestamps the store and the wire keep.
inline int64_t UnixNanosNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Env {
 public:
  virtual ~Env() = default;

  // The process-wide Env of this platform (env_posix.cc, env_windows.cc).
  static Env& Default();

  // A clock that never goes back, for schedules and timeouts.
  virtual std::chrono::steady_clock::time_point SteadyNow() = 0;
  // The UTC wall clock, for timestamps people read.
  virtual std::chrono::system_clock::time_point SystemNow() = 0;
  virtual void SleepFor(std::chrono::nanoseconds duration) = 0;

  // Replaces `path` with `bytes` so that a crash at any moment leaves either the old content
  // or the new, never a mix: a temporary file beside it, flushed to disk, renamed over `path`,
  // and the directory flushed so the rename itself survives.
  virtual Status WriteFileAtomically(const std::string& path, std::span<const uint8_t> bytes) = 0;
  // WriteFileAtomically for a file that holds a secret (an agent's token): only the system and
  // its administrators may read it, whatever the folder allows. On POSIX mode 0600 (its owner:
  // root, or the service's own user); on Windows a protected DACL of its own, nothing inherited,
  // granting SYSTEM and Administrators full control and nobody else anything.
  virtual Status WriteSecretFileAtomically(const std::string& path,
                                           std::span<const uint8_t> bytes) = 0;
  virtual Result<std::vector<uint8_t>> ReadFile(const std::string& path) = 0;
  // The names (not paths) of the entries of `dir`, "." and ".." left out, in no order.
  virtual Result<std::vector<std::string>> ListDirectory(const std::string& dir) = 0;
  // Creates `dir` and its missing parents; an existing directory is fine.
  virtual Status CreateDirectories(const std::string& dir) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  virtual Result<uint64_t> FileSize(const std::string& path) = 0;

  // Takes the exclusive lock on `path` (created if missing) and writes this process's id into
  // it, or fails at once with FAILED_PRECONDITION naming the process that holds it. Two locks
  // on one file exclude each other within one process too.
  virtual Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) = 0;
};

// Text files (PEM, TOML) through an Env: the bytes of `text`, and a file's bytes as text.
inline std::span<const uint8_t> TextBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}
inline Result<std::string> ReadTextFile(Env& env, const std::string& path) {
  Result<std::vector<uint8_t>> bytes = env.ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  return std::string(bytes->begin(), bytes->end());
}

}  // namespace perfhive

#endif  // PERFHIVE_PORT_ENV_H_
