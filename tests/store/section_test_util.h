// Helpers for the tests and fuzzer of the store's snapshot sections and sectioned frames.

#ifndef PERFHIVE_TESTS_STORE_SECTION_TEST_UTIL_H_
#define PERFHIVE_TESTS_STORE_SECTION_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "codec/snapshot_delta.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/text_encoding.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "store/group_decoder.h"
#include "store/sectioned_frame.h"
#include "store/snapshot_sections.h"

namespace perfhive {

// How gtest prints a section (found by argument-dependent lookup).
inline void PrintTo(const SnapshotSection& section, std::ostream* os) {
  *os << "{offset " << section.offset << ", size " << section.size << ", objects "
      << ::testing::PrintToString(section.objects) << ", parents "
      << ::testing::PrintToString(section.parents) << "}";
}

namespace testing {

// What a HostSnapshot holds beyond System, Memory, Processor, Process, Thread, PhysicalDisk and
// LogicalDisk, in that order.
struct HostShape {
  int processes = 60;    // 60 make Process and Thread larger than a section
  bool system = true;    // false: no System object (Memory comes first)
  bool network = false;  // a Network Interface object between Thread and the disks
  size_t tail = 0;       // bytes after the last object
};

// A host's snapshot at sample `t`. With the default shape its sections are: 0 header,
// 1 System+Memory+Processor, 2 Process, 3 Thread (parent Process), 4 PhysicalDisk, 5 LogicalDisk
// (parent PhysicalDisk; its values do not depend on `t`).
inline std::vector<uint8_t> HostSnapshot(uint64_t t, HostShape shape = {}) {
  namespace ti = title_index;
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time(
      {2025, 3, 6, 1, 10, 0, static_cast<uint16_t>(t % 60), 0});
  if (shape.system) {
    ObjectBuilder& system = builder.AddObject(ti::kSystem);
    system.AddCounter({.name_index = ti::kSystemUpTime, .type = winperf::kCounterLargeRawcount});
    system.set_no_instances();
    system.SetValue(0, 0, 1000 + t);
  }
  ObjectBuilder& memory = builder.AddObject(ti::kMemory);
  memory.AddCounter({.name_index = ti::kAvailableBytes, .type = winperf::kCounterLargeRawcount});
  memory.set_no_instances();
  memory.SetValue(0, 0, (1ull << 30) - 4096 * t);
  ObjectBuilder& cpu = builder.AddObject(ti::kProcessor);
  cpu.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
  for (const char* name : {"0", "1", "_Total"}) cpu.SetValue(cpu.AddInstance(name), 0, 7 * t);
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  process.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimer});
  process.AddCounter({.name_index = ti::kIdProcess, .type = winperf::kCounterLargeRawcount});
  process.AddCounter({.name_index = ti::kWorkingSet, .type = winperf::kCounterLargeRawcount});
  for (int p = 0; p < shape.processes; ++p) {
    uint32_t i = process.AddInstance("proc" + std::to_string(p), p);
    process.SetValue(i, 0, t * (p + 1) * 977);
    process.SetValue(i, 1, 100 + p);
    process.SetValue(i, 2, 4096ull * (p + 1 + t));
  }
  ObjectBuilder& thread = builder.AddObject(ti::kThread);
  thread.AddCounter({.name_index = ti::kIdThread, .type = winperf::kCounterRawcount});
  thread.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimer});
  for (int p = 0; p < shape.processes; ++p) {
    for (int k = 0; k < 2; ++k) {
      uint32_t i = thread.AddInstance(std::to_string(k), winperf::kNoUniqueId, ti::kProcess, p);
      thread.SetValue(i, 0, 1000 + 2 * p + k);
      thread.SetValue(i, 1, t * (2 * p + k));
    }
  }
  if (shape.network) {
    ObjectBuilder& nic = builder.AddObject(ti::kNetworkInterface);
    nic.AddCounter({.name_index = ti::kBytesTotalPerSec, .type = winperf::kCounterLargeRawcount});
    nic.SetValue(nic.AddInstance("eth0"), 0, 1500 * t);
  }
  ObjectBuilder& physical = builder.AddObject(ti::kPhysicalDisk);
  physical.AddCounter({.name_index = ti::kDiskReadsPerSec, .type = winperf::kCounterRawcount});
  physical.SetValue(physical.AddInstance("0 C:"), 0, t);
  ObjectBuilder& logical = builder.AddObject(ti::kLogicalDisk);
  logical.AddCounter({.name_index = ti::kFreeMegabytes, .type = winperf::kCounterRawcount});
  logical.SetValue(logical.AddInstance("C:", winperf::kNoUniqueId, ti::kPhysicalDisk, 0), 0, 9);
  std::vector<uint8_t> raw = builder.Build();
  for (size_t i = 0; i < shape.tail; ++i) raw.push_back(static_cast<uint8_t>(t + i));
  return raw;
}

// `raw` with its system name moved after the last object: a snapshot that is one section.
inline std::vector<uint8_t> NameOutsideHeader(std::vector<uint8_t> raw) {
  const uint32_t name_at = static_cast<uint32_t>(raw.size());
  std::vector<uint8_t> name = Utf8ToUtf16Le("FARAWAY");
  name.insert(name.end(), {0, 0});
  raw.insert(raw.end(), name.begin(), name.end());
  StoreU32(raw.data() + winperf::data_block::kSystemNameOffset, name_at);
  StoreU32(raw.data() + winperf::data_block::kSystemNameLength, static_cast<uint32_t>(name.size()));
  return raw;
}

// The sections the store cuts `raw`, a snapshot the reader must accept, into.
inline std::vector<SnapshotSection> SectionsOf(std::span<const uint8_t> raw) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  EXPECT_TRUE(reader.ok()) << reader.error();
  if (!reader.ok()) return {};
  return SplitIntoSections(*reader, raw.size());
}

// `raw` as the store frames a group's keyframe: each section alone.
inline std::vector<uint8_t> Keyframe(std::span<const uint8_t> raw, int level = kDefaultDeltaLevel) {
  return EncodeSectionedFrame(raw, SectionsOf(raw), nullptr, level);
}

// `raw` as the store frames a member of the group whose keyframe is `keyframe_raw`.
inline std::vector<uint8_t> Member(std::span<const uint8_t> raw,
                                   std::span<const uint8_t> keyframe_raw,
                                   int level = kDefaultDeltaLevel) {
  std::vector<SnapshotSection> keyframe_sections = SectionsOf(keyframe_raw);
  SectionedBase base{keyframe_raw, keyframe_sections};
  return EncodeSectionedFrame(raw, SectionsOf(raw), &base, level);
}

// A snapshot of a group kept as frames, given its own frame (store/group_decoder.h).
inline GroupMember FramedMember(std::span<const uint8_t> frame, bool is_keyframe) {
  return GroupMember{.is_keyframe = is_keyframe, .frame = frame};
}

// A read's wish for the objects with these title indexes.
inline ObjectWanted Wants(std::vector<uint32_t> objects) {
  return [objects](uint32_t index) {
    return std::find(objects.begin(), objects.end(), index) != objects.end();
  };
}

// Each object of `partial` has the same bytes as the object of the same title index in `whole`;
// returns their title indexes in order.
inline std::vector<uint32_t> ExpectSameObjects(std::span<const uint8_t> whole,
                                               std::span<const uint8_t> partial) {
  std::vector<uint32_t> indexes;
  Result<SnapshotReader> original = SnapshotReader::Open(whole);
  Result<SnapshotReader> reader = SnapshotReader::Open(partial);
  EXPECT_TRUE(original.ok()) << original.error();
  EXPECT_TRUE(reader.ok()) << reader.error();
  if (!original.ok() || !reader.ok()) return indexes;
  for (ObjectView object : reader->objects()) {
    indexes.push_back(object.name_index());
    std::optional<ObjectView> same = original->FindObject(object.name_index());
    if (!same) {
      ADD_FAILURE() << "object " << object.name_index() << " is not in the original";
      continue;
    }
    EXPECT_TRUE(std::ranges::equal(partial.subspan(object.position(), object.total_byte_length()),
                                   whole.subspan(same->position(), same->total_byte_length())))
        << "object " << object.name_index();
  }
  return indexes;
}

// The title indexes of the objects in `partial` (a partial restore of `whole`), each checked to
// be the same bytes as that object in `whole`.
inline std::vector<uint32_t> ObjectsAsStored(std::span<const uint8_t> partial,
                                             std::span<const uint8_t> whole) {
  std::vector<uint32_t> objects;
  Result<SnapshotReader> partial_reader = SnapshotReader::Open(partial);
  Result<SnapshotReader> whole_reader = SnapshotReader::Open(whole);
  EXPECT_TRUE(partial_reader.ok() && whole_reader.ok());
  if (!partial_reader.ok() || !whole_reader.ok()) return objects;
  for (ObjectView object : partial_reader->objects()) {
    objects.push_back(object.name_index());
    std::optional<ObjectView> same = whole_reader->FindObject(object.name_index());
    EXPECT_TRUE(same.has_value()) << "object " << object.name_index();
    if (!same) continue;
    EXPECT_TRUE(std::ranges::equal(partial.subspan(object.position(), object.total_byte_length()),
                                   whole.subspan(same->position(), same->total_byte_length())))
        << "object " << object.name_index();
  }
  return objects;
}

}  // namespace testing
}  // namespace perfhive

#endif  // PERFHIVE_TESTS_STORE_SECTION_TEST_UTIL_H_
