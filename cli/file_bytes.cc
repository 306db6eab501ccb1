#include "cli/file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace perfhive::cli {

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return Status::Error(path + ": read failed: " + std::strerror(errno));
  return bytes;
}

}  // namespace perfhive::cli
