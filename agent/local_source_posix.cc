// Linux and other POSIX systems read /proc (and /sys).

#include "agent/local_source.h"
#include "sources/procfs/procfs_source.h"

namespace perfhive {

const char* DefaultLocalSource() { return "procfs"; }

Result<std::unique_ptr<SnapshotSource>> OpenLocalSource(const std::string& source,
                                                        const std::string& proc_root,
                                                        const std::string& sys_root) {
  if (source != "procfs") {
    return Status::Error("the " + source +
                         " source reads HKEY_PERFORMANCE_DATA and is only available on Windows; "
                         "on this platform use --source procfs");
  }
  Result<std::unique_ptr<ProcfsSource>> procfs =
      ProcfsSource::Create(ProcfsOptions{.proc_root = proc_root, .sys_root = sys_root});
  if (!procfs.ok()) return procfs.status();
  return std::unique_ptr<SnapshotSource>(std::move(procfs).value());
}

}  // namespace perfhive
