// The Windows sources over the real registry.

#include <memory>
#include <string>

#include "port/env.h"
#include "sources/hkpd/hkpd_source.h"
#include "sources/hkpd/windows/win32_registry_api.h"

namespace perfhive {

std::unique_ptr<SnapshotSource> MakeLocalHkpdSource() {
  return std::make_unique<LocalHkpdSource>(SystemRegistry(), Env::Default());
}

std::unique_ptr<SnapshotSource> MakeRemoteHkpdSource(const std::string& machine) {
  return std::make_unique<RemoteHkpdSource>(SystemRegistry(), Env::Default(), machine);
}

}  // namespace perfhive
