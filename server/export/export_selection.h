// ExportSelection: which counters leave the server for Prometheus-compatible engines (remote
// write and /metrics), chosen by PDH path patterns so that users control cardinality, and their
// values computed with the query library exactly as `perfhive query` computes them.

#ifndef PERFHIVE_SERVER_EXPORT_EXPORT_SELECTION_H_
#define PERFHIVE_SERVER_EXPORT_EXPORT_SELECTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "export/computed_sample.h"
#include "perfdata/counter_path.h"
#include "query/host_samples.h"

namespace perfhive {

class ExportSelection {
 public:
  // Every counter of every object: objects with instances, and objects without.
  static const std::vector<std::string>& DefaultInclude();

  // Counters selected by any of `include` (DefaultInclude() when empty) and by none of
  // `exclude`; both are PDH paths with wildcards, expanded as `perfhive query` expands them
  // (so `\Thread(*)\*` names the Thread object, and `\Memory\*` an object without instances).
  static Result<ExportSelection> Parse(const std::vector<std::string>& include,
                                       const std::vector<std::string>& exclude);

  // The valid values of the selected counters from the samples taken after `after_ns`, each
  // series oldest first. Counters without an English name are left out: their metric name
  // would differ from host to host.
  Result<std::vector<ComputedSample>> Compute(const query::HostSamples& samples,
                                              int64_t after_ns) const;

 private:
  std::vector<CounterPath> include_;
  std::vector<CounterPath> exclude_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_EXPORT_EXPORT_SELECTION_H_
