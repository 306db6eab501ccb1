// Host names compare ignoring case, as Windows compares computer names; the store keys hosts by
// the folded name, with perfdata's folding so that hosts and counter names fold alike.

#ifndef PERFHIVE_STORE_HOST_KEY_H_
#define PERFHIVE_STORE_HOST_KEY_H_

#include <string>
#include <string_view>

#include "perfdata/case_folding.h"

namespace perfhive {

inline std::string HostKey(std::string_view name) { return FoldCase(name); }

}  // namespace perfhive

#endif  // PERFHIVE_STORE_HOST_KEY_H_
