#include "store/snapshot_sections.h"

#include <algorithm>

#include "base/byte_order.h"
#include "perfdata/winperf.h"

namespace perfhive {

namespace db = winperf::data_block;

std::vector<SnapshotSection> SplitIntoSections(const SnapshotReader& snapshot, size_t raw_size,
                                               uint32_t target_bytes) {
  const uint32_t size = static_cast<uint32_t>(raw_size);
  const uint32_t header = snapshot.header_length();
  const uint8_t* block = snapshot.bytes().data();
  const uint32_t name_length = LoadU32(block + db::kSystemNameLength);
  if (name_length != 0 && uint64_t{LoadU32(block + db::kSystemNameOffset)} + name_length > header) {
    return {SnapshotSection{0, size, {}, {}}};
  }
  std::vector<SnapshotSection> sections;
  sections.push_back(SnapshotSection{0, header, {}, {}});
  uint32_t end = header;
  bool run_closed = true;  // the next object starts a section
  for (ObjectView object : snapshot.objects()) {
    const uint32_t length = object.total_byte_length();
    std::vector<uint32_t> parents;
    for (InstanceView instance : object.instances()) {
      if (!instance.has_definition()) break;
      uint32_t parent = instance.parent_object_index();
      if (parent != 0 && std::find(parents.begin(), parents.end(), parent) == parents.end()) {
        parents.push_back(parent);
      }
    }
    // An object whose instances name parents is alone, so that its parents come with it only.
    if (run_closed || !parents.empty() || sections.back().size + length > target_bytes) {
      sections.push_back(SnapshotSection{end, 0, {}, std::move(parents)});
    }
    run_closed = !sections.back().parents.empty();
    sections.back().size += length;
    sections.back().objects.push_back(object.name_index());
    end += length;
  }
  if (end < size) sections.push_back(SnapshotSection{end, size - end, {}, {}});
  return sections;
}

std::vector<size_t> SectionsToRestore(std::span<const SnapshotSection> sections,
                                      const std::function<bool(uint32_t)>& wanted) {
  std::vector<size_t> order;  // the sections chosen, in the order they were chosen
  if (sections.empty()) return order;
  auto choose = [&](size_t i) {
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  };
  choose(0);
  for (size_t i = 1; i < sections.size(); ++i) {
    if (std::any_of(sections[i].objects.begin(), sections[i].objects.end(), wanted)) choose(i);
  }
  // Each chosen section's parents, and theirs: `order` grows while it is walked.
  for (size_t k = 0; k < order.size(); ++k) {
    for (uint32_t parent : sections[order[k]].parents) {
      for (size_t i = 1; i < sections.size(); ++i) {
        const std::vector<uint32_t>& objects = sections[i].objects;
        if (std::find(objects.begin(), objects.end(), parent) != objects.end()) choose(i);
      }
    }
  }
  std::sort(order.begin(), order.end());
  return order;
}

bool CanRestorePartially(std::span<const SnapshotSection> sections) {
  return sections.size() > 1 && sections[0].objects.empty() && sections[0].size >= db::kSize;
}

void PatchPartialHeader(std::span<uint8_t> snapshot, uint32_t num_objects) {
  // Windows' convention (the header counted in TotalByteLength), which perfdata's reader and
  // every producer's reader accept.
  StoreU32(snapshot.data() + db::kTotalByteLength, static_cast<uint32_t>(snapshot.size()));
  StoreU32(snapshot.data() + db::kNumObjectTypes, num_objects);
}

}  // namespace perfhive
