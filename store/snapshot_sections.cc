#include "store/snapshot_sections.h"

#include <algorithm>

#include "perfdata/byte_order.h"
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
  std::vector<bool> chosen(sections.size(), false);
  std::vector<uint32_t> parents;  // of chosen sections, whose own sections are still to choose
  auto choose = [&](size_t i) {
    if (chosen[i]) return;
    chosen[i] = true;
    parents.insert(parents.end(), sections[i].parents.begin(), sections[i].parents.end());
  };
  if (!sections.empty()) choose(0);
  for (size_t i = 1; i < sections.size(); ++i) {
    if (std::any_of(sections[i].objects.begin(), sections[i].objects.end(), wanted)) choose(i);
  }
  while (!parents.empty()) {
    const uint32_t parent = parents.back();
    parents.pop_back();
    for (size_t i = 1; i < sections.size(); ++i) {
      const std::vector<uint32_t>& objects = sections[i].objects;
      if (std::find(objects.begin(), objects.end(), parent) != objects.end()) choose(i);
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < sections.size(); ++i) {
    if (chosen[i]) order.push_back(i);
  }
  return order;
}

bool CanRestorePartially(std::span<const SnapshotSection> sections) {
  return sections.size() > 1 && sections[0].objects.empty() && sections[0].size >= db::kSize;
}

std::vector<uint8_t> AssemblePartialSnapshot(std::span<const uint8_t> header,
                                             std::span<const std::span<const uint8_t>> parts,
                                             uint32_t num_objects) {
  std::vector<uint8_t> out(header.begin(), header.end());
  for (std::span<const uint8_t> part : parts) out.insert(out.end(), part.begin(), part.end());
  // Windows' convention (the header counted in TotalByteLength), which perfdata's reader and
  // every producer's reader accept.
  StoreU32(out.data() + db::kTotalByteLength, static_cast<uint32_t>(out.size()));
  StoreU32(out.data() + db::kNumObjectTypes, num_objects);
  return out;
}

}  // namespace perfhive
