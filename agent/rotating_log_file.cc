#include "agent/rotating_log_file.h"

#include <filesystem>
#include <system_error>

namespace perfhive {
namespace {

std::filesystem::path Path(const std::string& utf8) { return std::filesystem::u8path(utf8); }

}  // namespace

RotatingLogFile::RotatingLogFile(Options options) : options_(std::move(options)) {
  Open(std::ios::app);
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(Path(options_.path), error);
  if (!error) size_ = size;
}

bool RotatingLogFile::is_open() {
  std::lock_guard lock(mutex_);
  return file_.is_open();
}

std::string RotatingLogFile::OlderFile(const std::string& path, int n) {
  size_t slash = path.find_last_of("/\\");
  size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1)) {
    return path + "." + std::to_string(n);
  }
  return path.substr(0, dot) + "." + std::to_string(n) + path.substr(dot);
}

RotatingLogFile::int_type RotatingLogFile::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  char character = traits_type::to_char_type(c);
  xsputn(&character, 1);
  return c;
}

std::streamsize RotatingLogFile::xsputn(const char* text, std::streamsize count) {
  std::lock_guard lock(mutex_);
  auto [partial, added] = partial_.try_emplace(std::this_thread::get_id());
  for (std::streamsize i = 0; i < count; ++i) {
    if (text[i] == '\n') {
      WriteLine(partial->second);
      partial->second.clear();
    } else {
      partial->second.push_back(text[i]);
    }
  }
  if (partial->second.empty()) partial_.erase(partial);
  return count;
}

void RotatingLogFile::WriteLine(std::string_view line) {
  uint64_t bytes = line.size() + kLineEnd.size();
  if (size_ > 0 && size_ + bytes > options_.max_bytes) Rotate();
  if (!file_.is_open()) return;
  file_.write(line.data(), static_cast<std::streamsize>(line.size()));
  file_.write(kLineEnd.data(), static_cast<std::streamsize>(kLineEnd.size()));
  // Each line reaches the file at once: a service that crashes keeps its last words.
  file_.flush();
  size_ += bytes;
}

void RotatingLogFile::Rotate() {
  file_.close();
  // agent.log moves aside first: when it cannot, the older files stay as they are.
  std::string moving = options_.path + ".rotating";
  std::error_code error;
  std::filesystem::rename(Path(options_.path), Path(moving), error);
  if (error) {
    Open(std::ios::app);
    return;
  }
  std::error_code ignored;
  std::filesystem::remove(Path(OlderFile(options_.path, options_.keep)), ignored);
  for (int n = options_.keep - 1; n >= 1; --n) {
    std::filesystem::rename(Path(OlderFile(options_.path, n)),
                            Path(OlderFile(options_.path, n + 1)), ignored);
  }
  if (options_.keep > 0) {
    std::filesystem::rename(Path(moving), Path(OlderFile(options_.path, 1)), ignored);
  } else {
    std::filesystem::remove(Path(moving), ignored);
  }
  Open(std::ios::trunc);
  size_ = 0;
}

void RotatingLogFile::Open(std::ios::openmode mode) {
  file_.open(Path(options_.path), std::ios::out | std::ios::binary | mode);
}

}  // namespace perfhive
