// The query model (query/series.h, query/read_engine.h) on the wire and back: the server takes
// a perfhive.v1.ReadRequest as the engine's request and answers with perfhive.v1.Series, and the
// CLI turns them back into a QueryAnswer for the same renderers the server uses. What crosses is
// what the renderers and scripts need: points, paths, identity, statistics, and the raw values when
// asked for (not the sample clocks).

#ifndef PERFHIVE_PROTO_SERIES_CONVERSION_H_
#define PERFHIVE_PROTO_SERIES_CONVERSION_H_

#include "base/status.h"
#include "perfhive/v1/query.pb.h"
#include "query/read_engine.h"
#include "query/series.h"

namespace perfhive {

void SeriesToProto(const query::Series& series, bool with_raw, perfhive::v1::Series* out);
// DATA_LOSS when the point columns differ in length.
Result<query::Series> SeriesFromProto(const perfhive::v1::Series& series);

// A Read request as the query engine takes it: 0 for `to` reads to the newest sample, 0 for
// `step` reads every sample. kInvalidArgument for fleet parameters that do not parse.
Result<query::ReadRequest> ReadRequestFromProto(const perfhive::v1::ReadRequest& request);

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_SERIES_CONVERSION_H_
