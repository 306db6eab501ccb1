#include "query/decoded_snapshot.h"

#include <map>
#include <set>
#include <span>
#include <tuple>

#include "perfdata/counter_type.h"
#include "perfdata/instance_names.h"
#include "perfdata/path_expander.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/text_encoding.h"
#include "perfdata/winperf.h"

namespace perfhive::query {
namespace {

constexpr uint32_t kTextAscii = 0x00010000;  // PERF_TEXT_ASCII, else PERF_TEXT_UNICODE

// A counter of the snapshot: (object, instance, counter) positions, each from 0.
using CounterKey = std::tuple<uint32_t, uint32_t, uint32_t>;

std::optional<std::string> NameOf(const TitleDatabase* titles, uint32_t index) {
  std::optional<std::string_view> name = titles ? titles->Name(index) : std::nullopt;
  if (!name) return std::nullopt;
  return std::string(*name);
}

DecodedRawValue RawValue(const CounterBlockView& block, const CounterDefinitionView& counter) {
  if ((counter.type() & winperf::kTypeMask) == winperf::kTypeText) {
    std::span<const uint8_t> bytes = block.Bytes(counter);
    return (counter.type() & kTextAscii) ? CodePageToUtf8(bytes, 1252) : Utf16LeToUtf8(bytes);
  }
  if (std::optional<uint64_t> value = block.Value(counter)) return *value;
  return std::monostate();
}

// What the paths select; nullopt when there are none, meaning everything.
std::optional<std::set<CounterKey>> Select(const SnapshotReader& snapshot,
                                           const DecodeRequest& request) {
  if (request.paths.empty()) return std::nullopt;
  TitleDatabase empty;
  PathExpander expander(snapshot, request.titles ? *request.titles : empty);
  std::set<CounterKey> selection;
  for (const CounterPath& path : request.paths) {
    for (const CounterMatch& match : expander.Expand(path)) {
      selection.insert({match.object_position, match.instance_position, match.counter_position});
    }
  }
  return selection;
}

// Decodes objects, instances and counters in snapshot order, keeping what is selected.
class Decoder {
 public:
  Decoder(const SnapshotReader& snapshot, const DecodeRequest& request)
      : snapshot_(snapshot),
        request_(request),
        selection_(Select(snapshot, request)),
        values_(Values(snapshot, request)) {}

  DecodedSnapshot Run() {
    DecodedSnapshot decoded;
    decoded.system = snapshot_.system_name();
    decoded.system_time = snapshot_.system_time();
    decoded.perf_time = snapshot_.perf_time();
    decoded.perf_freq = snapshot_.perf_freq();
    decoded.perf_time_100ns = snapshot_.perf_time_100ns();
    decoded.version = snapshot_.version();
    decoded.revision = snapshot_.revision();
    decoded.has_values = request_.previous != nullptr;
    uint32_t position = 0;
    for (ObjectView object : snapshot_.objects()) {
      DecodedObject decoded_object = Object(object, position++, decoded.system);
      // Unselected, an object is shown even without instances (metadata only).
      if (!selection_ || !decoded_object.instances.empty()) {
        decoded.objects.push_back(std::move(decoded_object));
      }
    }
    return decoded;
  }

 private:
  DecodedObject Object(ObjectView object, uint32_t object_position, const std::string& machine) {
    DecodedObject o;
    o.index = object.name_index();
    o.name = NameOf(request_.titles, o.index);
    o.num_instances = object.num_instances();
    o.detail_level = object.detail_level();
    o.default_counter = object.default_counter();
    o.code_page = object.code_page();
    o.perf_time = object.perf_time();
    o.perf_freq = object.perf_freq();
    for (CounterDefinitionView counter : object.counters()) {
      o.counters.push_back({.index = counter.name_index(),
                            .name = NameOf(request_.titles, counter.name_index()),
                            .type = CounterTypeName(counter.type()),
                            .size = counter.size(),
                            .offset = counter.offset(),
                            .default_scale = counter.default_scale(),
                            .detail_level = counter.detail_level()});
    }
    std::vector<InstancePathName> names = NameInstances(snapshot_, object);
    uint32_t instance_position = 0;
    for (InstanceView instance : object.instances()) {
      const InstancePathName& name = names[instance_position];
      DecodedInstance i;
      i.has_definition = instance.has_definition();
      if (i.has_definition) {
        i.name = InstanceName(object, instance);
        i.parent = name.parent;
        i.pdh_name = name.ToString();
        i.parent_object = instance.parent_object_index();
        i.parent_instance = instance.parent_instance();
      }
      i.unique_id = instance.unique_id();
      uint32_t counter_position = 0;
      for (CounterDefinitionView counter : object.counters()) {
        CounterKey key{object_position, instance_position, counter_position};
        if (!selection_ || selection_->contains(key)) {
          const DecodedCounterDefinition& definition = o.counters[counter_position];
          DecodedCounter& c = i.counters.emplace_back();
          c.definition = counter_position;
          c.raw = RawValue(instance.counters(), counter);
          c.path = Path(machine, definition, o, i.has_definition ? &name : nullptr);
          auto value = values_.find({object.position(), instance_position, counter_position});
          if (value != values_.end()) c.value = value->second;
        }
        ++counter_position;
      }
      if (!selection_ || !i.counters.empty()) o.instances.push_back(std::move(i));
      ++instance_position;
    }
    return o;
  }

  // The full path of a counter, names from the title database (indexes where it has none).
  static std::string Path(const std::string& machine, const DecodedCounterDefinition& counter,
                          const DecodedObject& object, const InstancePathName* instance) {
    auto shown = [](const std::optional<std::string>& name, uint32_t index) {
      return name ? *name : std::to_string(index);
    };
    return FormatCounterPath(MakeCounterPath(machine, shown(object.name, object.index), instance,
                                             shown(counter.name, counter.index)));
  }

  // Every counter's value against the previous sample, by (object byte offset, instance
  // position, counter position).
  static std::map<CounterKey, CounterValue> Values(const SnapshotReader& snapshot,
                                                   const DecodeRequest& request) {
    std::map<CounterKey, CounterValue> values;
    if (request.previous == nullptr) return values;
    ComputeSnapshotValues(request.previous, snapshot, request.format, [&](const ComputedValue& v) {
      values.emplace(CounterKey{v.object.position(), v.instance_position, v.counter_position},
                     v.value);
    });
    return values;
  }

  const SnapshotReader& snapshot_;
  const DecodeRequest& request_;
  const std::optional<std::set<CounterKey>> selection_;  // by object position
  const std::map<CounterKey, CounterValue> values_;      // by object byte offset
};

}  // namespace

DecodedSnapshot DecodeSnapshot(const SnapshotReader& snapshot, const DecodeRequest& request) {
  return Decoder(snapshot, request).Run();
}

}  // namespace perfhive::query
