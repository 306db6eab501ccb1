// ChildProcess: a program a test starts, talks to through its output files, and stops by PID.
// The child is killed if the test process dies first (PR_SET_PDEATHSIG), and by the destructor
// if the test did not stop it, so no test leaves a process behind.

#ifndef PERFHIVE_TESTS_SUPPORT_CHILD_PROCESS_H_
#define PERFHIVE_TESTS_SUPPORT_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace perfhive::testing {

// fork(), with the child killed when the test process ends, however it ends. Returns as fork()
// does.
pid_t ForkBoundChild();

class ChildProcess {
 public:
  // Starts `argv[0]` with `argv`, its standard output and error appended to the given files
  // (standard input is /dev/null). Aborts the test program if fork fails.
  ChildProcess(std::vector<std::string> argv, const std::string& stdout_path,
               const std::string& stderr_path);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  void Signal(int signal) const;
  // The exit code (or 128 + signal) once the child ends within `timeout`, std::nullopt if it
  // is still running then.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  bool running();

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

// The whole content of a file ("" if it cannot be read).
std::string ReadWholeFile(const std::string& path);

// Waits until the file holds a line matching `pattern` (ECMAScript regex) and returns the first
// match's group 1 (or the whole match when there is no group); std::nullopt after `timeout`.
std::optional<std::string> WaitForMatch(const std::string& path, const std::string& pattern,
                                        std::chrono::milliseconds timeout);

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_CHILD_PROCESS_H_
