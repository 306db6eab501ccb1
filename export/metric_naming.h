// The mapping from a PDH counter (English object and counter names, counter type) to a
// Prometheus metric name, the factor that puts its value in base units, and its HELP text.
// docs/prometheus.md states the rules; they depend on nothing but their inputs, so every host
// and every server maps a counter to the same name.

#ifndef PERFHIVE_EXPORT_METRIC_NAMING_H_
#define PERFHIVE_EXPORT_METRIC_NAMING_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace perfhive {

struct MetricName {
  std::string name;  // "pdh_processor_processor_time_ratio"
  // The exported value is perfhive's computed value × multiplier / divisor: dividing keeps
  // 37.5 % exactly 0.375 and 99 % exactly 0.99, where × 0.01 would be off in the last bit.
  double multiplier = 1;
  double divisor = 1;
  std::string help;  // names the PDH counter, its type and the conversion

  double Apply(double value) const { return value * multiplier / divisor; }
};

// The metric for `counter` of `object` with counter type `counter_type`.
MetricName MapMetricName(std::string_view object, std::string_view counter, uint32_t counter_type);

// MapMetricName with a cache, shared by threads: a fleet repeats a few thousand counters across
// all its hosts.
class MetricNamer {
 public:
  const MetricName& Map(std::string_view object, std::string_view counter, uint32_t counter_type);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, MetricName> cache_;  // nodes do not move: references stay valid
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_METRIC_NAMING_H_
