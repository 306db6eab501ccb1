// ReplayWriter: writes one generated host as a replay directory, the format `perfhive-agent run
// --source replay --replay DIR` reads (sources/replay/replay_source.h): the samples as
// 00000.perf, 00001.perf, ... (handed out in name order) and titles.bin, the host's "Counter 009"
// at its first sample. Replay hands out one title database, so the versions a host's database
// goes through later are written beside the folder, in HOST.titles/NNNNN.bin: the database in
// force from sample NNNNN on.

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_REPLAY_WRITER_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_REPLAY_WRITER_H_

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "base/status.h"

namespace perfhive::fleet {

class ReplayWriter {
 public:
  // Creates OUT/HOST/ with titles.bin. `samples` is how many samples will be written, so that
  // every file name has the same number of digits (at least 5) and name order is sample order.
  static Result<ReplayWriter> Create(const std::filesystem::path& out, const std::string& host,
                                     std::span<const uint8_t> titles, int64_t samples);

  // Writes the next sample, and `titles` when they changed before it.
  Status Write(std::span<const uint8_t> snapshot, bool titles_changed,
               std::span<const uint8_t> titles);

  const std::filesystem::path& folder() const { return folder_; }

 private:
  ReplayWriter(std::filesystem::path folder, std::filesystem::path title_folder, int digits)
      : folder_(std::move(folder)), title_folder_(std::move(title_folder)), digits_(digits) {}
  std::string NumberedName(const char* extension) const;

  std::filesystem::path folder_;
  std::filesystem::path title_folder_;
  int digits_;
  int64_t next_ = 0;
};

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_REPLAY_WRITER_H_
