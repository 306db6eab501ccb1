// Text for the Windows error codes a registry reader meets, on any platform (the agentless
// poller runs on Linux too), so that messages name the number and its meaning.

#ifndef PERFHIVE_SOURCES_HKPD_WINDOWS_ERROR_H_
#define PERFHIVE_SOURCES_HKPD_WINDOWS_ERROR_H_

#include <string>

namespace perfhive {

// "53 (ERROR_BAD_NETPATH: the network path was not found)"; unknown codes as "N".
std::string DescribeWindowsError(long code);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_WINDOWS_ERROR_H_
