#include "perfdata/invalid_counters.h"

#include <algorithm>
#include <tuple>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_values.h"

namespace perfhive {
namespace {

// What one counter definition of one object gave over its instances.
struct DefinitionSeen {
  uint32_t object_index = 0;
  uint32_t counter_index = 0;
  bool any = false;    // it had a value
  bool valid = false;  // one of them valid
  PdhStatus first_status = PdhStatus::kValidData;
};

}  // namespace

std::vector<InvalidCounter> FindInvalidCounters(const SnapshotReader& older,
                                                const SnapshotReader& newer) {
  // Counter by counter, each over its instances until one gives a valid value: in a healthy
  // snapshot that is the first, so a pair costs about one value a definition, not one a value.
  // Types read from one sample without a base always give a valid value: not computed.
  std::vector<DefinitionSeen> seen;
  bool any_invalid = false;
  for (ObjectView object : newer.objects()) {
    PairedObject paired(&older, newer, object);
    for (uint32_t c = 0; c < paired.counters().size(); ++c) {
      const CounterDefinitionView& counter = paired.counters()[c];
      if (!NeedsTwoSamples(counter.type()) && !NeedsBase(counter.type())) continue;
      DefinitionSeen definition{object.name_index(), counter.name_index()};
      for (uint32_t i = 0; i < paired.instance_count() && !definition.valid; ++i) {
        const ComputedValue computed = paired.Compute(i, c, FormatOptions{});
        const PdhStatus status = computed.value.status;
        if (status == PdhStatus::kNoData) break;  // a type without a number
        if (!computed.paired && NeedsTwoSamples(counter.type())) continue;
        if (!definition.any) definition.first_status = status;
        definition.any = true;
        definition.valid = IsSuccess(status);
      }
      if (!definition.any) continue;
      any_invalid = any_invalid || !definition.valid;
      seen.push_back(definition);
    }
  }
  if (!any_invalid) return {};
  // A counter index defined twice in an object, or an object index repeated: one counter, valid
  // when any of its definitions is.
  std::stable_sort(seen.begin(), seen.end(), [](const DefinitionSeen& a, const DefinitionSeen& b) {
    return std::tie(a.object_index, a.counter_index) < std::tie(b.object_index, b.counter_index);
  });
  std::vector<InvalidCounter> invalid;
  for (size_t i = 0; i < seen.size();) {
    size_t end = i;
    bool valid = false;
    for (; end < seen.size() && seen[end].object_index == seen[i].object_index &&
           seen[end].counter_index == seen[i].counter_index;
         ++end) {
      valid = valid || seen[end].valid;
    }
    if (!valid) {
      invalid.push_back({seen[i].object_index, seen[i].counter_index, seen[i].first_status});
    }
    i = end;
  }
  return invalid;
}

}  // namespace perfhive
