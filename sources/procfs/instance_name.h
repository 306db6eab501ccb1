// Instance names that PDH paths can carry. In \\host\Object(Parent/Instance#Index)\Counter the
// characters ( ) / \ # have a meaning, and Linux names hold them ("kworker/0:1H",
// "(sd-pam)"), so they are replaced as Windows' own providers replace them in adapter names
// ("Intel(R) PRO/1000" is written "Intel[R] PRO_1000"): ( ) become [ ], / \ # become _.

#ifndef PERFHIVE_SOURCES_PROCFS_INSTANCE_NAME_H_
#define PERFHIVE_SOURCES_PROCFS_INSTANCE_NAME_H_

#include <string>
#include <string_view>

namespace perfhive {

std::string PdhInstanceName(std::string_view name);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_INSTANCE_NAME_H_
