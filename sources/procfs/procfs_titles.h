// The title database a Linux host answers with: the Windows name of every object and counter
// the procfs source writes, under its Windows index, and help texts that say where on Linux
// each value comes from.

#ifndef PERFHIVE_SOURCES_PROCFS_PROCFS_TITLES_H_
#define PERFHIVE_SOURCES_PROCFS_PROCFS_TITLES_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "perfdata/title_database.h"

namespace perfhive {

struct ProcfsTitle {
  uint32_t index;  // the name's index; the help text is index + 1, as Windows numbers them
  std::string_view name;
  std::string_view help;
};

// Every title, in increasing index order.
std::span<const ProcfsTitle> ProcfsTitles();

TitleDatabase ProcfsTitleDatabase();

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_PROCFS_PROCFS_TITLES_H_
