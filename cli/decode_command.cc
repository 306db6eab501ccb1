#include "cli/decode_command.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <span>
#include <tuple>

#include "cli/file_bytes.h"
#include "perfdata/counter_path.h"
#include "perfdata/counter_type.h"
#include "perfdata/instance_names.h"
#include "perfdata/path_expander.h"
#include "perfdata/pdh_status.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/snapshot_values.h"
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

// The full path of a counter, names from the title database (indexes where it has none).
std::string PathOf(const std::string& machine, const TitleDatabase* titles, uint32_t object_index,
                   const InstancePathName* instance, uint32_t counter_index) {
  auto shown = [&](uint32_t index) {
    std::optional<std::string_view> name = titles ? titles->Name(index) : std::nullopt;
    return name ? std::string(*name) : std::to_string(index);
  };
  return FormatCounterPath(
      MakeCounterPath(machine, shown(object_index), instance, shown(counter_index)));
}

// The counters --path selects, as (object position, instance position, counter position).
using Selection = std::set<std::tuple<uint32_t, uint32_t, uint32_t>>;

Result<Selection> Select(const SnapshotReader& snapshot, const TitleDatabase* titles,
                         const std::vector<std::string>& patterns) {
  TitleDatabase empty;
  PathExpander expander(snapshot, titles ? *titles : empty);
  Selection selection;
  for (const std::string& pattern : patterns) {
    Result<CounterPath> path = ParseCounterPath(pattern);
    if (!path.ok()) return WithPathDisplay(path.status(), pattern);
    for (const CounterMatch& match : expander.Expand(*path)) {
      selection.insert({match.object_position, match.instance_position, match.counter_position});
    }
  }
  return selection;
}

Json Decode(const SnapshotReader& snapshot, const SnapshotReader* previous,
            const TitleDatabase* titles, const Selection* selection, const FormatOptions& format) {
  const std::string machine = snapshot.system_name();
  Json doc;
  doc["system"] = machine;
  doc["system_time"] = FormatSystemTime(snapshot.system_time());
  doc["perf_time"] = snapshot.perf_time();
  doc["perf_freq"] = snapshot.perf_freq();
  doc["perf_time_100ns"] = snapshot.perf_time_100ns();
  doc["version"] = snapshot.version();
  doc["revision"] = snapshot.revision();
  Json& objects = doc["objects"] = Json::array();
  std::map<uint32_t, size_t> object_at;  // byte offset → position in "objects"
  for (ObjectView object : snapshot.objects()) {
    object_at[object.position()] = objects.size();
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
    std::vector<InstancePathName> names = NameInstances(snapshot, object);
    Json& instances = o["instances"] = Json::array();
    uint32_t position = 0;
    for (InstanceView instance : object.instances()) {
      const InstancePathName& name = names[position++];
      Json i;
      if (instance.has_definition()) {
        i["name"] = InstanceName(object, instance);
        i["parent"] = name.parent.empty() ? Json(nullptr) : Json(name.parent);
        i["pdh_name"] = name.ToString();
        i["parent_object"] = instance.parent_object_index();
        i["parent_instance"] = instance.parent_instance();
      } else {
        i["name"] = nullptr;
        i["parent"] = nullptr;
      }
      i["unique_id"] = instance.unique_id();
      Json& counters = i["counters"] = Json::array();
      size_t c = 0;
      for (CounterDefinitionView counter : object.counters()) {
        const Json& definition = definitions[c++];
        counters.push_back(
            {{"index", definition["index"]},
             {"name", definition["name"]},
             {"type", definition["type"]},
             {"size", definition["size"]},
             {"raw", RawValue(instance.counters(), counter)},
             {"path", PathOf(machine, titles, object.name_index(),
                             instance.has_definition() ? &name : nullptr, counter.name_index())}});
      }
      instances.push_back(std::move(i));
    }
    objects.push_back(std::move(o));
  }

  if (previous != nullptr) {
    ComputeSnapshotValues(previous, snapshot, format, [&](const ComputedValue& v) {
      Json& counter = objects[object_at[v.object.position()]]["instances"][v.instance_position]
                             ["counters"][v.counter_position];
      counter["value"] = IsSuccess(v.value.status) ? Json(v.value.value) : Json(nullptr);
      counter["status"] = std::string(PdhStatusName(v.value.status));
    });
  }

  if (selection != nullptr) {  // keep only what --path selected, and what holds it
    Json kept = Json::array();
    for (size_t o = 0; o < objects.size(); ++o) {
      Json instances = Json::array();
      Json& all = objects[o]["instances"];
      for (size_t i = 0; i < all.size(); ++i) {
        Json counters = Json::array();
        for (size_t c = 0; c < all[i]["counters"].size(); ++c) {
          if (selection->contains(
                  {static_cast<uint32_t>(o), static_cast<uint32_t>(i), static_cast<uint32_t>(c)})) {
            counters.push_back(std::move(all[i]["counters"][c]));
          }
        }
        if (counters.empty()) continue;
        all[i]["counters"] = std::move(counters);
        instances.push_back(std::move(all[i]));
      }
      if (instances.empty()) continue;
      objects[o]["instances"] = std::move(instances);
      kept.push_back(std::move(objects[o]));
    }
    objects = std::move(kept);
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

std::string FormatValue(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

// The table: one section per object, one row per instance and counter, columns aligned; values
// and statuses when they were computed.
void PrintTable(const Json& doc, bool with_values, std::ostream& out) {
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
    std::vector<std::vector<std::string>> rows = {
        {"INSTANCE", "COUNTER", "INDEX", "TYPE", "SIZE", "RAW"}};
    if (with_values) {
      rows[0].push_back("VALUE");
      rows[0].push_back("STATUS");
    }
    for (const Json& instance : object["instances"]) {
      std::string name = instance.contains("pdh_name") ? instance["pdh_name"].get<std::string>()
                                                       : std::string("-");
      for (const Json& counter : instance["counters"]) {
        std::vector<std::string> row = {name,
                                        Label(counter["name"], counter["index"]),
                                        counter["index"].dump(),
                                        Cell(counter["type"]),
                                        counter["size"].dump(),
                                        Cell(counter["raw"])};
        if (with_values) {
          row.push_back(counter["value"].is_number() ? FormatValue(counter["value"].get<double>())
                                                     : "-");
          row.push_back(Cell(counter["status"]));
        }
        rows.push_back(std::move(row));
      }
    }
    std::vector<size_t> widths(rows[0].size());
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

// A snapshot file read and checked; the bytes stay with the reader.
struct LoadedSnapshot {
  std::vector<uint8_t> bytes;
  std::optional<SnapshotReader> reader;
};

Status Load(const std::string& path, LoadedSnapshot& loaded) {
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  loaded.bytes = std::move(bytes).value();
  Result<SnapshotReader> reader = SnapshotReader::Open(loaded.bytes);
  if (!reader.ok()) return Status::Error(path + ": " + reader.error());
  loaded.reader.emplace(*reader);
  return Status();
}

// Rates divide by the time between the samples, so the older one must come first: said once,
// rather than as a negative denominator on every rate.
std::string SamplesOutOfOrder(const std::string& first_path, const SnapshotReader& first,
                              const std::string& next_path, const SnapshotReader& next) {
  std::string message = next_path + " is older than " + first_path + ": its PerfTime " +
                        std::to_string(next.perf_time()) + " is before " +
                        std::to_string(first.perf_time());
  if (first.perf_freq() > 0) {
    char seconds[64];
    std::snprintf(seconds, sizeof seconds, " (%.3f s earlier)",
                  // Unsigned: times at opposite ends of int64_t cannot overflow.
                  static_cast<double>(static_cast<uint64_t>(first.perf_time()) -
                                      static_cast<uint64_t>(next.perf_time())) /
                      static_cast<double>(first.perf_freq()));
    message += seconds;
  }
  return message + "; give the older sample first: perfhive decode " + next_path + " " + first_path;
}

}  // namespace

int RunDecode(const DecodeOptions& options, std::ostream& out, std::ostream& err) {
  auto fail = [&](const std::string& message) {
    err << "perfhive decode: " << message << "\n";
    return 1;
  };
  std::optional<TitleDatabase> titles;
  if (options.titles_path) {
    Result<std::vector<uint8_t>> bytes = ReadFileBytes(*options.titles_path);
    if (!bytes.ok()) return fail(bytes.error());
    Result<TitleDatabase> parsed = LoadTitleDatabase(*bytes);
    if (!parsed.ok()) return fail(*options.titles_path + ": " + parsed.error());
    titles = std::move(parsed).value();
  }
  // With NEXT, what is printed is NEXT, with values computed from SNAPSHOT to NEXT.
  LoadedSnapshot first, second;
  if (Status s = Load(options.snapshot_path, first); !s.ok()) return fail(s.message());
  if (options.next_path) {
    if (Status s = Load(*options.next_path, second); !s.ok()) return fail(s.message());
  }
  const SnapshotReader& shown = options.next_path ? *second.reader : *first.reader;
  const SnapshotReader* previous = options.next_path ? &*first.reader : nullptr;
  const TitleDatabase* names = titles ? &*titles : nullptr;
  std::optional<Selection> selection;
  if (!options.paths.empty()) {
    Result<Selection> selected = Select(shown, names, options.paths);
    if (!selected.ok()) return fail(selected.error());
    selection = std::move(selected).value();
  }
  if (previous != nullptr && shown.perf_time() < previous->perf_time()) {
    return fail(SamplesOutOfOrder(options.snapshot_path, *previous, *options.next_path, shown));
  }
  Json doc = Decode(shown, previous, names, selection ? &*selection : nullptr,
                    {.scale_factor = options.scale_factor});
  if (options.format == DecodeOptions::Format::kJson) {
    out << doc.dump(2) << "\n";
  } else {
    PrintTable(doc, previous != nullptr, out);
  }
  return out.good() ? 0 : 1;
}

}  // namespace perfhive::cli
