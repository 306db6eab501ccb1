// Baselines: a read's series beside the same series over an earlier window ("this hour against
// the same hour a week ago"), per host series or per group, with the difference and ratio of
// their means. The earlier window is the same read shifted back; a series is the same when its
// path is (host, object, instance name and counter; an aggregate's function and group).

#ifndef PERFHIVE_QUERY_BASELINE_H_
#define PERFHIVE_QUERY_BASELINE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "query/series.h"

namespace perfhive::query {

// The mean a comparison compares: a host series' mean over its raw samples (its statistics), an
// aggregate's over its step values; nothing without a valid value.
std::optional<double> ComparedMean(const Series& series);

// Sets `baseline` on each of `now` that has a series of the same path in `earlier` (the read of
// the window `offset_ns` before): its points moved forward by `offset_ns` to line up with the
// window's, its mean and the window's. Series without an earlier one get none.
void AttachBaselines(std::vector<Series>& now, std::vector<Series>& earlier, int64_t offset_ns);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_BASELINE_H_
