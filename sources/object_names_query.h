// QueryForObjectNames: the HKEY_PERFORMANCE_DATA value name that asks for the objects a person
// names ("Process", "Network Interface") or numbers ("230"). Names become indexes through the
// host's own title database, because extensible objects have other indexes on every host; a
// name with several indexes asks for all of them (Windows answers those that are objects and
// ignores the rest).

#ifndef PERFHIVE_SOURCES_OBJECT_NAMES_QUERY_H_
#define PERFHIVE_SOURCES_OBJECT_NAMES_QUERY_H_

#include <span>
#include <string>

#include "base/status.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// `titles` as the host's source returned them (ReadTitles); names match ignoring case, as PDH
// matches them. The result lists the indexes in increasing order, separated by spaces
// ("230 238"). A name the database does not hold is an error naming it.
Result<std::string> QueryForObjectNames(const TitleBytes& titles,
                                        std::span<const std::string> objects);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_OBJECT_NAMES_QUERY_H_
