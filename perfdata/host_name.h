// What a host name may be. A host's name is what its snapshots are filed under, what the
// machine part of a PDH path (\\NAME\Object\Counter) selects, and what `perfhive hosts` and the
// logs show, so it must be a computer name and nothing else: no path separators or wildcards
// (a path could not name the host), no controls or invisible characters (a terminal or log
// would show something other than the name), and not megabytes long.

#ifndef PERFHIVE_PERFDATA_HOST_NAME_H_
#define PERFHIVE_PERFDATA_HOST_NAME_H_

#include <cstddef>
#include <string_view>

#include "base/status.h"

namespace perfhive {

// A DNS name's limit; NetBIOS names are shorter still (15).
inline constexpr size_t kMaxHostNameBytes = 253;

// OK when `name` is 1 to kMaxHostNameBytes bytes of UTF-8 made of ASCII letters and digits, '-',
// '_' and '.', and letters beyond ASCII (any printable, non-space code point above U+00A0),
// neither starting with '-' or '.' nor ending with '.', without "..". Otherwise
// INVALID_ARGUMENT naming the first thing wrong, the name shown escaped (display_text.h).
Status CheckHostName(std::string_view name);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_HOST_NAME_H_
