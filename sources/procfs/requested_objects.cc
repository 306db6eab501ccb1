#include "sources/procfs/requested_objects.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "perfdata/well_known_indexes.h"
#include "sources/procfs/proc_text.h"

namespace perfhive {
namespace {

namespace ti = title_index;

constexpr uint32_t kGlobalObjects[] = {ti::kSystem,          ti::kMemory,      ti::kProcess,
                                       ti::kPhysicalDisk,    ti::kLogicalDisk, ti::kProcessor,
                                       ti::kNetworkInterface};
constexpr uint32_t kCostlyObjects[] = {ti::kThread};

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

bool IsKnown(uint32_t index) {
  return std::ranges::find(kGlobalObjects, index) != std::end(kGlobalObjects) ||
         std::ranges::find(kCostlyObjects, index) != std::end(kCostlyObjects);
}

}  // namespace

Result<RequestedObjects> RequestedObjects::Parse(std::string_view query) {
  RequestedObjects parsed;
  std::string_view rest = query;
  if (rest.find_first_not_of(" \t") == std::string_view::npos) rest = "Global";
  for (std::string_view token = NextField(rest); !token.empty(); token = NextField(rest)) {
    if (EqualsIgnoringCase(token, "Global")) {
      parsed.objects_.insert(std::begin(kGlobalObjects), std::end(kGlobalObjects));
    } else if (EqualsIgnoringCase(token, "Costly")) {
      parsed.objects_.insert(std::begin(kCostlyObjects), std::end(kCostlyObjects));
    } else if (std::optional<uint64_t> index = ParseU64(token)) {
      if (*index <= UINT32_MAX && IsKnown(static_cast<uint32_t>(*index))) {
        parsed.objects_.insert(static_cast<uint32_t>(*index));
      }
    } else {
      return Status::Error("query \"" + std::string(query) + "\": '" + std::string(token) +
                           "' is not Global, Costly or an object index");
    }
  }
  // Thread instances name their process as parent.
  if (parsed.Wants(ti::kThread)) parsed.objects_.insert(ti::kProcess);
  return parsed;
}

}  // namespace perfhive
