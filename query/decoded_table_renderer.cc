#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "perfdata/display_text.h"
#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "perfdata/winperf.h"
#include "query/decoded_snapshot_renderers.h"
#include "query/text_table.h"

namespace perfhive::query {
namespace {

std::string Label(const std::optional<std::string>& name, uint32_t index) {
  if (name) return *name;
  std::string label = "#";  // appended, not "#" + ...: GCC 12 -O3 warns falsely on that
  label += std::to_string(index);
  return label;
}

std::string RawCell(const DecodedRawValue& raw) {
  if (const uint64_t* number = std::get_if<uint64_t>(&raw)) return std::to_string(*number);
  if (const std::string* text = std::get_if<std::string>(&raw)) return *text;
  return "-";
}

std::string FormatValue(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

std::string InstancesText(int32_t num_instances) {
  if (num_instances >= 0) return std::to_string(num_instances) + " instances";
  return num_instances == winperf::kNoInstances ? "no instances" : "metadata only";
}

// Names are the host's and its title database's, shown escaped (perfdata/display_text.h) here
// and in the table (query/text_table.h).
void RenderObject(const DecodedObject& object, bool with_values, std::ostream& out) {
  out << "\n"
      << EscapeForDisplay(Label(object.name, object.index)) << " (object " << object.index
      << "): " << object.counters.size() << " counters, " << InstancesText(object.num_instances)
      << "\n";
  std::vector<std::vector<std::string>> rows = {
      {"INSTANCE", "COUNTER", "INDEX", "TYPE", "SIZE", "RAW"}};
  if (with_values) {
    rows[0].push_back("VALUE");
    rows[0].push_back("STATUS");
  }
  for (const DecodedInstance& instance : object.instances) {
    std::string name = instance.has_definition ? instance.pdh_name : "-";
    for (const DecodedCounter& counter : instance.counters) {
      const DecodedCounterDefinition& definition = object.counters[counter.definition];
      std::vector<std::string> row = {name,
                                      Label(definition.name, definition.index),
                                      std::to_string(definition.index),
                                      definition.type,
                                      std::to_string(definition.size),
                                      RawCell(counter.raw)};
      if (with_values) {
        bool valid = counter.value && IsSuccess(counter.value->status);
        row.push_back(valid ? FormatValue(counter.value->value) : "-");
        row.push_back(counter.value ? std::string(PdhStatusName(counter.value->status)) : "-");
      }
      rows.push_back(std::move(row));
    }
  }
  PrintTable(out, rows, "  ");
}

}  // namespace

void RenderDecodedTable(const DecodedSnapshot& snapshot, std::ostream& out) {
  out << "System " << EscapeForDisplay(snapshot.system) << "  "
      << FormatSystemTime(snapshot.system_time) << "  PerfTime " << snapshot.perf_time
      << "  PerfFreq " << snapshot.perf_freq << "  PerfTime100nSec " << snapshot.perf_time_100ns
      << "\n";
  for (const DecodedObject& object : snapshot.objects) {
    RenderObject(object, snapshot.has_values, out);
  }
}

}  // namespace perfhive::query
