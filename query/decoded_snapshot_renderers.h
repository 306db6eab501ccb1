// Renderers over a DecodedSnapshot, to any ostream: a table for people, JSON for scripts.
// README ("Look at raw performance data offline") shows both.

#ifndef PERFHIVE_QUERY_DECODED_SNAPSHOT_RENDERERS_H_
#define PERFHIVE_QUERY_DECODED_SNAPSHOT_RENDERERS_H_

#include <iosfwd>

#include "query/decoded_snapshot.h"

namespace perfhive::query {

// A header line with the snapshot's clocks, then one section per object with one aligned row per
// instance and counter (INSTANCE COUNTER INDEX TYPE SIZE RAW, and VALUE STATUS with values).
// A name the title database lacks is shown as "#index", anything missing as "-".
void RenderDecodedTable(const DecodedSnapshot& snapshot, std::ostream& out);

// {"system","system_time","perf_time","perf_freq","perf_time_100ns","version","revision",
// "objects":[{"index","name","num_instances",...,"counters":[definitions],"instances":[{"name",
// "parent",...,"counters":[{"index","name","type","size","raw","path"[,"value","status"]}]}]}]},
// indented by two spaces; names the title database lacks are null.
void RenderDecodedJson(const DecodedSnapshot& snapshot, std::ostream& out);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_DECODED_SNAPSHOT_RENDERERS_H_
