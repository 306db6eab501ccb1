// ProcfsSource: the SnapshotSource of a Linux host. It builds genuine PERF_DATA_BLOCK snapshots
// from /proc and /sys, with Windows' object and counter indexes, counter types and time bases,
// so that \\linuxhost\Processor(_Total)\% Processor Time means what it means on Windows.
// docs/linux_source.md describes every counter's origin and the clocks.

#ifndef PERFHIVE_SOURCES_PROCFS_PROCFS_SOURCE_H_
#define PERFHIVE_SOURCES_PROCFS_PROCFS_SOURCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sources/procfs/proc_files.h"
#include "sources/procfs/process_file_cache.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct ProcfsOptions {
  // Where procfs and sysfs are; tests point them at a fake tree.
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  uint64_t ticks_per_second = 0;  // USER_HZ; 0: sysconf(_SC_CLK_TCK)
  uint64_t page_size = 0;         // 0: sysconf(_SC_PAGESIZE)
};

class ProcfsSource : public SnapshotSource {
 public:
  // Fails when the proc root cannot be opened.
  static Result<std::unique_ptr<ProcfsSource>> Create(ProcfsOptions options = {});
  ProcfsSource(const ProcfsSource&) = delete;
  ProcfsSource& operator=(const ProcfsSource&) = delete;

  // Objects whose files cannot be read are left out (see warnings()); it is an error only when
  // the query names objects and none of them could be read.
  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<std::vector<TitleBytes>> ReadTitles() override;
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override;
  // What snapshots left out or set to 0, and why (a container without /proc/diskstats, a
  // missing /sys).
  std::vector<std::string> TakeWarnings() override;
  // The host name from /proc/sys/kernel/hostname (the UTS namespace's), the kernel release.
  Result<HostIdentity> Identity() override;
  // Linux has no performance counter providers to disable.
  Result<std::vector<DisabledProvider>> DisabledProviders() override {
    return std::vector<DisabledProvider>{};
  }

 private:
  ProcfsSource(ProcFiles files, uint64_t ticks_per_second, uint64_t page_size,
               size_t max_open_files)
      : files_(std::move(files)),
        process_files_(files_, max_open_files),
        ticks_per_second_(ticks_per_second),
        page_size_(page_size) {}
  std::string HostName() const;

  ProcFiles files_;
  ProcessFileCache process_files_;  // refers to files_
  uint64_t ticks_per_second_;
  uint64_t page_size_;
  std::vector<std::string> warnings_;
  bool titles_returned_ = false;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROCFS_SOURCE_H_
