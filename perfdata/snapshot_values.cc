#include "perfdata/snapshot_values.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "perfdata/instance_names.h"

namespace perfhive {
namespace {

bool SameIdentity(const InstanceView& a, const InstanceView& b) {
  if (a.has_definition() != b.has_definition()) return false;
  if (!a.has_definition()) return true;
  std::span<const uint8_t> x = a.raw_name(), y = b.raw_name();
  return a.unique_id() == b.unique_id() && a.parent_object_index() == b.parent_object_index() &&
         a.parent_instance() == b.parent_instance() &&
         std::equal(x.begin(), x.end(), y.begin(), y.end());
}

// The older object's side of the pairing.
struct OlderObject {
  ObjectView object;
  std::vector<CounterDefinitionView> counters;
  std::vector<InstanceView> instances;
  std::unordered_map<std::string, uint32_t> by_name;  // built only when positions disagree
};

}  // namespace

void ComputeSnapshotValues(const SnapshotReader* older, const SnapshotReader& newer,
                           const FormatOptions& format,
                           const std::function<void(const ComputedValue&)>& visit) {
  std::vector<CounterDefinitionView> counters;
  std::vector<int> older_counter;  // newer definition position → older position, or −1
  for (ObjectView object : newer.objects()) {
    SampleTimes times = SampleTimes::Of(newer, object);
    counters.assign(object.counters().begin(), object.counters().end());
    std::optional<OlderObject> previous;
    if (older != nullptr) {
      if (std::optional<ObjectView> o = older->FindObject(object.name_index())) {
        previous.emplace();
        previous->object = *o;
        previous->counters.assign(o->counters().begin(), o->counters().end());
        previous->instances.assign(o->instances().begin(), o->instances().end());
      }
    }
    older_counter.assign(counters.size(), -1);
    if (previous) {
      for (size_t c = 0; c < counters.size(); ++c) {
        auto same = [&](const CounterDefinitionView& d) {
          return d.name_index() == counters[c].name_index() && d.type() == counters[c].type();
        };
        if (c < previous->counters.size() && same(previous->counters[c])) {
          older_counter[c] = static_cast<int>(c);
        } else if (auto it =
                       std::find_if(previous->counters.begin(), previous->counters.end(), same);
                   it != previous->counters.end()) {
          older_counter[c] = static_cast<int>(it - previous->counters.begin());
        }
      }
    }
    std::vector<InstancePathName> newer_names;  // computed only if positions disagree
    SampleTimes older_times = previous ? SampleTimes::Of(*older, previous->object) : SampleTimes{};
    uint32_t position = 0;
    for (InstanceView instance : object.instances()) {
      std::optional<InstanceView> before;
      if (previous) {
        if (position < previous->instances.size() &&
            SameIdentity(previous->instances[position], instance)) {
          before = previous->instances[position];
        } else {
          if (previous->by_name.empty()) {
            std::vector<InstancePathName> names = NameInstances(*older, previous->object);
            for (uint32_t i = 0; i < names.size(); ++i) previous->by_name[names[i].ToString()] = i;
            newer_names = NameInstances(newer, object);
          }
          auto it = previous->by_name.find(newer_names[position].ToString());
          if (it != previous->by_name.end()) before = previous->instances[it->second];
        }
      }
      CounterBlockView block = instance.counters();
      for (size_t c = 0; c < counters.size(); ++c) {
        const CounterDefinitionView* next = c + 1 < counters.size() ? &counters[c + 1] : nullptr;
        ComputedValue computed{object,      position,
                               instance,    static_cast<uint32_t>(c),
                               counters[c], ReadRawCounter(times, counters[c], next, block),
                               {}};
        if (before && older_counter[c] >= 0) {
          size_t o = static_cast<size_t>(older_counter[c]);
          const CounterDefinitionView* older_next =
              o + 1 < previous->counters.size() ? &previous->counters[o + 1] : nullptr;
          RawCounter old =
              ReadRawCounter(older_times, previous->counters[o], older_next, before->counters());
          computed.value = ComputeCounterValue(computed.raw, &old, format);
        } else {
          computed.value = ComputeCounterValue(computed.raw, nullptr, format);
        }
        visit(computed);
      }
      ++position;
    }
  }
}

}  // namespace perfhive
