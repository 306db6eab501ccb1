#include "tests/bench/realistic_fleet/replay_writer.h"

#include <cstdio>
#include <fstream>
#include <system_error>

#include "sources/replay/replay_source.h"

namespace perfhive::fleet {
namespace {

namespace fs = std::filesystem;

Status WriteBytes(const fs::path& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Status::Error("cannot write " + path.string());
  return Status();
}

Status MakeFolder(const fs::path& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) return Status::Error("cannot create " + folder.string() + ": " + error.message());
  return Status();
}

}  // namespace

Result<ReplayWriter> ReplayWriter::Create(const fs::path& out, const std::string& host,
                                          std::span<const uint8_t> titles, int64_t samples) {
  int digits = 5;
  for (int64_t limit = 100'000; samples > limit; limit *= 10) ++digits;
  ReplayWriter writer(out / host, out / (host + ".titles"), digits);
  Status made = MakeFolder(writer.folder_);
  if (!made.ok()) return made;
  Status written = WriteBytes(writer.folder_ / ReplaySource::kTitlesFile, titles);
  if (!written.ok()) return written;
  return writer;
}

std::string ReplayWriter::NumberedName(const char* extension) const {
  char name[48];
  std::snprintf(name, sizeof name, "%0*lld%s", digits_, static_cast<long long>(next_), extension);
  return name;
}

Status ReplayWriter::Write(std::span<const uint8_t> snapshot, bool titles_changed,
                           std::span<const uint8_t> titles) {
  if (titles_changed) {
    Status made = MakeFolder(title_folder_);
    if (!made.ok()) return made;
    Status written = WriteBytes(title_folder_ / NumberedName(".bin"), titles);
    if (!written.ok()) return written;
  }
  Status written = WriteBytes(folder_ / NumberedName(".perf"), snapshot);
  if (!written.ok()) return written;
  ++next_;
  return Status();
}

}  // namespace perfhive::fleet
