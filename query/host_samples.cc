#include "query/host_samples.h"

#include "perfdata/name_pattern.h"

namespace perfhive::query {

bool MachineMatches(const CounterPath& path, std::string_view host) {
  return path.machine.empty() || MatchesPattern(path.machine, host);
}

}  // namespace perfhive::query
