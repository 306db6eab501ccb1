// The remote-write request body: a WriteRequest (export/remote_write.proto) serialized and
// snappy block-compressed, as the spec asks (Content-Encoding: snappy).

#ifndef PERFHIVE_EXPORT_WRITE_REQUEST_H_
#define PERFHIVE_EXPORT_WRITE_REQUEST_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "export/series_labels.h"

namespace perfhive {

struct TimedValue {
  int64_t timestamp_ms = 0;
  double value = 0;
};

// One series' samples in a request, oldest first; `labels` sorted by name.
struct SeriesSamples {
  const Labels* labels = nullptr;
  std::vector<TimedValue> samples;
};

// The HTTP headers a remote-write POST carries besides authentication.
inline constexpr const char* kRemoteWriteHeaders[] = {
    "Content-Type: application/x-protobuf",
    "Content-Encoding: snappy",
    "X-Prometheus-Remote-Write-Version: 0.1.0",
};

// The compressed body for `series`.
std::string EncodeWriteRequest(std::span<const SeriesSamples> series);

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_WRITE_REQUEST_H_
