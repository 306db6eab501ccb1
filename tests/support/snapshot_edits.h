// Edits of real snapshots and title databases that tests and benchmarks inject as faults.
// Header-only, over perfdata.

#ifndef PERFHIVE_TESTS_SUPPORT_SNAPSHOT_EDITS_H_
#define PERFHIVE_TESTS_SUPPORT_SNAPSHOT_EDITS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/byte_order.h"
#include "base/status.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "perfdata/winperf.h"

namespace perfhive::testing {

// `raw` without the object whose name index is `object_index` (NumObjectTypes and TotalByteLength
// told): what a provider unloaded or disabled leaves of a host's snapshot. NOT_FOUND when the
// snapshot has no such object.
inline Result<std::vector<uint8_t>> WithoutObject(const std::vector<uint8_t>& raw,
                                                  uint32_t object_index) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) return reader.status();
  for (const ObjectView& object : reader->objects()) {
    if (object.name_index() != object_index) continue;
    const uint32_t at = object.position();
    const uint32_t length = object.total_byte_length();
    std::vector<uint8_t> without(raw.begin(), raw.begin() + at);
    without.insert(without.end(), raw.begin() + at + length, raw.end());
    StoreU32(without.data() + winperf::data_block::kNumObjectTypes, reader->num_objects() - 1);
    StoreU32(without.data() + winperf::data_block::kTotalByteLength,
             reader->total_byte_length() - length);
    return without;
  }
  return Status(StatusCode::kNotFound, "no object " + std::to_string(object_index));
}

// `raw` without the instance of object `object_index` named `instance` (its definition and counter
// block; NumInstances and the lengths told): what a service that stopped leaves of an object that
// stays. Instances of other objects that name a later instance of this one as their parent would
// name the wrong one: edit objects that are nobody's parent. NOT_FOUND when there is no such
// instance.
inline Result<std::vector<uint8_t>> WithoutInstance(const std::vector<uint8_t>& raw,
                                                    uint32_t object_index,
                                                    std::string_view instance) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) return reader.status();
  for (const ObjectView& object : reader->objects()) {
    if (object.name_index() != object_index || !object.has_instance_list()) continue;
    for (const InstanceView& candidate : object.instances()) {
      if (InstanceName(object, candidate) != instance) continue;
      const uint32_t at = candidate.position();
      const uint32_t length = candidate.byte_length() + candidate.counters().byte_length();
      std::vector<uint8_t> without(raw.begin(), raw.begin() + at);
      without.insert(without.end(), raw.begin() + at + length, raw.end());
      uint8_t* header = without.data() + object.position();
      StoreU32(header + winperf::object_type::kNumInstances,
               static_cast<uint32_t>(object.num_instances() - 1));
      StoreU32(header + winperf::object_type::kTotalByteLength,
               object.total_byte_length() - length);
      StoreU32(without.data() + winperf::data_block::kTotalByteLength,
               reader->total_byte_length() - length);
      return without;
    }
  }
  return Status(StatusCode::kNotFound, "no instance " + std::string(instance) + " of object " +
                                           std::to_string(object_index));
}

// `raw` with the 8-byte counter `counter_index` of object `object_index` set to `value` in every
// instance: what a provider that reports garbage leaves. NOT_FOUND when the snapshot has no such
// counter, INVALID_ARGUMENT when it is not 8 bytes.
inline Result<std::vector<uint8_t>> WithCounterValue(const std::vector<uint8_t>& raw,
                                                     uint32_t object_index, uint32_t counter_index,
                                                     uint64_t value) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) return reader.status();
  std::vector<uint8_t> edited = raw;
  for (const ObjectView& object : reader->objects()) {
    if (object.name_index() != object_index) continue;
    for (const CounterDefinitionView& counter : object.counters()) {
      if (counter.name_index() != counter_index) continue;
      if (counter.size() != 8) {
        return Status::InvalidArgument("counter " + std::to_string(counter_index) + " has " +
                                       std::to_string(counter.size()) + " bytes, not 8");
      }
      for (const InstanceView& instance : object.instances()) {
        StoreU64(edited.data() + instance.counters().position() + counter.offset(), value);
      }
      return edited;
    }
  }
  return Status(StatusCode::kNotFound, "no counter " + std::to_string(counter_index) +
                                           " in object " + std::to_string(object_index));
}

// `titles` (the bytes of "Counter 009") without the name of `index`: a damaged title database
// (the state `lodctr /R` repairs). INVALID_ARGUMENT when `titles` is not a title list.
inline Result<std::vector<uint8_t>> TitlesWithoutName(const std::vector<uint8_t>& titles,
                                                      uint32_t index) {
  TitleDatabase database;
  if (Status parsed = ParseTitleList(titles, false, database); !parsed.ok()) return parsed;
  TitleDatabase damaged;
  for (uint32_t i = 0; i <= database.last_name_index(); ++i) {
    if (i == index) continue;
    if (std::optional<std::string_view> name = database.Name(i)) {
      damaged.AddName(i, std::string(*name));
    }
  }
  return damaged.EncodeNames();
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_SNAPSHOT_EDITS_H_
