#include "perfdata/raw_counter.h"

#include "perfdata/winperf.h"

namespace perfhive {

namespace wp = winperf;

bool NeedsBase(uint32_t type) {
  switch (type) {
    case wp::kSampleFraction:
    case wp::kRawFraction:
    case wp::kLargeRawFraction:
    case wp::kAverageTimer:
    case wp::kAverageBulk:
    case wp::kPrecisionSystemTimer:
    case wp::kPrecision100NsTimer:
    case wp::kPrecisionObjectTimer:
      return true;
    default:
      return false;
  }
}

namespace {

// Types equal but for the size flag, which real providers set as they like on bases.
bool SameButSize(uint32_t type, uint32_t base) {
  return (type & ~wp::kSizeMask) == (base & ~wp::kSizeMask);
}

}  // namespace

bool IsBaseType(uint32_t type) {
  return SameButSize(type, wp::kSampleBase) || SameButSize(type, wp::kAverageBase) ||
         SameButSize(type, wp::kRawBase) || SameButSize(type, wp::kLargeRawBase) ||
         SameButSize(type, wp::kCounterMultiBase);
}

RawCounter ReadRawCounter(const SampleTimes& times, const CounterDefinitionView& definition,
                          const CounterDefinitionView* next, const CounterBlockView& block) {
  RawCounter raw;
  raw.type = definition.type();
  raw.size = definition.size();
  raw.times = times;
  if (std::optional<uint64_t> value = block.Value(definition)) {
    raw.has_value = true;
    raw.value = *value;
  }
  // Any base type serves: producers are not consistent about which base follows which counter,
  // and PDH, too, takes whatever definition comes next.
  const bool next_is_base = next != nullptr && IsBaseType(next->type());
  if (NeedsBase(raw.type) && next_is_base) {
    if (std::optional<uint64_t> base = block.Value(*next)) {
      raw.has_base = true;
      raw.base = *base;
      raw.base_size = next->size();
    }
  }
  if (raw.type & wp::kMultiCounter) {
    if (next_is_base && SameButSize(next->type(), wp::kCounterMultiBase)) {
      if (std::optional<uint64_t> count = block.Value(*next)) {
        raw.has_multi_count = true;
        raw.multi_count = *count;
      }
    } else if (std::optional<uint32_t> count =
                   block.DwordAt(uint64_t{definition.offset()} + definition.size())) {
      raw.has_multi_count = true;
      raw.multi_count = *count;
    }
  }
  return raw;
}

RawCounter ReadRawCounter(const SnapshotReader& snapshot, const ObjectView& object,
                          CounterDefinitionRange::iterator definition,
                          const InstanceView& instance) {
  CounterDefinitionRange::iterator after = definition;
  ++after;
  CounterDefinitionView next;
  const bool has_next = after != object.counters().end();
  if (has_next) next = *after;
  return ReadRawCounter(SampleTimes::Of(snapshot, object), *definition, has_next ? &next : nullptr,
                        instance.counters());
}

}  // namespace perfhive
