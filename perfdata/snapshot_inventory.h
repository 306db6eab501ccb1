// SnapshotInventory: which objects a snapshot holds and which counters each of them defines, by
// title index, without the instances or the values. It changes when a provider is unloaded or
// disabled, an update adds counters or the title database is rebuilt, and otherwise stays the
// same from snapshot to snapshot, so the store keeps one per host and query each time it changes
// (docs/store_format.md, "Inventories") and the fleet's counter health (query/counter_health.h)
// is answered from those without decoding a snapshot.
//
// Encoded (EncodeInventory), numbers as unsigned LEB128: a version byte 1, the object count, then
// per object in increasing index order: its index less the previous object's (the first: less
// 0), its counter count, and its counter indexes in increasing order, each less the previous one
// (the first: less 0). Indexes are unique within an object, and objects within an inventory.

#ifndef PERFHIVE_PERFDATA_SNAPSHOT_INVENTORY_H_
#define PERFHIVE_PERFDATA_SNAPSHOT_INVENTORY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {

struct ObjectInventory {
  uint32_t index = 0;              // the object's name title index
  std::vector<uint32_t> counters;  // its counters' name title indexes, increasing, each once

  bool operator==(const ObjectInventory&) const = default;
};

struct SnapshotInventory {
  std::vector<ObjectInventory> objects;  // by increasing index, each once

  const ObjectInventory* Find(uint32_t object_index) const;
  bool operator==(const SnapshotInventory&) const = default;
};

// The objects with data (metadata-only objects, NumInstances −2 or −3, carry none) and their
// counters. An object index found twice (a provider that repeats one) is one object defining
// the counters of both.
SnapshotInventory InventoryOf(const SnapshotReader& snapshot);

std::vector<uint8_t> EncodeInventory(const SnapshotInventory& inventory);
// DATA_LOSS naming the field and the byte for anything EncodeInventory does not write.
Result<SnapshotInventory> DecodeInventory(std::span<const uint8_t> bytes);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_SNAPSHOT_INVENTORY_H_
