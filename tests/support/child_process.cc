#include "tests/support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

namespace perfhive::testing {

pid_t ForkBoundChild() {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent may have died before prctl took effect.
    if (getppid() != parent) _exit(1);
  }
  return pid;
}

ChildProcess::ChildProcess(std::vector<std::string> argv, const std::string& stdout_path,
                           const std::string& stderr_path) {
  pid_ = ForkBoundChild();
  if (pid_ < 0) {
    std::perror("fork");
    std::abort();
  }
  if (pid_ == 0) {
    int in = open("/dev/null", O_RDONLY);
    int out = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    // Signals blocked by the test (gRPC's threads, sigwait) must not stay blocked in the child.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> args;
    for (std::string& arg : argv) args.push_back(arg.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), exit_code_(other.exit_code_) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_code_) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

void ChildProcess::Signal(int signal) const {
  if (pid_ > 0 && !exit_code_) kill(pid_, signal);
}

std::optional<int> ChildProcess::Wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!exit_code_) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return exit_code_;
}

bool ChildProcess::running() { return !Wait(std::chrono::milliseconds(0)).has_value(); }

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<std::string> WaitForMatch(const std::string& path, const std::string& pattern,
                                        std::chrono::milliseconds timeout) {
  std::regex expression(pattern);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::string text = ReadWholeFile(path);
    std::smatch match;
    if (std::regex_search(text, match, expression)) {
      return match.size() > 1 ? match[1].str() : match[0].str();
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace perfhive::testing
