// DecodedSnapshot: one raw snapshot as a person reads it, every object, instance and counter
// with names from the host's title database, raw values, and (given the previous sample) each
// counter's value and PDH status; only what the requested paths select. `perfhive decode`
// prints it; the renderers in decoded_snapshot_renderers.h write it as a table or JSON.

#ifndef PERFHIVE_QUERY_DECODED_SNAPSHOT_H_
#define PERFHIVE_QUERY_DECODED_SNAPSHOT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/counter_path.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"

namespace perfhive::query {

// A counter's definition in its object, as the snapshot declares it.
struct DecodedCounterDefinition {
  uint32_t index = 0;
  std::optional<std::string> name;  // none when the title database has no name for the index
  std::string type;                 // the winperf.h name: "PERF_100NSEC_TIMER"
  uint32_t size = 0;
  uint32_t offset = 0;
  int32_t default_scale = 0;  // shown, never applied
  uint32_t detail_level = 0;
};

// The raw value as stored: a number for 4- and 8-byte counters, the text of text counters,
// nothing for the rest.
using DecodedRawValue = std::variant<std::monostate, uint64_t, std::string>;

// One counter of one instance.
struct DecodedCounter {
  uint32_t definition = 0;  // its position in the object's `counters`
  DecodedRawValue raw;
  std::string path;  // the full counter path, names resolved (indexes where there is no name)
  // Against the previous sample, when there was one: its value is meaningful only when the
  // status is a success.
  std::optional<CounterValue> value;
};

// One instance; an object without instances has one, without a definition.
struct DecodedInstance {
  bool has_definition = false;
  std::string name;      // as stored; empty without a definition
  std::string parent;    // the parent instance's name; empty when it names none
  std::string pdh_name;  // as a counter path names it: "explorer/0", "svchost#2"
  uint32_t parent_object = 0;
  uint32_t parent_instance = 0;
  int32_t unique_id = 0;
  std::vector<DecodedCounter> counters;
};

struct DecodedObject {
  uint32_t index = 0;
  std::optional<std::string> name;
  int32_t num_instances = 0;  // as stored: winperf::kNoInstances, or negative for metadata only
  uint32_t detail_level = 0;
  int32_t default_counter = 0;
  uint32_t code_page = 0;
  int64_t perf_time = 0;
  int64_t perf_freq = 0;
  std::vector<DecodedCounterDefinition> counters;  // every definition, selected or not
  std::vector<DecodedInstance> instances;          // those holding a selected counter
};

struct DecodedSnapshot {
  std::string system;
  SystemTime system_time;
  int64_t perf_time = 0;
  int64_t perf_freq = 0;
  int64_t perf_time_100ns = 0;
  uint32_t version = 0;
  uint32_t revision = 0;
  bool has_values = false;             // computed against a previous sample
  std::vector<DecodedObject> objects;  // those holding a selected counter
};

struct DecodeRequest {
  const SnapshotReader* previous = nullptr;  // the older sample of the same host, for values
  const TitleDatabase* titles = nullptr;     // none: objects and counters are known by index
  std::vector<CounterPath> paths;            // what to keep (wildcards allowed); empty: all
  FormatOptions format;
};

// Decodes `snapshot`. The previous sample, when given, must not be newer (values would divide
// by a negative time); the caller says so in its own words.
DecodedSnapshot DecodeSnapshot(const SnapshotReader& snapshot, const DecodeRequest& request);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_DECODED_SNAPSHOT_H_
