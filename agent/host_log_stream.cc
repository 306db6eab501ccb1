#include "agent/host_log_stream.h"

namespace perfhive {

HostLogStream::HostLogStream(std::ostream& sink, std::mutex& sink_mutex, std::string host_name)
    : std::ostream(&buffer_), buffer_(sink, sink_mutex, "[" + std::move(host_name) + "] ") {}

HostLogStream::LineBuffer::int_type HostLogStream::LineBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  char character = traits_type::to_char_type(c);
  xsputn(&character, 1);
  return c;
}

std::streamsize HostLogStream::LineBuffer::xsputn(const char* text, std::streamsize count) {
  for (std::streamsize i = 0; i < count; ++i) {
    line_.push_back(text[i]);
    if (text[i] == '\n') WriteLine();
  }
  return count;
}

void HostLogStream::LineBuffer::WriteLine() {
  // After the time and the level: the Logger's lines start "<time> <LEVEL> ".
  size_t first = line_.find(' ');
  size_t second = first == std::string::npos ? first : line_.find(' ', first + 1);
  line_.insert(second == std::string::npos ? 0 : second + 1, tag_);
  {
    std::lock_guard lock(out_mutex_);
    out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
    out_.flush();
  }
  line_.clear();
}

}  // namespace perfhive
