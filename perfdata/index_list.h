// Title indexes written as decimal numbers separated by spaces, the form Windows uses for a query
// of HKEY_PERFORMANCE_DATA ("230 238") and for a provider's "Object List" value, and the store for
// what it keeps of them.

#ifndef PERFHIVE_PERFDATA_INDEX_LIST_H_
#define PERFHIVE_PERFDATA_INDEX_LIST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfhive {

// The indexes in order; spaces may repeat, lead or trail. nullopt when anything else is there
// ("Global", "2 x 4", a number beyond 32 bits); "" is an empty list.
std::optional<std::vector<uint32_t>> ParseIndexList(std::string_view text);

// {230, 238} -> "230 238".
std::string FormatIndexList(const std::vector<uint32_t>& indexes);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_INDEX_LIST_H_
