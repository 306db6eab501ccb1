// ComputedSample: one value perfhive computed for one counter instance at one time, as the server
// hands it to the exporters. Plain data so export/ depends on no decoder or store type.

#ifndef PERFHIVE_EXPORT_COMPUTED_SAMPLE_H_
#define PERFHIVE_EXPORT_COMPUTED_SAMPLE_H_

#include <cstdint>
#include <optional>
#include <string>

namespace perfhive {

struct ComputedSample {
  std::string host;             // the host as it appears in the PDH path (\\host)
  std::string object_english;   // the object's English name, from the host's title database
  std::string counter_english;  // the counter's English name
  // The PDH instance text, with parent and #n as PDH writes it ("svchost#2", "0/C:"); empty for
  // an object without instances.
  std::string instance;
  std::string parent;  // the parent part alone, empty when none
  uint32_t counter_type = 0;
  std::optional<uint32_t> pid;  // for process-like objects
  int64_t timestamp_ms = 0;     // Unix time of the sample, milliseconds
  double value = 0;             // the computed value, as `perfhive query` shows it
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_COMPUTED_SAMPLE_H_
