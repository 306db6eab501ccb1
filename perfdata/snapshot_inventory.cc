#include "perfdata/snapshot_inventory.h"

#include <algorithm>

#include "base/varint.h"

namespace perfhive {
namespace {

constexpr uint8_t kInventoryVersion = 1;

void SortUnique(std::vector<uint32_t>& indexes) {
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
}

}  // namespace

const ObjectInventory* SnapshotInventory::Find(uint32_t object_index) const {
  auto at = std::lower_bound(
      objects.begin(), objects.end(), object_index,
      [](const ObjectInventory& object, uint32_t index) { return object.index < index; });
  return at != objects.end() && at->index == object_index ? &*at : nullptr;
}

SnapshotInventory InventoryOf(const SnapshotReader& snapshot) {
  // The store takes one of every snapshot it appends: vectors sorted once, not a map.
  SnapshotInventory inventory;
  inventory.objects.reserve(snapshot.num_objects());
  for (const ObjectView& object : snapshot.objects()) {
    if (!object.has_data()) continue;
    ObjectInventory& entry = inventory.objects.emplace_back();
    entry.index = object.name_index();
    entry.counters.reserve(object.num_counters());
    for (const CounterDefinitionView& counter : object.counters()) {
      entry.counters.push_back(counter.name_index());
    }
  }
  std::vector<ObjectInventory>& objects = inventory.objects;
  std::stable_sort(
      objects.begin(), objects.end(),
      [](const ObjectInventory& a, const ObjectInventory& b) { return a.index < b.index; });
  // An index twice: one object with the counters of both.
  size_t kept = 0;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (kept > 0 && objects[kept - 1].index == objects[i].index) {
      objects[kept - 1].counters.insert(objects[kept - 1].counters.end(),
                                        objects[i].counters.begin(), objects[i].counters.end());
    } else if (kept != i) {
      objects[kept++] = std::move(objects[i]);
    } else {
      ++kept;
    }
  }
  objects.resize(kept);
  for (ObjectInventory& object : objects) SortUnique(object.counters);
  return inventory;
}

std::vector<uint8_t> EncodeInventory(const SnapshotInventory& inventory) {
  std::vector<uint8_t> out;
  out.push_back(kInventoryVersion);
  PutVarint64(out, inventory.objects.size());
  uint32_t previous_object = 0;
  for (const ObjectInventory& object : inventory.objects) {
    PutVarint64(out, object.index - previous_object);
    previous_object = object.index;
    PutVarint64(out, object.counters.size());
    uint32_t previous_counter = 0;
    for (uint32_t counter : object.counters) {
      PutVarint64(out, counter - previous_counter);
      previous_counter = counter;
    }
  }
  return out;
}

Result<SnapshotInventory> DecodeInventory(std::span<const uint8_t> bytes) {
  ByteReader in(bytes, "inventory");
  if (uint8_t version = in.Byte("version"); in.ok() && version != kInventoryVersion) {
    in.Fail("version is " + std::to_string(version) + ", not " + std::to_string(kInventoryVersion));
  }
  // Every object and counter takes at least one byte: counts beyond the bytes left are refused
  // before anything is allocated for them.
  const uint64_t objects = in.Bounded(in.left(), "object count");
  SnapshotInventory inventory;
  inventory.objects.reserve(objects);
  uint64_t object_index = 0;
  for (uint64_t i = 0; i < objects && in.ok(); ++i) {
    const uint64_t step = in.Varint64("object index");
    if (i > 0 && step == 0) in.Fail("object index repeats the previous one");
    object_index += step;
    if (object_index > UINT32_MAX) in.Fail("object index exceeds 32 bits");
    const uint64_t counters = in.Bounded(in.left(), "counter count");
    ObjectInventory object{static_cast<uint32_t>(object_index), {}};
    object.counters.reserve(counters);
    uint64_t counter_index = 0;
    for (uint64_t c = 0; c < counters && in.ok(); ++c) {
      const uint64_t counter_step = in.Varint64("counter index");
      if (c > 0 && counter_step == 0) in.Fail("counter index repeats the previous one");
      counter_index += counter_step;
      if (counter_index > UINT32_MAX) in.Fail("counter index exceeds 32 bits");
      object.counters.push_back(static_cast<uint32_t>(counter_index));
    }
    inventory.objects.push_back(std::move(object));
  }
  if (in.ok() && in.left() != 0) in.Fail(std::to_string(in.left()) + " bytes after the objects");
  if (!in.ok()) return in.status();
  return inventory;
}

}  // namespace perfhive
