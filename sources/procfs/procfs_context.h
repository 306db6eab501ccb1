// ProcfsContext: what every object writer of the Linux source needs for one snapshot: the
// files, the clocks read at its start, the host's units, and a reusable read buffer.

#ifndef PERFHIVE_SOURCES_PROCFS_PROCFS_CONTEXT_H_
#define PERFHIVE_SOURCES_PROCFS_PROCFS_CONTEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sources/procfs/proc_files.h"
#include "sources/procfs/process_file_cache.h"
#include "sources/procfs/sample_clock.h"

namespace perfhive {

struct ProcfsContext {
  const ProcFiles& files;
  ProcessFileCache& process_files;
  SampleClock clock;
  uint64_t ticks_per_second;  // USER_HZ, the unit of /proc CPU times
  uint64_t page_size;
  ReadBuffer buffer;  // the text of the file read last
  // What was left out of this snapshot and why (a file missing in a container, ...).
  std::vector<std::string> warnings;

  uint64_t TicksTo100ns(uint64_t ticks) const {
    return perfhive::TicksTo100ns(ticks, ticks_per_second);
  }
  // Reads a file under the proc root into `buffer`; the error names the file.
  Status Read(const char* path) { return files.Read(path, buffer); }

  // Reads a file and parses its text with `parse`; a parse error gets the file's path in front.
  template <typename Parse>
  auto ReadParsed(const char* path, Parse parse) -> decltype(parse(std::string_view())) {
    Status status = Read(path);
    if (!status.ok()) return status;
    auto parsed = parse(buffer.text());
    if (!parsed.ok()) return Status::Error(files.proc_root() + "/" + path + ": " + parsed.error());
    return parsed;
  }
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROCFS_CONTEXT_H_
