// Windows reads HKEY_PERFORMANCE_DATA.

#include "agent/local_source.h"
#include "sources/hkpd/hkpd_source.h"

namespace perfhive {

const char* DefaultLocalSource() { return "hkpd"; }

Result<std::unique_ptr<SnapshotSource>> OpenLocalSource(const std::string& source,
                                                        const std::string&, const std::string&) {
  if (source == "hkpd") return MakeLocalHkpdSource();
  return Status::Error("the " + source +
                       " source reads Linux's /proc and is not available on Windows; use "
                       "--source hkpd");
}

}  // namespace perfhive
