// The base snapshot the ingest message fuzzer's stream holds before each input, and its seeds'
// deltas are made against.

#ifndef PERFHIVE_TESTS_FUZZ_INGEST_MESSAGE_BASE_H_
#define PERFHIVE_TESTS_FUZZ_INGEST_MESSAGE_BASE_H_

#include <string>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/snapshot_builder.h"
#include "perfhive/v1/ingest.pb.h"
#include "port/sha256.h"

namespace perfhive::testing {

// A small Process snapshot whose values follow `seed`.
inline std::vector<uint8_t> FuzzSnapshot(uint64_t seed) {
  SnapshotBuilder builder;
  builder.set_system_name("FUZZ").set_system_time({2026, 11, 1, 23, 10, 0, 0, 0});
  ObjectBuilder& process = builder.AddObject(230);
  process.AddCounter({.name_index = 6, .type = winperf::kCounterLargeRawcount});
  process.AddCounter({.name_index = 784, .type = winperf::kCounterRawcount});
  for (uint32_t p = 0; p < 4; ++p) {
    uint32_t i = process.AddInstance("proc" + std::to_string(p));
    process.SetValue(i, 0, seed * 100 + p);
    process.SetValue(i, 1, 1000 + p);
  }
  return builder.Build();
}

inline perfhive::v1::Snapshot SnapshotMessage(const std::vector<uint8_t>& raw, uint64_t sequence,
                                              const std::vector<uint8_t>* base) {
  perfhive::v1::Snapshot message;
  message.set_instance_id("fuzz");
  message.set_sequence(sequence);
  message.set_query("Global");
  std::vector<uint8_t> frame = EncodeDelta(base ? *base : std::vector<uint8_t>{}, raw);
  message.set_encoding(base ? perfhive::v1::ENCODING_DELTA_ZSTD : perfhive::v1::ENCODING_ZSTD);
  message.set_base_sequence(base ? sequence - 1 : 0);
  message.set_payload(std::string(frame.begin(), frame.end()));
  message.set_raw_size(static_cast<uint32_t>(raw.size()));
  Sha256Digest digest = Sha256(raw);
  message.set_sha256(std::string(digest.begin(), digest.end()));
  return message;
}

inline perfhive::v1::Snapshot FuzzBaseSnapshotMessage() {
  return SnapshotMessage(FuzzSnapshot(1), 1, nullptr);
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_FUZZ_INGEST_MESSAGE_BASE_H_
