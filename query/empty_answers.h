// Why a query has nothing from a host for a path, as the lines an answer's warnings carry
// (docs/query_semantics.md, "Empty answers"): an unknown object or counter, or an instance part
// that matches no instance, each with the close names the host has (perfdata/name_distance.h); an
// object without instances; a host without samples in the range. They are worked out only for a
// (host, path) that selected nothing, so answers that select something cost nothing more.

#ifndef PERFHIVE_QUERY_EMPTY_ANSWERS_H_
#define PERFHIVE_QUERY_EMPTY_ANSWERS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/counter_path.h"
#include "query/host_samples.h"

namespace perfhive::query {

// Why `path` (as the user wrote it: `written`) selected nothing in `samples`, the samples of
// `host` in the range as the query read them; they may hold only the objects the query's paths
// name (the store's partial restore). `whole` is asked, at most once, for a complete sample of the
// host in the range when the object is in none of `samples`: the object names it holds are the
// ones suggested. It may give null (no suggestion then). Names are suggested in English or in the
// host's language, whichever the path's name is closer to.
std::string ExplainNothingSelected(std::string_view host, std::span<const HostSample> samples,
                                   const CounterPath& path, std::string_view written,
                                   const std::function<const HostSample*()>& whole);

// That `host` has no sample from `from_ns` to `to_ns` (0 and INT64_MAX: no bound), and when the
// stored sample nearest to the range was taken, if there is one.
std::string NoSampleInRange(std::string_view host, int64_t from_ns, int64_t to_ns,
                            std::optional<int64_t> nearest_ns);

// "; known hosts: a, b, ... (N in all)", a few of `hosts` for an error that says a host is
// unknown: enough to spot a typo, bounded however many hosts (and however long their names)
// there are; "; the server has no hosts yet" for none.
std::string KnownHosts(const std::vector<std::string>& hosts);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_EMPTY_ANSWERS_H_
