// TitleParseReport: what a title parser skipped (perfdata/title_list.h, perfdata/lodctr_dump.h).

#ifndef PERFHIVE_PERFDATA_TITLE_PARSE_REPORT_H_
#define PERFHIVE_PERFDATA_TITLE_PARSE_REPORT_H_

#include <string>
#include <vector>

namespace perfhive {

// What a parser skipped: junk is reported, the rest is kept. Each warning names where the junk
// is: "entry 5 at byte 21: ..." in a list (the entry is the string's position in the list,
// from 0), "line 7 at byte 130: ..." in a dump (lines from 1; bytes from 0, in the input as
// given, byte order mark included).
struct TitleParseReport {
  std::vector<std::string> warnings;
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_PARSE_REPORT_H_
