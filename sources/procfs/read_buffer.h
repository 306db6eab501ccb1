// ReadBuffer: memory for the text of one file at a time, reused from read to read. A
// std::string would be zero-filled each time it grows back to its capacity; for the thousand
// small reads of a snapshot that filling, and the cache lines it evicts, cost as much as the
// reads themselves.

#ifndef PERFHIVE_SOURCES_PROCFS_READ_BUFFER_H_
#define PERFHIVE_SOURCES_PROCFS_READ_BUFFER_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace perfhive {

class ReadBuffer {
 public:
  std::string_view text() const { return {data_.get(), size_}; }

  // Drops the text, keeping the memory.
  void Clear() { size_ = 0; }
  // The free space after the text; Grow() when it is empty.
  char* end() { return data_.get() + size_; }
  size_t spare() const { return capacity_ - size_; }
  // The text now ends `n` bytes further (written into end()).
  void Commit(size_t n) { size_ += n; }
  // Doubles the capacity (at least 4 KiB), keeping the text.
  void Grow() {
    size_t capacity = capacity_ == 0 ? 4096 : capacity_ * 2;
    std::unique_ptr<char[]> data(new char[capacity]);
    if (size_ > 0) std::memcpy(data.get(), data_.get(), size_);
    data_ = std::move(data);
    capacity_ = capacity;
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_READ_BUFFER_H_
