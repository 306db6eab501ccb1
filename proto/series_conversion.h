// The query model (query/series.h) on the wire and back: the server answers Read with
// perfhive.v1.Series, and the CLI turns them back into a QueryAnswer for the same renderers the
// server could use. What crosses is what the renderers and scripts need: points, paths, identity,
// statistics, and the raw values when asked for (not the sample clocks).

#ifndef PERFHIVE_PROTO_SERIES_CONVERSION_H_
#define PERFHIVE_PROTO_SERIES_CONVERSION_H_

#include "base/status.h"
#include "perfhive/v1/query.pb.h"
#include "query/series.h"

namespace perfhive {

void SeriesToProto(const query::Series& series, bool with_raw, perfhive::v1::Series* out);
// DATA_LOSS when the point columns differ in length.
Result<query::Series> SeriesFromProto(const perfhive::v1::Series& series);

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_SERIES_CONVERSION_H_
