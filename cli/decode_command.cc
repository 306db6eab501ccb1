#include "cli/decode_command.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>

#include "cli/file_bytes.h"
#include "perfdata/counter_type.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "perfdata/winperf.h"

namespace perfhive::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr uint32_t kTextAscii = 0x00010000;  // PERF_TEXT_ASCII, else PERF_TEXT_UNICODE

Json NameOf(const TitleDatabase* titles, uint32_t index) {
  if (titles == nullptr) return nullptr;
  std::optional<std::string_view> name = titles->Name(index);
  return name ? Json(std::string(*name)) : Json(nullptr);
}

std::string FormatSystemTime(const SystemTime& t) {
  char text[64];
  std::snprintf(text, sizeof text, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", t.year, t.month, t.day,
                t.hour, t.minute, t.second, t.milliseconds);
  return text;
}

// The raw value as stored: a number for 4- and 8-byte counters, the text of text counters,
// null for the rest.
Json RawValue(const CounterBlockView& block, const CounterDefinitionView& counter) {
  if ((counter.type() & winperf::kTypeMask) == winperf::kTypeText) {
    std::span<const uint8_t> bytes = block.Bytes(counter);
    return (counter.type() & kTextAscii) ? CodePageToUtf8(bytes, 1252) : Utf16LeToUtf8(bytes);
  }
  if (std::optional<uint64_t> value = block.Value(counter)) return *value;
  return nullptr;
}

// Names of the instances of the object with title index `object_index`, in position order, for
// children that name their parent by position.
std::vector<std::string> InstanceNamesOf(const SnapshotReader& snapshot, uint32_t object_index) {
  std::vector<std::string> names;
  if (std::optional<ObjectView> parent = snapshot.FindObject(object_index)) {
    for (InstanceView instance : parent->instances())
      names.push_back(InstanceName(*parent, instance));
  }
  return names;
}

Json Decode(const SnapshotReader& snapshot, const TitleDatabase* titles) {
  Json doc;
  doc["system"] = snapshot.system_name();
  doc["system_time"] = FormatSystemTime(snapshot.system_time());
  doc["perf_time"] = snapshot.perf_time();
  doc["perf_freq"] = snapshot.perf_freq();
  doc["perf_time_100ns"] = snapshot.perf_time_100ns();
  doc["version"] = snapshot.version();
  doc["revision"] = snapshot.revision();
  Json& objects = doc["objects"] = Json::array();
  std::map<uint32_t, std::vector<std::string>> parent_names;
  for (ObjectView object : snapshot.objects()) {
    Json o;
    o["index"] = object.name_index();
    o["name"] = NameOf(titles, object.name_index());
    o["num_instances"] = object.num_instances();
    o["detail_level"] = object.detail_level();
    o["default_counter"] = object.default_counter();
    o["code_page"] = object.code_page();
    o["perf_time"] = object.perf_time();
    o["perf_freq"] = object.perf_freq();
    Json& definitions = o["counters"] = Json::array();
    for (CounterDefinitionView counter : object.counters()) {
      definitions.push_back({{"index", counter.name_index()},
                             {"name", NameOf(titles, counter.name_index())},
                             {"type", CounterTypeName(counter.type())},
                             {"size", counter.size()},
                             {"offset", counter.offset()},
                             {"default_scale", counter.default_scale()},
                             {"detail_level", counter.detail_level()}});
    }
    Json& instances = o["instances"] = Json::array();
    for (InstanceView instance : object.instances()) {
      Json i;
      if (instance.has_definition()) {
        i["name"] = InstanceName(object, instance);
        Json parent = nullptr;
        if (instance.parent_object_index() != 0) {
          auto [it, inserted] = parent_names.try_emplace(instance.parent_object_index());
          if (inserted) it->second = InstanceNamesOf(snapshot, instance.parent_object_index());
          if (instance.parent_instance() < it->second.size()) {
            parent = it->second[instance.parent_instance()];
          }
        }
        i["parent"] = parent;
        i["parent_object"] = instance.parent_object_index();
        i["parent_instance"] = instance.parent_instance();
      } else {
        i["name"] = nullptr;
        i["parent"] = nullptr;
      }
      i["unique_id"] = instance.unique_id();
      Json& counters = i["counters"] = Json::array();
      CounterBlockView block = instance.counters();
      size_t c = 0;
      for (CounterDefinitionView counter : object.counters()) {
        const Json& definition = definitions[c++];
        counters.push_back({{"index", definition["index"]},
                            {"name", definition["name"]},
                            {"type", definition["type"]},
                            {"size", definition["size"]},
                            {"raw", RawValue(block, counter)}});
      }
      instances.push_back(std::move(i));
    }
    objects.push_back(std::move(o));
  }
  return doc;
}

std::string Cell(const Json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string Label(const Json& name, const Json& index) {
  if (!name.is_null()) return name.get<std::string>();
  std::string label = "#";  // appended, not "#" + ...: GCC 12 -O3 warns falsely on that
  label += index.dump();
  return label;
}

// The table: one section per object, one row per instance and counter, columns aligned.
void PrintTable(const Json& doc, std::ostream& out) {
  out << "System " << Cell(doc["system"]) << "  " << Cell(doc["system_time"]) << "  PerfTime "
      << doc["perf_time"] << "  PerfFreq " << doc["perf_freq"] << "  PerfTime100nSec "
      << doc["perf_time_100ns"] << "\n";
  for (const Json& object : doc["objects"]) {
    out << "\n"
        << Label(object["name"], object["index"]) << " (object " << object["index"]
        << "): " << object["counters"].size() << " counters, ";
    int32_t num_instances = object["num_instances"].get<int32_t>();
    if (num_instances >= 0) {
      out << num_instances << " instances\n";
    } else {
      out << (num_instances == winperf::kNoInstances ? "no instances\n" : "metadata only\n");
    }
    std::vector<std::array<std::string, 6>> rows = {
        {"INSTANCE", "COUNTER", "INDEX", "TYPE", "SIZE", "RAW"}};
    for (const Json& instance : object["instances"]) {
      std::string name = instance["name"].is_null() ? "-" : instance["name"].get<std::string>();
      if (instance["parent"].is_string()) name = instance["parent"].get<std::string>() + "/" + name;
      for (const Json& counter : instance["counters"]) {
        rows.push_back({name, Label(counter["name"], counter["index"]), counter["index"].dump(),
                        Cell(counter["type"]), counter["size"].dump(), Cell(counter["raw"])});
      }
    }
    std::array<size_t, 6> widths{};
    for (const auto& row : rows) {
      for (size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], row[k].size());
    }
    for (const auto& row : rows) {
      std::string line = "  ";
      for (size_t k = 0; k < row.size(); ++k) {
        line += row[k];
        if (k + 1 < row.size()) line.append(widths[k] - row[k].size() + 2, ' ');
      }
      out << line << "\n";
    }
  }
}

}  // namespace

int RunDecode(const DecodeOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<TitleDatabase> titles;
  if (options.titles_path) {
    Result<std::vector<uint8_t>> bytes = ReadFileBytes(*options.titles_path);
    if (!bytes.ok()) {
      err << "perfhive decode: " << bytes.error() << "\n";
      return 1;
    }
    Result<TitleDatabase> parsed = LoadTitleDatabase(*bytes);
    if (!parsed.ok()) {
      err << "perfhive decode: " << *options.titles_path << ": " << parsed.error() << "\n";
      return 1;
    }
    titles = std::move(parsed).value();
  }
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(options.snapshot_path);
  if (!bytes.ok()) {
    err << "perfhive decode: " << bytes.error() << "\n";
    return 1;
  }
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*bytes);
  if (!snapshot.ok()) {
    err << "perfhive decode: " << options.snapshot_path << ": " << snapshot.error() << "\n";
    return 1;
  }
  Json doc = Decode(*snapshot, titles ? &*titles : nullptr);
  if (options.format == DecodeOptions::Format::kJson) {
    out << doc.dump(2) << "\n";
  } else {
    PrintTable(doc, out);
  }
  return out.good() ? 0 : 1;
}

}  // namespace perfhive::cli
