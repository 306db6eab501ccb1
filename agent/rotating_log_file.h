// RotatingLogFile: where the agent logs when it has no console (the Windows service), kept to a
// bounded size: when agent.log would grow past `max_bytes` it becomes agent.1.log (agent.1.log
// becomes agent.2.log, and so on), the oldest beyond `keep` is removed, and a new agent.log
// starts. A stream buffer, so the Logger and anything written to std::cerr can share it: each
// thread's text goes to the file a whole line at a time, so lines never interleave.

#ifndef PERFHIVE_AGENT_ROTATING_LOG_FILE_H_
#define PERFHIVE_AGENT_ROTATING_LOG_FILE_H_

#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>

namespace perfhive {

class RotatingLogFile : public std::streambuf {
 public:
  // How each line ends in the file: Windows' own line end there, so that every editor shows
  // lines; the sizes counted are the file's.
#ifdef _WIN32
  static constexpr std::string_view kLineEnd = "\r\n";
#else
  static constexpr std::string_view kLineEnd = "\n";
#endif

  struct Options {
    std::string path;                  // agent.log
    uint64_t max_bytes = 10ull << 20;  // of one file
    int keep = 4;                      // older files: agent.1.log .. agent.4.log
  };

  // Appends to `path` (created when missing; its folder must exist).
  explicit RotatingLogFile(Options options);
  RotatingLogFile(const RotatingLogFile&) = delete;
  RotatingLogFile& operator=(const RotatingLogFile&) = delete;

  // False when the file could not be opened; lines are then dropped.
  bool is_open();

  // The name of the `n`th older file of `path`: agent.log, 1 -> agent.1.log (the extension kept
  // last, so it still opens with the same program); a name without one gets ".1".
  static std::string OlderFile(const std::string& path, int n);

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;

 private:
  // Under mutex_; `line` without its end.
  void WriteLine(std::string_view line);
  // Moves the files one place along. When agent.log cannot be renamed (another program holds it
  // open without letting it be), it keeps growing and the next line tries again.
  void Rotate();
  void Open(std::ios::openmode mode);

  const Options options_;
  std::mutex mutex_;
  std::ofstream file_;
  uint64_t size_ = 0;  // of file_, as far as this object wrote or found it
  std::map<std::thread::id, std::string> partial_;  // each thread's line so far
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_ROTATING_LOG_FILE_H_
