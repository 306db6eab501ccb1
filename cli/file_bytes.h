// Reading a whole file into memory, with an error that names the file.

#ifndef PERFHIVE_CLI_FILE_BYTES_H_
#define PERFHIVE_CLI_FILE_BYTES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace perfhive::cli {

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_FILE_BYTES_H_
