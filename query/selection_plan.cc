#include "query/selection_plan.h"

#include <algorithm>
#include <cstring>

#include "query/instance_identity.h"

namespace perfhive::query {
namespace {

// The object header up to its times: lengths, title indexes, counts and code page.
constexpr uint32_t kHeaderBeforeTimes = winperf::object_type::kPerfTime;

bool SameBytes(const SnapshotReader& a, const SnapshotReader& b, uint32_t offset, uint32_t size) {
  return std::memcmp(a.bytes().data() + offset, b.bytes().data() + offset, size) == 0;
}

bool SameValue(const CounterBlockView& a, const CounterBlockView& b,
               const std::optional<CounterDefinitionView>& counter) {
  return !counter || a.Value(*counter) == b.Value(*counter);
}

}  // namespace

void SelectionPlan::Begin(const SnapshotReader& snapshot, const TitleDatabase* english,
                          const TitleDatabase* localized) {
  usable_ = false;
  made_on_ = snapshot;
  english_ = english;
  localized_ = localized;
  objects_.clear();
  used_objects_.clear();
  entries_.clear();
}

void SelectionPlan::Add(size_t series, const CounterMatch& match) {
  Entry entry;
  entry.series = series;
  entry.object = match.object.position();
  entry.counter = match.counter.position();
  if (match.next) entry.next = match.next->position();
  if (match.instance.has_definition()) entry.instance_definition = match.instance.position();
  entry.block = match.instance.counters().position();
  entries_.push_back(entry);
  Watch(match.object);
}

void SelectionPlan::Watch(const ObjectView& object) {
  if (std::find(used_objects_.begin(), used_objects_.end(), object.position()) ==
      used_objects_.end()) {
    used_objects_.push_back(object.position());
  }
}

void SelectionPlan::Seal() {
  objects_ = KeysOf(*made_on_);
  for (uint32_t offset : used_objects_) {
    for (InstanceView instance : ObjectView(made_on_->bytes().data(), offset).instances()) {
      if (instance.has_definition() && instance.parent_object_index() != 0) return;
    }
  }
  usable_ = true;
}

bool SelectionPlan::Fits(const SnapshotReader& snapshot, const TitleDatabase* english,
                         const TitleDatabase* localized) const {
  if (!usable_ || english != english_ || localized != localized_ ||
      snapshot.bytes().size() != made_on_->bytes().size() || KeysOf(snapshot) != objects_) {
    return false;
  }
  return std::all_of(used_objects_.begin(), used_objects_.end(),
                     [&](uint32_t offset) { return SameObject(*made_on_, snapshot, offset); });
}

std::vector<SelectionPlan::ObjectKey> SelectionPlan::KeysOf(const SnapshotReader& snapshot) {
  std::vector<ObjectKey> keys;
  keys.reserve(snapshot.num_objects());
  for (ObjectView object : snapshot.objects()) {
    keys.push_back({object.name_index(), object.has_data(), object.has_instance_list()});
  }
  return keys;
}

bool SelectionPlan::SameObject(const SnapshotReader& made_on, const SnapshotReader& snapshot,
                               uint32_t offset) {
  // The object must start at `offset` in the snapshot too, whole (the reader checked it).
  bool starts_there = false;
  for (ObjectView object : snapshot.objects()) starts_there |= object.position() == offset;
  if (!starts_there || !SameBytes(made_on, snapshot, offset, kHeaderBeforeTimes)) return false;
  ObjectView before(made_on.bytes().data(), offset), now(snapshot.bytes().data(), offset);
  // Equal headers: the same lengths, so the definitions lie at the same offsets.
  if (!SameBytes(made_on, snapshot, offset + now.header_length(),
                 now.definition_length() - now.header_length())) {
    return false;
  }
  const IdentityCounters identity = IdentityCountersOf(now);
  auto old_instance = before.instances().begin();
  for (InstanceView instance : now.instances()) {
    InstanceView old = *old_instance++;
    // Equal definitions (names, parents, unique ids) and block lengths keep the next instance
    // at the same offset; equal identity values keep each instance the same series.
    if (instance.has_definition() &&
        (instance.position() != old.position() ||
         !SameBytes(made_on, snapshot, instance.position(), instance.byte_length()))) {
      return false;
    }
    CounterBlockView block = instance.counters(), old_block = old.counters();
    if (block.position() != old_block.position() ||
        block.byte_length() != old_block.byte_length() ||
        !SameValue(block, old_block, identity.pid) || !SameValue(block, old_block, identity.tid) ||
        !SameValue(block, old_block, identity.start)) {
      return false;
    }
  }
  return true;
}

ObjectView SelectionPlan::ObjectOf(const SnapshotReader& snapshot, const Entry& entry) {
  return ObjectView(snapshot.bytes().data(), entry.object);
}

CounterDefinitionView SelectionPlan::CounterOf(const SnapshotReader& snapshot, const Entry& entry) {
  return CounterDefinitionView(snapshot.bytes().data(), entry.counter);
}

std::optional<CounterDefinitionView> SelectionPlan::NextOf(const SnapshotReader& snapshot,
                                                           const Entry& entry) {
  if (!entry.next) return std::nullopt;
  return CounterDefinitionView(snapshot.bytes().data(), *entry.next);
}

InstanceView SelectionPlan::InstanceOf(const SnapshotReader& snapshot, const Entry& entry) {
  return InstanceView(snapshot.bytes().data(), entry.instance_definition, entry.block);
}

}  // namespace perfhive::query
