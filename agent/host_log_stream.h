// HostLogStream: the stream one polled host's Logger writes to. Each line goes whole to a
// shared output (the agent's stderr), with the host's name after the time and level
// (`2026-11-23T01:17:29.490Z ERROR [WEB01] snapshot of Global failed: ...`), so that the lines
// of many hosts neither interleave nor leave a reader guessing which host they are about, and
// each host's Logger sums up its own repeats.

#ifndef PERFHIVE_AGENT_HOST_LOG_STREAM_H_
#define PERFHIVE_AGENT_HOST_LOG_STREAM_H_

#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>

namespace perfhive {

class HostLogStream : public std::ostream {
 public:
  // `sink` is shared by every HostLogStream given the same `sink_mutex`.
  HostLogStream(std::ostream& sink, std::mutex& sink_mutex, std::string host_name);
  HostLogStream(const HostLogStream&) = delete;
  HostLogStream& operator=(const HostLogStream&) = delete;

 private:
  class LineBuffer : public std::streambuf {
   public:
    LineBuffer(std::ostream& out, std::mutex& out_mutex, std::string tag)
        : out_(out), out_mutex_(out_mutex), tag_(std::move(tag)) {}

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* text, std::streamsize count) override;

   private:
    void WriteLine();

    std::ostream& out_;
    std::mutex& out_mutex_;
    const std::string tag_;  // "[NAME] "
    std::string line_;
  };

  LineBuffer buffer_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_HOST_LOG_STREAM_H_
