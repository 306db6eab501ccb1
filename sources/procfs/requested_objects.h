// RequestedObjects: which objects a RegQueryValueExW(HKEY_PERFORMANCE_DATA) value name asks for,
// answered as Windows answers it for the objects the Linux source has: "Global" is every
// object but the costly ones, "Costly" is Thread (with Process, its parent), and a list of
// indexes ("230 238") is those objects, each with the parent its instances name. Indexes of
// objects the host does not have are ignored, as Windows ignores them.

#ifndef PERFHIVE_SOURCES_PROCFS_REQUESTED_OBJECTS_H_
#define PERFHIVE_SOURCES_PROCFS_REQUESTED_OBJECTS_H_

#include <cstdint>
#include <set>
#include <string_view>

#include "base/status.h"

namespace perfhive {

class RequestedObjects {
 public:
  // Tokens are separated by spaces; "Global" and "Costly" match in any case; an empty query is
  // "Global". Anything else is an error naming the token.
  static Result<RequestedObjects> Parse(std::string_view query);

  bool Wants(uint32_t object_index) const { return objects_.contains(object_index); }
  const std::set<uint32_t>& objects() const { return objects_; }

 private:
  std::set<uint32_t> objects_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_REQUESTED_OBJECTS_H_
