#include "export/write_request.h"

#include <snappy.h>

#include "export/remote_write.pb.h"

namespace perfhive {

std::string EncodeWriteRequest(std::span<const SeriesSamples> series) {
  prometheus::WriteRequest request;
  request.mutable_timeseries()->Reserve(static_cast<int>(series.size()));
  for (const SeriesSamples& one : series) {
    prometheus::TimeSeries* out = request.add_timeseries();
    for (const Label& label : *one.labels) {
      prometheus::Label* out_label = out->add_labels();
      out_label->set_name(label.name);
      out_label->set_value(label.value);
    }
    out->mutable_samples()->Reserve(static_cast<int>(one.samples.size()));
    for (const TimedValue& sample : one.samples) {
      prometheus::Sample* out_sample = out->add_samples();
      out_sample->set_value(sample.value);
      out_sample->set_timestamp(sample.timestamp_ms);
    }
  }
  std::string serialized = request.SerializeAsString();
  std::string compressed;
  snappy::Compress(serialized.data(), serialized.size(), &compressed);
  return compressed;
}

}  // namespace perfhive
