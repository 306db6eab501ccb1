#include <nlohmann/json.hpp>
#include <ostream>

#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "query/decoded_snapshot_renderers.h"

namespace perfhive::query {
namespace {

using Json = nlohmann::ordered_json;

Json NameOrNull(const std::optional<std::string>& name) { return name ? Json(*name) : Json(); }

Json RawJson(const DecodedRawValue& raw) {
  if (const uint64_t* number = std::get_if<uint64_t>(&raw)) return *number;
  if (const std::string* text = std::get_if<std::string>(&raw)) return *text;
  return nullptr;
}

Json CounterJson(const DecodedCounterDefinition& definition, const DecodedCounter& counter) {
  Json c = {{"index", definition.index},   {"name", NameOrNull(definition.name)},
            {"type", definition.type},     {"size", definition.size},
            {"raw", RawJson(counter.raw)}, {"path", counter.path}};
  if (counter.value) {
    c["value"] = IsSuccess(counter.value->status) ? Json(counter.value->value) : Json(nullptr);
    c["status"] = std::string(PdhStatusName(counter.value->status));
  }
  return c;
}

Json InstanceJson(const DecodedObject& object, const DecodedInstance& instance) {
  Json i;
  if (instance.has_definition) {
    i["name"] = instance.name;
    i["parent"] = instance.parent.empty() ? Json(nullptr) : Json(instance.parent);
    i["pdh_name"] = instance.pdh_name;
    i["parent_object"] = instance.parent_object;
    i["parent_instance"] = instance.parent_instance;
  } else {
    i["name"] = nullptr;
    i["parent"] = nullptr;
  }
  i["unique_id"] = instance.unique_id;
  Json& counters = i["counters"] = Json::array();
  for (const DecodedCounter& counter : instance.counters) {
    counters.push_back(CounterJson(object.counters[counter.definition], counter));
  }
  return i;
}

Json ObjectJson(const DecodedObject& object) {
  Json o;
  o["index"] = object.index;
  o["name"] = NameOrNull(object.name);
  o["num_instances"] = object.num_instances;
  o["detail_level"] = object.detail_level;
  o["default_counter"] = object.default_counter;
  o["code_page"] = object.code_page;
  o["perf_time"] = object.perf_time;
  o["perf_freq"] = object.perf_freq;
  Json& definitions = o["counters"] = Json::array();
  for (const DecodedCounterDefinition& counter : object.counters) {
    definitions.push_back({{"index", counter.index},
                           {"name", NameOrNull(counter.name)},
                           {"type", counter.type},
                           {"size", counter.size},
                           {"offset", counter.offset},
                           {"default_scale", counter.default_scale},
                           {"detail_level", counter.detail_level}});
  }
  Json& instances = o["instances"] = Json::array();
  for (const DecodedInstance& instance : object.instances) {
    instances.push_back(InstanceJson(object, instance));
  }
  return o;
}

}  // namespace

void RenderDecodedJson(const DecodedSnapshot& snapshot, std::ostream& out) {
  Json doc;
  doc["system"] = snapshot.system;
  doc["system_time"] = FormatSystemTime(snapshot.system_time);
  doc["perf_time"] = snapshot.perf_time;
  doc["perf_freq"] = snapshot.perf_freq;
  doc["perf_time_100ns"] = snapshot.perf_time_100ns;
  doc["version"] = snapshot.version;
  doc["revision"] = snapshot.revision;
  Json& objects = doc["objects"] = Json::array();
  for (const DecodedObject& object : snapshot.objects) objects.push_back(ObjectJson(object));
  // Names are the host's and its title database's: a byte that is not UTF-8 reads as U+FFFD
  // rather than making dump() throw.
  out << doc.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace) << "\n";
}

}  // namespace perfhive::query
