#include "perfdata/snapshot_values.h"

#include <algorithm>

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

}  // namespace

PairedObject::PairedObject(const SnapshotReader* older, const SnapshotReader& newer,
                           ObjectView object)
    : older_(older),
      newer_(newer),
      object_(object),
      times_(SampleTimes::Of(newer, object)),
      counters_(object.counters().begin(), object.counters().end()),
      instance_count_(static_cast<uint32_t>(object.instances().size())),
      next_instance_(object.instances().begin()),
      older_counter_(counters_.size(), -1) {
  if (older == nullptr) return;
  older_object_ = older->FindObject(object.name_index());
  if (!older_object_) return;
  older_times_ = SampleTimes::Of(*older, *older_object_);
  older_counters_.assign(older_object_->counters().begin(), older_object_->counters().end());
  older_instance_count_ = static_cast<uint32_t>(older_object_->instances().size());
  next_older_instance_ = older_object_->instances().begin();
  for (size_t c = 0; c < counters_.size(); ++c) {
    auto same = [&](const CounterDefinitionView& d) {
      return d.name_index() == counters_[c].name_index() && d.type() == counters_[c].type();
    };
    if (c < older_counters_.size() && same(older_counters_[c])) {
      older_counter_[c] = static_cast<int>(c);
    } else if (auto it = std::find_if(older_counters_.begin(), older_counters_.end(), same);
               it != older_counters_.end()) {
      older_counter_[c] = static_cast<int>(it - older_counters_.begin());
    }
  }
}

const InstanceView& PairedObject::NewerInstance(uint32_t position) {
  while (instances_.size() <= position) instances_.push_back(*next_instance_++);
  return instances_[position];
}

const InstanceView& PairedObject::OlderInstanceAt(uint32_t position) {
  while (older_instances_.size() <= position) older_instances_.push_back(*next_older_instance_++);
  return older_instances_[position];
}

std::optional<InstanceView> PairedObject::OlderInstance(uint32_t position) {
  if (!older_object_) return std::nullopt;
  if (instance_looked_up_.size() <= position) {
    instance_looked_up_.resize(position + 1, 0);
    paired_instances_.resize(position + 1);
  }
  if (instance_looked_up_[position] == 0) {
    std::optional<InstanceView> before;
    if (position < older_instance_count_ &&
        SameIdentity(OlderInstanceAt(position), NewerInstance(position))) {
      before = OlderInstanceAt(position);
    } else {
      if (older_by_name_.empty()) {
        std::vector<InstancePathName> names = NameInstances(*older_, *older_object_);
        for (uint32_t i = 0; i < names.size(); ++i) older_by_name_[names[i].ToString()] = i;
        newer_names_ = NameInstances(newer_, object_);
      }
      auto it = older_by_name_.find(newer_names_[position].ToString());
      if (it != older_by_name_.end()) before = OlderInstanceAt(it->second);
    }
    instance_looked_up_[position] = before ? 2 : 1;
    if (before) paired_instances_[position] = *before;
  }
  if (instance_looked_up_[position] == 1) return std::nullopt;
  return paired_instances_[position];
}

ComputedValue PairedObject::Compute(uint32_t instance, uint32_t counter,
                                    const FormatOptions& format) {
  const CounterDefinitionView* next =
      counter + 1 < counters_.size() ? &counters_[counter + 1] : nullptr;
  // A copy: reading further instances may move the list.
  const InstanceView newer_instance = NewerInstance(instance);
  ComputedValue computed{
      object_,
      instance,
      newer_instance,
      counter,
      counters_[counter],
      ReadRawCounter(times_, counters_[counter], next, newer_instance.counters()),
      {},
      false};
  std::optional<InstanceView> before;
  if (older_counter_[counter] >= 0) before = OlderInstance(instance);
  if (before) {
    size_t o = static_cast<size_t>(older_counter_[counter]);
    const CounterDefinitionView* older_next =
        o + 1 < older_counters_.size() ? &older_counters_[o + 1] : nullptr;
    RawCounter old =
        ReadRawCounter(older_times_, older_counters_[o], older_next, before->counters());
    computed.value = ComputeCounterValue(computed.raw, &old, format);
    computed.paired = true;
  } else {
    computed.value = ComputeCounterValue(computed.raw, nullptr, format);
  }
  return computed;
}

void ComputeSnapshotValues(const SnapshotReader* older, const SnapshotReader& newer,
                           const FormatOptions& format,
                           const std::function<void(const ComputedValue&)>& visit) {
  for (ObjectView object : newer.objects()) {
    PairedObject paired(older, newer, object);
    const uint32_t counters = static_cast<uint32_t>(paired.counters().size());
    for (uint32_t i = 0; i < paired.instance_count(); ++i) {
      for (uint32_t c = 0; c < counters; ++c) visit(paired.Compute(i, c, format));
    }
  }
}

}  // namespace perfhive
