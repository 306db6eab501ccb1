// Snapshot sections: how SplitIntoSections cuts builder-made snapshots, which sections a read
// restores (SectionsToRestore), and that a partial snapshot assembled from some of them is a
// valid snapshot holding the original objects' exact bytes.

#include "store/snapshot_sections.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/byte_order.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/text_encoding.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "tests/store/section_test_util.h"

namespace perfhive {
namespace {

namespace ti = title_index;
namespace db = winperf::data_block;

using ::testing::ElementsAre;
using testing::ExpectSameObjects;
using ::testing::IsEmpty;
using testing::Wants;

// PERF_DATA_BLOCK (88 bytes) and L"HOST" with its NUL (10), rounded up to 8.
constexpr uint32_t kHostHeaderBytes = 104;

// An extensible provider's object (title indexes above the system's are the providers').
constexpr uint32_t kProviderObject = 1848;

// A host's snapshot at sample `t`, objects in this order: System and Memory (no instances) and
// Processor (3 instances), all small; Process (`processes` instances, larger than a section);
// Thread (two per process, naming their Process instance as parent); PhysicalDisk; LogicalDisk
// (each logical disk names its physical disk as parent); Network Interface and a provider's
// object, both small.
std::vector<uint8_t> HostSnapshot(int processes = 60, uint64_t t = 0) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_system_time({2025, 3, 6, 1, 10, 0, 0, 0});
  ObjectBuilder& system = builder.AddObject(ti::kSystem);
  system.AddCounter({.name_index = ti::kProcesses, .type = winperf::kCounterRawcount});
  system.AddCounter({.name_index = ti::kSystemUpTime, .type = winperf::kCounterLargeRawcount});
  system.set_no_instances();
  system.SetValue(0, 0, processes);
  system.SetValue(0, 1, 1000 + t);
  ObjectBuilder& memory = builder.AddObject(ti::kMemory);
  memory.AddCounter({.name_index = ti::kAvailableBytes, .type = winperf::kCounterLargeRawcount});
  memory.set_no_instances();
  memory.SetValue(0, 0, (1ull << 30) - t);
  ObjectBuilder& cpu = builder.AddObject(ti::kProcessor);
  cpu.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
  for (const char* name : {"0", "1", "_Total"}) cpu.SetValue(cpu.AddInstance(name), 0, 7 * t);
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  process.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimer});
  process.AddCounter({.name_index = ti::kIdProcess, .type = winperf::kCounterLargeRawcount});
  process.AddCounter({.name_index = ti::kWorkingSet, .type = winperf::kCounterLargeRawcount});
  for (int p = 0; p < processes; ++p) {
    uint32_t i = process.AddInstance("proc" + std::to_string(p), p);
    process.SetValue(i, 0, t * (p + 1));
    process.SetValue(i, 1, 100 + p);
    process.SetValue(i, 2, 4096ull * (p + 1));
  }
  ObjectBuilder& thread = builder.AddObject(ti::kThread);
  thread.AddCounter({.name_index = ti::kIdThread, .type = winperf::kCounterRawcount});
  for (int p = 0; p < processes; ++p) {
    for (int k = 0; k < 2; ++k) {
      uint32_t i = thread.AddInstance(std::to_string(k), winperf::kNoUniqueId, ti::kProcess, p);
      thread.SetValue(i, 0, 1000 + 2 * p + k);
    }
  }
  ObjectBuilder& physical = builder.AddObject(ti::kPhysicalDisk);
  physical.AddCounter({.name_index = ti::kDiskReadsPerSec, .type = winperf::kCounterRawcount});
  physical.SetValue(physical.AddInstance("0 C:"), 0, t);
  physical.SetValue(physical.AddInstance("1 D:"), 0, 2 * t);
  ObjectBuilder& logical = builder.AddObject(ti::kLogicalDisk);
  logical.AddCounter({.name_index = ti::kFreeMegabytes, .type = winperf::kCounterRawcount});
  logical.SetValue(logical.AddInstance("C:", winperf::kNoUniqueId, ti::kPhysicalDisk, 0), 0, 9);
  logical.SetValue(logical.AddInstance("D:", winperf::kNoUniqueId, ti::kPhysicalDisk, 1), 0, 8);
  ObjectBuilder& nic = builder.AddObject(ti::kNetworkInterface);
  nic.AddCounter({.name_index = ti::kBytesTotalPerSec, .type = winperf::kCounterLargeRawcount});
  nic.SetValue(nic.AddInstance("eth0"), 0, 1500 * t);
  ObjectBuilder& provider = builder.AddObject(kProviderObject);
  provider.AddCounter({.name_index = kProviderObject + 2, .type = winperf::kCounterRawcount});
  provider.set_no_instances();
  return builder.Build();
}

// The title indexes of HostSnapshot()'s objects, in order.
constexpr uint32_t kHostObjects[] = {ti::kSystem,      ti::kMemory,           ti::kProcessor,
                                     ti::kProcess,     ti::kThread,           ti::kPhysicalDisk,
                                     ti::kLogicalDisk, ti::kNetworkInterface, kProviderObject};

// Where each object lies in a snapshot, by title index, as the reader finds it.
struct Placement {
  uint32_t position = 0;
  uint32_t length = 0;
};
std::map<uint32_t, Placement> PlacementsOf(std::span<const uint8_t> raw) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  EXPECT_TRUE(reader.ok()) << reader.error();
  std::map<uint32_t, Placement> out;
  if (!reader.ok()) return out;
  for (ObjectView object : reader->objects()) {
    out[object.name_index()] = {object.position(), object.total_byte_length()};
  }
  return out;
}

std::vector<SnapshotSection> Split(std::span<const uint8_t> raw,
                                   uint32_t target = kSectionTargetBytes) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  EXPECT_TRUE(reader.ok()) << reader.error();
  if (!reader.ok()) return {};
  return SplitIntoSections(*reader, raw.size(), target);
}

// Sections cover [0, size) one after another, without gaps or overlaps.
void ExpectTiling(const std::vector<SnapshotSection>& sections, size_t size) {
  uint64_t at = 0;
  for (size_t i = 0; i < sections.size(); ++i) {
    EXPECT_EQ(sections[i].offset, at) << "section " << i;
    EXPECT_GT(sections[i].size, 0u) << "section " << i;
    at = uint64_t{sections[i].offset} + sections[i].size;
  }
  EXPECT_EQ(at, size);
}

TEST(SnapshotSectionsTest, SmallNeighboursShareASectionAndLargeObjectsStandAlone) {
  std::vector<uint8_t> raw = HostSnapshot();
  std::map<uint32_t, Placement> at = PlacementsOf(raw);
  ASSERT_EQ(at.size(), 9u);
  // What the expectation below relies on.
  const uint32_t small_three =
      at[ti::kSystem].length + at[ti::kMemory].length + at[ti::kProcessor].length;
  const uint32_t last_two = at[ti::kNetworkInterface].length + at[kProviderObject].length;
  // By size alone the disks and the last two would share a section.
  ASSERT_LE(at[ti::kPhysicalDisk].length + at[ti::kLogicalDisk].length + last_two,
            kSectionTargetBytes);
  ASSERT_LE(small_three, kSectionTargetBytes);
  ASSERT_GT(small_three + at[ti::kProcess].length, kSectionTargetBytes);
  ASSERT_GT(at[ti::kProcess].length, kSectionTargetBytes);
  ASSERT_EQ(at[ti::kSystem].position, kHostHeaderBytes);

  std::vector<SnapshotSection> sections = Split(raw);
  const std::vector<SnapshotSection> expected = {
      {0, kHostHeaderBytes, {}, {}},
      {kHostHeaderBytes, small_three, {ti::kSystem, ti::kMemory, ti::kProcessor}, {}},
      {at[ti::kProcess].position, at[ti::kProcess].length, {ti::kProcess}, {}},
      {at[ti::kThread].position, at[ti::kThread].length, {ti::kThread}, {ti::kProcess}},
      {at[ti::kPhysicalDisk].position, at[ti::kPhysicalDisk].length, {ti::kPhysicalDisk}, {}},
      {at[ti::kLogicalDisk].position,
       at[ti::kLogicalDisk].length,
       {ti::kLogicalDisk},
       {ti::kPhysicalDisk}},
      {at[ti::kNetworkInterface].position, last_two, {ti::kNetworkInterface, kProviderObject}, {}},
  };
  EXPECT_EQ(sections, expected);
  ExpectTiling(sections, raw.size());
}

TEST(SnapshotSectionsTest, AnObjectNamingParentsIsAloneAndEndsItsRun) {
  // Every object is small: without parents all would share one section.
  std::vector<uint8_t> raw = HostSnapshot(3);
  std::map<uint32_t, Placement> at = PlacementsOf(raw);
  ASSERT_LT(raw.size(), kSectionTargetBytes);
  std::vector<SnapshotSection> sections = Split(raw);
  ASSERT_EQ(sections.size(), 6u);
  EXPECT_EQ(sections[1].objects,
            (std::vector<uint32_t>{ti::kSystem, ti::kMemory, ti::kProcessor, ti::kProcess}));
  EXPECT_EQ(sections[2],
            (SnapshotSection{
                at[ti::kThread].position, at[ti::kThread].length, {ti::kThread}, {ti::kProcess}}));
  EXPECT_EQ(sections[3].objects, std::vector<uint32_t>{ti::kPhysicalDisk});
  EXPECT_EQ(sections[4].objects, std::vector<uint32_t>{ti::kLogicalDisk});
  EXPECT_EQ(sections[4].parents, std::vector<uint32_t>{ti::kPhysicalDisk});
  EXPECT_EQ(sections[5].objects, (std::vector<uint32_t>{ti::kNetworkInterface, kProviderObject}));
  ExpectTiling(sections, raw.size());
}

TEST(SnapshotSectionsTest, AnObjectThatExactlyFillsTheTargetStaysInTheRun) {
  std::vector<uint8_t> raw = HostSnapshot();
  std::map<uint32_t, Placement> at = PlacementsOf(raw);
  const uint32_t two = at[ti::kSystem].length + at[ti::kMemory].length;

  // At the target the run is full but not over it: Memory joins System, Processor does not.
  std::vector<SnapshotSection> sections = Split(raw, two);
  ASSERT_GE(sections.size(), 3u);
  EXPECT_EQ(sections[1].objects, (std::vector<uint32_t>{ti::kSystem, ti::kMemory}));
  EXPECT_EQ(sections[1].size, two);
  EXPECT_EQ(sections[2].objects, (std::vector<uint32_t>{ti::kProcessor}));
  ExpectTiling(sections, raw.size());

  // One byte less and Memory starts a section of its own.
  sections = Split(raw, two - 1);
  ASSERT_GE(sections.size(), 4u);
  EXPECT_EQ(sections[1].objects, (std::vector<uint32_t>{ti::kSystem}));
  EXPECT_EQ(sections[2].objects, (std::vector<uint32_t>{ti::kMemory}));
  EXPECT_EQ(sections[3].objects, (std::vector<uint32_t>{ti::kProcessor}));
  ExpectTiling(sections, raw.size());
}

TEST(SnapshotSectionsTest, ATargetOfZeroPutsEveryObjectAlone) {
  std::vector<uint8_t> raw = HostSnapshot(5);
  std::vector<SnapshotSection> sections = Split(raw, 0);
  ASSERT_EQ(sections.size(), 10u);
  for (size_t i = 0; i < std::size(kHostObjects); ++i) {
    EXPECT_EQ(sections[i + 1].objects, std::vector<uint32_t>{kHostObjects[i]})
        << "section " << i + 1;
  }
  EXPECT_EQ(sections[4].parents, std::vector<uint32_t>{}) << "Process names no parent";
  EXPECT_EQ(sections[5].parents, std::vector<uint32_t>{ti::kProcess});
  EXPECT_EQ(sections[7].parents, std::vector<uint32_t>{ti::kPhysicalDisk});
  ExpectTiling(sections, raw.size());
}

TEST(SnapshotSectionsTest, ParentsAreListedOnceInTheOrderInstancesNameThem) {
  // A Job-object-like object whose instances name two parents, several times each.
  SnapshotBuilder builder;
  builder.set_system_name("HOST");
  ObjectBuilder& jobs = builder.AddObject(1500);
  jobs.AddCounter({.name_index = 1502, .type = winperf::kCounterRawcount});
  jobs.AddInstance("a", winperf::kNoUniqueId, ti::kThread, 0);
  jobs.AddInstance("b", winperf::kNoUniqueId, ti::kProcess, 0);
  jobs.AddInstance("c", winperf::kNoUniqueId, ti::kThread, 1);
  jobs.AddInstance("d", winperf::kNoUniqueId, 0, 0);  // no parent
  jobs.AddInstance("e", winperf::kNoUniqueId, ti::kProcess, 1);
  std::vector<uint8_t> raw = builder.Build();

  std::vector<SnapshotSection> sections = Split(raw);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[1].objects, std::vector<uint32_t>{1500});
  EXPECT_EQ(sections[1].parents, (std::vector<uint32_t>{ti::kThread, ti::kProcess}));
}

TEST(SnapshotSectionsTest, ASnapshotWithoutObjectsIsItsHeader) {
  std::vector<uint8_t> raw = SnapshotBuilder().set_system_name("HOST").Build();
  ASSERT_EQ(raw.size(), kHostHeaderBytes);
  std::vector<SnapshotSection> sections = Split(raw);
  EXPECT_EQ(sections, (std::vector<SnapshotSection>{{0, kHostHeaderBytes, {}, {}}}));
  EXPECT_FALSE(CanRestorePartially(sections));
}

TEST(SnapshotSectionsTest, ASystemNameOutsideTheHeaderKeepsTheSnapshotWhole) {
  // The name moved after the last object, where a partial snapshot would lose it.
  std::vector<uint8_t> raw = HostSnapshot(5);
  const uint32_t name_at = static_cast<uint32_t>(raw.size());
  std::vector<uint8_t> name = Utf8ToUtf16Le("ELSEWHERE");
  name.insert(name.end(), {0, 0, 0, 0, 0, 0});  // the NUL, then padding to 8 bytes
  raw.insert(raw.end(), name.begin(), name.end());
  StoreU32(raw.data() + db::kSystemNameOffset, name_at);
  StoreU32(raw.data() + db::kSystemNameLength, 20);
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  ASSERT_TRUE(reader.ok()) << reader.error();
  ASSERT_EQ(reader->system_name(), "ELSEWHERE");

  std::vector<SnapshotSection> sections = Split(raw);
  EXPECT_EQ(sections,
            (std::vector<SnapshotSection>{{0, static_cast<uint32_t>(raw.size()), {}, {}}}));
  EXPECT_FALSE(CanRestorePartially(sections));
}

TEST(SnapshotSectionsTest, ASystemNameEndingOneBytePastTheHeaderKeepsTheSnapshotWhole) {
  std::vector<uint8_t> raw = HostSnapshot(5);
  // L"HOST" and its NUL are 10 bytes at 88; claiming 17 reaches byte 105, one past the header.
  StoreU32(raw.data() + db::kSystemNameLength, kHostHeaderBytes - db::kSize + 1);
  ASSERT_TRUE(SnapshotReader::Open(raw).ok());
  EXPECT_EQ(Split(raw, 0).size(), 1u);

  // Ending exactly at the header's end is inside it: a header and nine objects.
  StoreU32(raw.data() + db::kSystemNameLength, kHostHeaderBytes - db::kSize);
  EXPECT_EQ(Split(raw, 0).size(), 10u);
}

TEST(SnapshotSectionsTest, AnEmptySystemNameIsCutWhereverItsOffsetPoints) {
  std::vector<uint8_t> raw = HostSnapshot(5);
  StoreU32(raw.data() + db::kSystemNameLength, 0);
  StoreU32(raw.data() + db::kSystemNameOffset, 0xFFFFFFF0);
  ASSERT_TRUE(SnapshotReader::Open(raw).ok());
  std::vector<SnapshotSection> sections = Split(raw);
  ASSERT_GT(sections.size(), 1u);
  EXPECT_EQ(sections[0], (SnapshotSection{0, kHostHeaderBytes, {}, {}}));
  EXPECT_TRUE(CanRestorePartially(sections));
}

TEST(SnapshotSectionsTest, BytesAfterTheLastObjectAreALastSectionWithoutObjects) {
  std::vector<uint8_t> raw = HostSnapshot();
  const uint32_t objects_end = static_cast<uint32_t>(raw.size());
  raw.insert(raw.end(), 24, 0xAB);
  std::vector<SnapshotSection> sections = Split(raw);
  ASSERT_EQ(sections.size(), 8u);
  EXPECT_EQ(sections.back(), (SnapshotSection{objects_end, 24, {}, {}}));
  ExpectTiling(sections, raw.size());
  EXPECT_TRUE(CanRestorePartially(sections));
}

TEST(SnapshotSectionsTest, ASambaStyleTotalLengthIsCutTheSameWay) {
  // TotalByteLength without the header: the objects and so the sections are the same.
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_total_length_excludes_header(true);
  ObjectBuilder& cpu = builder.AddObject(ti::kProcessor);
  cpu.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
  cpu.AddInstance("0");
  std::vector<uint8_t> raw = builder.Build();
  std::vector<SnapshotSection> sections = Split(raw);
  EXPECT_EQ(sections,
            (std::vector<SnapshotSection>{{0, kHostHeaderBytes, {}, {}},
                                          {kHostHeaderBytes,
                                           static_cast<uint32_t>(raw.size()) - kHostHeaderBytes,
                                           {ti::kProcessor},
                                           {}}}));
}

// Sections as HostSnapshot()'s are cut: 0 header, 1 System+Memory+Processor, 2 Process,
// 3 Thread (parent Process), 4 PhysicalDisk, 5 LogicalDisk (parent PhysicalDisk), 6 Network
// Interface and the provider's object.
std::vector<SnapshotSection> HostSections() {
  return {{0, 104, {}, {}},
          {104, 600, {ti::kSystem, ti::kMemory, ti::kProcessor}, {}},
          {704, 5000, {ti::kProcess}, {}},
          {5704, 9000, {ti::kThread}, {ti::kProcess}},
          {14704, 200, {ti::kPhysicalDisk}, {}},
          {14904, 200, {ti::kLogicalDisk}, {ti::kPhysicalDisk}},
          {15104, 300, {ti::kNetworkInterface, kProviderObject}, {}}};
}

TEST(SectionsToRestoreTest, TheHeaderAlwaysComesEvenWhenNothingIsWanted) {
  std::vector<SnapshotSection> sections = HostSections();
  EXPECT_THAT(SectionsToRestore(sections, Wants({})), ElementsAre(0u));
  EXPECT_THAT(SectionsToRestore(sections, Wants({999})), ElementsAre(0u));
}

TEST(SectionsToRestoreTest, TheSectionsHoldingWantedObjects) {
  std::vector<SnapshotSection> sections = HostSections();
  EXPECT_THAT(SectionsToRestore(sections, Wants({ti::kMemory})), ElementsAre(0u, 1u));
  EXPECT_THAT(SectionsToRestore(sections, Wants({ti::kProcess})), ElementsAre(0u, 2u));
  EXPECT_THAT(SectionsToRestore(sections, Wants({kProviderObject})), ElementsAre(0u, 6u));
  // A parent needs no children: PhysicalDisk alone.
  EXPECT_THAT(SectionsToRestore(sections, Wants({ti::kPhysicalDisk})), ElementsAre(0u, 4u));
}

TEST(SectionsToRestoreTest, AWantedChildBringsItsParentsSection) {
  std::vector<SnapshotSection> sections = HostSections();
  EXPECT_THAT(SectionsToRestore(sections, Wants({ti::kThread})), ElementsAre(0u, 2u, 3u));
  EXPECT_THAT(SectionsToRestore(sections, Wants({ti::kLogicalDisk})), ElementsAre(0u, 4u, 5u));
}

TEST(SectionsToRestoreTest, AParentInTheWantedObjectsOwnSectionBringsNothingMore) {
  std::vector<SnapshotSection> sections = {
      {0, 88, {}, {}}, {88, 8, {10, 20}, {10}}, {96, 8, {30}, {}}};
  EXPECT_THAT(SectionsToRestore(sections, Wants({20})), ElementsAre(0u, 1u));
}

TEST(SectionsToRestoreTest, ResultIsInSectionOrderWhateverTheWantedOrder) {
  std::vector<SnapshotSection> sections = HostSections();
  EXPECT_THAT(SectionsToRestore(
                  sections, Wants({kProviderObject, ti::kLogicalDisk, ti::kThread, ti::kSystem})),
              ElementsAre(0u, 1u, 2u, 3u, 4u, 5u, 6u));
}

TEST(SectionsToRestoreTest, ParentsOfParentsAreRestoredToo) {
  // 3 names 2 as parent, 2 names 1; 4 is left alone.
  std::vector<SnapshotSection> sections = {{0, 88, {}, {}},
                                           {88, 8, {10}, {}},
                                           {96, 8, {20}, {10}},
                                           {104, 8, {30}, {20}},
                                           {112, 8, {40}, {}}};
  EXPECT_THAT(SectionsToRestore(sections, Wants({30})), ElementsAre(0u, 1u, 2u, 3u));
}

TEST(SectionsToRestoreTest, ParentCyclesAndMissingParentsEnd) {
  std::vector<SnapshotSection> sections = {{0, 88, {}, {}},
                                           {88, 8, {10}, {20, 77}},  // 77 is nowhere
                                           {96, 8, {20}, {10, 20}},
                                           {104, 8, {30}, {}}};
  EXPECT_THAT(SectionsToRestore(sections, Wants({10})), ElementsAre(0u, 1u, 2u));
}

TEST(SectionsToRestoreTest, AParentHeldByTwoSectionsBringsBoth) {
  std::vector<SnapshotSection> sections = {
      {0, 88, {}, {}}, {88, 8, {10}, {}}, {96, 8, {20}, {10}}, {104, 8, {10}, {}}};
  EXPECT_THAT(SectionsToRestore(sections, Wants({20})), ElementsAre(0u, 1u, 2u, 3u));
}

TEST(SectionsToRestoreTest, NoSectionsRestoreNothing) {
  EXPECT_THAT(SectionsToRestore({}, Wants({ti::kProcess})), IsEmpty());
}

TEST(CanRestorePartiallyTest, NeedsAWholeHeaderBeforeObjects) {
  EXPECT_TRUE(CanRestorePartially(HostSections()));
  // Only a header: nothing to leave out.
  EXPECT_FALSE(CanRestorePartially(std::vector<SnapshotSection>{{0, 104, {}, {}}}));
  // A first section shorter than PERF_DATA_BLOCK could not be patched.
  EXPECT_FALSE(CanRestorePartially(
      std::vector<SnapshotSection>{{0, db::kSize - 1, {}, {}}, {87, 8, {10}, {}}}));
  EXPECT_TRUE(
      CanRestorePartially(std::vector<SnapshotSection>{{0, db::kSize, {}, {}}, {88, 8, {10}, {}}}));
  // A first section holding objects is not a header.
  EXPECT_FALSE(
      CanRestorePartially(std::vector<SnapshotSection>{{0, 200, {10}, {}}, {200, 8, {}, {}}}));
  EXPECT_FALSE(CanRestorePartially({}));
}

// The partial snapshot of `raw` made of the sections `wanted` selects.
std::vector<uint8_t> Partial(const std::vector<uint8_t>& raw,
                             const std::vector<SnapshotSection>& sections,
                             const std::function<bool(uint32_t)>& wanted) {
  std::span<const uint8_t> bytes(raw);
  std::vector<size_t> chosen = SectionsToRestore(sections, wanted);
  EXPECT_FALSE(chosen.empty());
  if (chosen.empty()) return {};
  std::vector<uint8_t> partial;
  uint32_t num_objects = 0;
  for (size_t i : chosen) {
    const SnapshotSection& section = sections[i];
    std::span<const uint8_t> part = bytes.subspan(section.offset, section.size);
    partial.insert(partial.end(), part.begin(), part.end());
    num_objects += static_cast<uint32_t>(section.objects.size());
  }
  PatchPartialHeader(partial, num_objects);
  return partial;
}

TEST(PatchPartialHeaderTest, AWantedThreadGivesAValidSnapshotOfProcessAndThread) {
  std::vector<uint8_t> raw = HostSnapshot(60, 3);
  std::vector<SnapshotSection> sections = Split(raw);
  ASSERT_TRUE(CanRestorePartially(sections));
  std::vector<uint8_t> partial = Partial(raw, sections, Wants({ti::kThread}));

  Result<SnapshotReader> reader = SnapshotReader::Open(partial);
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(reader->num_objects(), 2u);
  EXPECT_EQ(reader->total_byte_length(), partial.size());
  EXPECT_EQ(reader->system_name(), "HOST");
  EXPECT_EQ(reader->system_time(), (SystemTime{2025, 3, 6, 1, 10, 0, 0, 0}));
  EXPECT_THAT(ExpectSameObjects(raw, partial), ElementsAre(ti::kProcess, ti::kThread));
  // Thread instances still find their parents by position: thread 2*p+k names process p.
  std::optional<ObjectView> thread = reader->FindObject(ti::kThread);
  std::optional<ObjectView> process = reader->FindObject(ti::kProcess);
  ASSERT_TRUE(thread && process);
  std::vector<InstanceView> threads, processes;
  for (InstanceView instance : thread->instances()) threads.push_back(instance);
  for (InstanceView instance : process->instances()) processes.push_back(instance);
  ASSERT_EQ(threads.size(), 120u);
  ASSERT_EQ(processes.size(), 60u);
  EXPECT_EQ(InstanceName(*thread, threads[2 * 17 + 1]), "1");
  ASSERT_EQ(threads[2 * 17 + 1].parent_object_index(), ti::kProcess);
  ASSERT_EQ(threads[2 * 17 + 1].parent_instance(), 17u);
  EXPECT_EQ(InstanceName(*process, processes[17]), "proc17");
}

TEST(PatchPartialHeaderTest, OnlyTotalLengthAndObjectCountOfTheHeaderChange) {
  std::vector<uint8_t> raw = HostSnapshot(60, 3);
  std::vector<SnapshotSection> sections = Split(raw);
  std::vector<uint8_t> partial = Partial(raw, sections, Wants({ti::kProcessor}));
  ASSERT_GE(partial.size(), kHostHeaderBytes);
  std::vector<uint8_t> header(partial.begin(), partial.begin() + kHostHeaderBytes);
  std::vector<uint8_t> expected(raw.begin(), raw.begin() + kHostHeaderBytes);
  StoreU32(expected.data() + db::kTotalByteLength, static_cast<uint32_t>(partial.size()));
  StoreU32(expected.data() + db::kNumObjectTypes, 3);
  EXPECT_EQ(header, expected);
  EXPECT_THAT(ExpectSameObjects(raw, partial),
              ElementsAre(ti::kSystem, ti::kMemory, ti::kProcessor));
}

TEST(PatchPartialHeaderTest, NothingWantedGivesTheHeaderAlone) {
  std::vector<uint8_t> raw = HostSnapshot();
  std::vector<uint8_t> partial = Partial(raw, Split(raw), Wants({}));
  Result<SnapshotReader> reader = SnapshotReader::Open(partial);
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(partial.size(), kHostHeaderBytes);
  EXPECT_EQ(reader->num_objects(), 0u);
}

TEST(PatchPartialHeaderTest, ASambaStyleHeaderComesOutInWindowsConvention) {
  // TotalByteLength excluding the header, as Samba writes it, becomes the whole length.
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_total_length_excludes_header(true);
  for (uint32_t index : {ti::kSystem, ti::kProcessor}) {
    ObjectBuilder& object = builder.AddObject(index);
    object.AddCounter({.name_index = ti::kProcesses, .type = winperf::kCounterRawcount});
    object.SetValue(object.AddInstance("only"), 0, index);
  }
  std::vector<uint8_t> raw = builder.Build();
  std::vector<SnapshotSection> sections = Split(raw, 0);
  ASSERT_EQ(sections.size(), 3u);
  std::vector<uint8_t> partial = Partial(raw, sections, Wants({ti::kProcessor}));
  Result<SnapshotReader> reader = SnapshotReader::Open(partial);
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(reader->total_byte_length(), partial.size());
  EXPECT_THAT(ExpectSameObjects(raw, partial), ElementsAre(ti::kProcessor));
}

TEST(PatchPartialHeaderTest, TrailingBytesAreLeftOut) {
  std::vector<uint8_t> raw = HostSnapshot();
  raw.insert(raw.end(), 24, 0xAB);
  std::vector<SnapshotSection> sections = Split(raw);
  std::vector<uint8_t> partial = Partial(raw, sections, [](uint32_t) { return true; });
  // Every object, but not the tail.
  EXPECT_EQ(partial.size(), raw.size() - 24);
  EXPECT_TRUE(std::equal(partial.begin() + kHostHeaderBytes, partial.end(),
                         raw.begin() + kHostHeaderBytes));
  EXPECT_THAT(ExpectSameObjects(raw, partial), ::testing::ElementsAreArray(kHostObjects));
}

}  // namespace
}  // namespace perfhive
