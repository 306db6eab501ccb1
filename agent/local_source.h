// This host's own source, which differs by platform: HKEY_PERFORMANCE_DATA on Windows, /proc
// elsewhere (local_source_windows.cc, local_source_posix.cc). A host without an agent is opened
// by agent/remote_source.h instead.

#ifndef PERFHIVE_AGENT_LOCAL_SOURCE_H_
#define PERFHIVE_AGENT_LOCAL_SOURCE_H_

#include <memory>
#include <string>

#include "base/status.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// The source `snapshot` reads without --source: "hkpd" on Windows, "procfs" elsewhere.
const char* DefaultLocalSource();

// This host's source named `source` (procfs reads the /proc and /sys under the roots given), or
// why this platform has none of that name.
Result<std::unique_ptr<SnapshotSource>> OpenLocalSource(const std::string& source,
                                                        const std::string& proc_root,
                                                        const std::string& sys_root);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_LOCAL_SOURCE_H_
