// Feeds arbitrary bytes to SnapshotReader::Open and, when it accepts them, walks every view it
// hands out: names, values, text bytes, multi counts; and takes its inventory, which must come
// back the same through its encoding. Any read outside the buffer, crash, hang or undefined
// behaviour is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "perfdata/snapshot_inventory.h"
#include "perfdata/snapshot_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  perfhive::Result<perfhive::SnapshotReader> reader =
      perfhive::SnapshotReader::Open(std::span<const uint8_t>(data, size));
  if (!reader.ok()) return 0;
  uint64_t sum = reader->system_name().size() + reader->system_time().year;
  for (perfhive::ObjectView object : reader->objects()) {
    for (perfhive::InstanceView instance : object.instances()) {
      sum += perfhive::InstanceName(object, instance).size() + instance.parent_instance();
      perfhive::CounterBlockView block = instance.counters();
      for (perfhive::CounterDefinitionView counter : object.counters()) {
        sum += block.Value(counter).value_or(0) + block.Bytes(counter).size();
        sum += block.DwordAt(uint64_t{counter.offset()} + counter.size()).value_or(0);
      }
    }
  }
  const perfhive::SnapshotInventory inventory = perfhive::InventoryOf(*reader);
  perfhive::Result<perfhive::SnapshotInventory> decoded =
      perfhive::DecodeInventory(perfhive::EncodeInventory(inventory));
  if (!decoded.ok() || !(*decoded == inventory)) std::abort();
  return sum == 42 ? 0 : 0;
}
