// SnapshotSections: how the store cuts a raw snapshot into runs of bytes that it compresses apart,
// so that a query restores only the objects it asks for (docs/store_format.md, "Sections"). A
// real Global snapshot is hundreds of kilobytes, mostly Process and Thread; a read of
// \Processor(*)\% Processor Time needs a few kilobytes of it.
//
// The sections tile the snapshot in order: the PERF_DATA_BLOCK header first, then runs of whole
// objects (small neighbours together, up to a target size; a large object alone, and so is one
// whose instances name parents), then any bytes after the last object. A snapshot whose system name
// lies outside its header is one section: it cannot be cut without losing the name.

#ifndef PERFHIVE_STORE_SNAPSHOT_SECTIONS_H_
#define PERFHIVE_STORE_SNAPSHOT_SECTIONS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/status.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {

struct SnapshotSection {
  uint32_t offset = 0;
  uint32_t size = 0;
  std::vector<uint32_t> objects;  // title indexes of its objects, in order (none: not objects)
  // Title indexes its object's instances name as their parents (Thread names Process):
  // restoring the section without them would change the instances' names. A section with
  // parents holds one object.
  std::vector<uint32_t> parents;

  bool operator==(const SnapshotSection&) const = default;
};

// Objects are gathered into one section while it stays within this many bytes.
inline constexpr uint32_t kSectionTargetBytes = 4096;

// The sections of a snapshot the reader has checked, `raw_size` bytes long.
std::vector<SnapshotSection> SplitIntoSections(const SnapshotReader& snapshot, size_t raw_size,
                                               uint32_t target_bytes = kSectionTargetBytes);

// Which sections a read restores, in order: the header, every section holding an object
// `wanted` says yes to (by title index), and the sections of those objects' parents (and
// theirs).
std::vector<size_t> SectionsToRestore(std::span<const SnapshotSection> sections,
                                      const std::function<bool(uint32_t)>& wanted);

// Makes the header at the start of `snapshot` (the header section followed by whole object
// sections, `num_objects` objects in all) count only those: TotalByteLength and NumObjectTypes.
void PatchPartialHeader(std::span<uint8_t> snapshot, uint32_t num_objects);

// Whether partial snapshots can be made of these sections (a header section before objects).
bool CanRestorePartially(std::span<const SnapshotSection> sections);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_SNAPSHOT_SECTIONS_H_
