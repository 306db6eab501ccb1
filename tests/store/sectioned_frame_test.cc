// Sectioned frames and the group restorer: the frame's table round trip (which keyframe section
// each section is made against), exact and partial restores of a group's snapshots from
// sectioned and older whole-snapshot frames, and hostile frames, which must give a DataLoss
// error naming the problem and never crash.

#include "store/sectioned_frame.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "codec/snapshot_delta.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "store/frame_encoding.h"
#include "store/framed_group.h"
#include "store/snapshot_sections.h"
#include "tests/store/section_test_util.h"

namespace perfhive {
namespace {

namespace ti = title_index;

using ::testing::Each;
using ::testing::ElementsAre;
using testing::ExpectSameObjects;
using ::testing::HasSubstr;
using testing::HostSnapshot;
using testing::Keyframe;
using testing::Member;
using testing::NameOutsideHeader;
using testing::SectionsOf;
using testing::Wants;

constexpr int kLevel = kDefaultDeltaLevel;
constexpr size_t kHostSections = 6;

// The table points into `frame`, which must outlive it.
SectionedFrame Parse(const std::vector<uint8_t>& frame) {
  Result<SectionedFrame> parsed = ParseSectionedFrame(frame);
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  return parsed.ok() ? std::move(*parsed) : SectionedFrame{};
}
SectionedFrame Parse(std::vector<uint8_t>&& frame) = delete;

std::span<const uint8_t> BytesOf(std::span<const uint8_t> raw, const SnapshotSection& section) {
  return raw.subspan(section.offset, section.size);
}

std::vector<uint8_t> Vec(std::span<const uint8_t> bytes) { return {bytes.begin(), bytes.end()}; }

// Each section of `frame` decodes, against the keyframe section its table names, to the bytes
// the same section has in `raw`.
void ExpectSectionsDecode(const SectionedFrame& frame, std::span<const uint8_t> raw,
                          std::span<const uint8_t> keyframe_raw,
                          std::span<const SnapshotSection> keyframe_sections) {
  for (size_t i = 0; i < frame.sections.size(); ++i) {
    std::span<const uint8_t> base;
    if (frame.bases[i] != kNoBaseSection) {
      ASSERT_LT(frame.bases[i], keyframe_sections.size()) << "section " << i;
      base = BytesOf(keyframe_raw, keyframe_sections[frame.bases[i]]);
    }
    Result<std::vector<uint8_t>> bytes = DecodeSection(frame, i, base);
    ASSERT_TRUE(bytes.ok()) << "section " << i << ": " << bytes.error();
    EXPECT_EQ(*bytes, Vec(BytesOf(raw, frame.sections[i]))) << "section " << i;
  }
}

TEST(SectionedFrameTest, KeyframeRoundTripsWithoutBases) {
  std::vector<uint8_t> raw = HostSnapshot(0);
  std::vector<SnapshotSection> sections = SectionsOf(raw);
  ASSERT_EQ(sections.size(), kHostSections);
  std::vector<uint8_t> frame = EncodeSectionedFrame(raw, sections, nullptr, kLevel);
  ASSERT_GE(frame.size(), 5u);
  EXPECT_EQ(std::vector<uint8_t>(frame.begin(), frame.begin() + 4),
            (std::vector<uint8_t>{0x50, 0x48, 0x53, 0x01}));  // "PHS", version 1
  EXPECT_EQ(frame[4], kHostSections);                         // the count, a one-byte varint
  EXPECT_EQ(FrameEncodingOf(frame).value(), FrameEncoding::kSectioned);

  SectionedFrame parsed = Parse(frame);
  EXPECT_EQ(parsed.sections, sections);
  EXPECT_THAT(parsed.methods, Each(SectionMethod::kFull));
  EXPECT_THAT(parsed.bases, Each(kNoBaseSection));
  ASSERT_EQ(parsed.bodies.size(), kHostSections);
  for (std::span<const uint8_t> body : parsed.bodies) EXPECT_FALSE(body.empty());
  ExpectSectionsDecode(parsed, raw, {}, {});
}

TEST(SectionedFrameTest, ItsTagSaysSectioned) {
  std::vector<uint8_t> raw = HostSnapshot(0);
  Result<FrameEncoding> encoding = FrameEncodingOf(Keyframe(raw));
  ASSERT_TRUE(encoding.ok()) << encoding.error();
  EXPECT_EQ(*encoding, FrameEncoding::kSectioned);
}

TEST(SectionedFrameTest, MemberOfTheSameLayoutIsADeltaAgainstTheSameSections) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = HostSnapshot(1);
  std::vector<SnapshotSection> key_sections = SectionsOf(key);
  std::vector<uint8_t> frame = Member(member, key);
  SectionedFrame parsed = Parse(frame);
  EXPECT_EQ(parsed.sections, SectionsOf(member));
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u));
  // Same sizes: word differences; LogicalDisk did not change at all.
  using M = SectionMethod;
  EXPECT_THAT(parsed.methods, ElementsAre(M::kDifference, M::kDifference, M::kDifference,
                                          M::kDifference, M::kDifference, M::kSameAsBase));
  EXPECT_TRUE(parsed.bodies[5].empty());
  ExpectSectionsDecode(parsed, member, key, key_sections);
  EXPECT_LT(frame.size(), Keyframe(member).size());
}

TEST(SectionedFrameTest, AnUnchangedSnapshotIsATableWithoutBodies) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> frame = Member(key, key);
  SectionedFrame parsed = Parse(frame);
  EXPECT_THAT(parsed.methods, Each(SectionMethod::kSameAsBase));
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u));
  for (std::span<const uint8_t> body : parsed.bodies) EXPECT_TRUE(body.empty());
  ExpectSectionsDecode(parsed, key, key, SectionsOf(key));
  EXPECT_LT(frame.size(), 100u);
}

TEST(SectionedFrameTest, MemberSectionUsesTheKeyframeSectionHoldingItsFirstObject) {
  // The keyframe's section 1 is System+Memory+Processor; the member has no System, so its
  // section 1 (Memory+Processor) is made against the keyframe's section 1, and its Process and
  // Thread sections, longer here, against the keyframe's with the base as a prefix.
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = HostSnapshot(1, {.processes = 70, .system = false});
  std::vector<SnapshotSection> key_sections = SectionsOf(key);
  std::vector<uint8_t> frame = Member(member, key);
  SectionedFrame parsed = Parse(frame);
  ASSERT_EQ(parsed.sections.size(), kHostSections);
  EXPECT_EQ(parsed.sections[1].objects, (std::vector<uint32_t>{ti::kMemory, ti::kProcessor}));
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u));
  EXPECT_EQ(parsed.methods[1], SectionMethod::kPrefix);
  EXPECT_EQ(parsed.methods[2], SectionMethod::kPrefix);
  EXPECT_EQ(parsed.methods[3], SectionMethod::kPrefix);
  ExpectSectionsDecode(parsed, member, key, key_sections);
}

TEST(SectionedFrameTest, SectionStartingWithAnObjectTheKeyframeLacksIsMadeAlone) {
  // Network Interface (new) starts a run with PhysicalDisk: nothing in the keyframe matches it.
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = HostSnapshot(1, {.network = true});
  std::vector<SnapshotSection> key_sections = SectionsOf(key);
  std::vector<uint8_t> frame = Member(member, key);
  SectionedFrame parsed = Parse(frame);
  ASSERT_EQ(parsed.sections.size(), kHostSections);
  EXPECT_EQ(parsed.sections[4].objects,
            (std::vector<uint32_t>{ti::kNetworkInterface, ti::kPhysicalDisk}));
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, kNoBaseSection, 5u));
  EXPECT_EQ(parsed.methods[4], SectionMethod::kFull);
  ExpectSectionsDecode(parsed, member, key, key_sections);
}

TEST(SectionedFrameTest, TailIsMadeAgainstTheKeyframesTailOnly) {
  std::vector<uint8_t> key = HostSnapshot(0, {.tail = 40});
  std::vector<SnapshotSection> key_sections = SectionsOf(key);
  ASSERT_EQ(key_sections.size(), kHostSections + 1);

  // Both have a tail: tail to tail.
  std::vector<uint8_t> with_tail = HostSnapshot(1, {.tail = 48});
  std::vector<uint8_t> frame = Member(with_tail, key);
  SectionedFrame parsed = Parse(frame);
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u, 6u));
  ExpectSectionsDecode(parsed, with_tail, key, key_sections);

  // The member has none: its last section holds objects and matches by them.
  frame = Member(HostSnapshot(1), key);
  parsed = Parse(frame);
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u));

  // The keyframe has none: the member's tail is made alone.
  std::vector<uint8_t> plain_key = HostSnapshot(0);
  frame = Member(with_tail, plain_key);
  parsed = Parse(frame);
  EXPECT_THAT(parsed.bases, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u, kNoBaseSection));
  ExpectSectionsDecode(parsed, with_tail, plain_key, SectionsOf(plain_key));
}

TEST(SectionedFrameTest, OneSectionMemberIsMadeAgainstTheKeyframesHeader) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<SnapshotSection> key_sections = SectionsOf(key);
  std::vector<uint8_t> member = NameOutsideHeader(HostSnapshot(1));
  std::vector<uint8_t> frame = Member(member, key);
  SectionedFrame parsed = Parse(frame);
  ASSERT_EQ(parsed.sections.size(), 1u);
  EXPECT_THAT(parsed.bases, ElementsAre(0u));
  ExpectSectionsDecode(parsed, member, key, key_sections);
}

TEST(SectionedFrameTest, ABaseWithoutSectionsMakesAKeyframe) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = HostSnapshot(1);
  SectionedBase base{key, {}};
  std::vector<uint8_t> frame = EncodeSectionedFrame(member, SectionsOf(member), &base, kLevel);
  EXPECT_EQ(frame, Keyframe(member));
}

// A sectioned frame's table as docs/store_format.md lays it out, read and written here on its
// own: the tag, a count, then per section size, method (one byte), base + 1, body size, object
// count, parent count and the indexes, all LEB128 varints; then the bodies.
struct Entry {
  uint64_t size = 0;
  uint8_t method = 0;
  uint64_t base_plus_one = 0;
  uint64_t body = 0;
  std::vector<uint64_t> objects;
  std::vector<uint64_t> parents;
};
struct Table {
  std::vector<Entry> entries;
  size_t end = 0;               // where the bodies begin
  std::vector<uint8_t> bodies;  // everything after the table
};

void PutVarint(std::vector<uint8_t>& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<uint8_t>(value));
}

// For frames the encoder made: no checks.
uint64_t GetVarint(std::span<const uint8_t> frame, size_t& at) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t byte = frame[at++];
    value |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

Table ReadTable(std::span<const uint8_t> frame) {
  Table table;
  size_t at = 4;
  table.entries.resize(GetVarint(frame, at));
  for (Entry& entry : table.entries) {
    entry.size = GetVarint(frame, at);
    entry.method = frame[at++];
    entry.base_plus_one = GetVarint(frame, at);
    entry.body = GetVarint(frame, at);
    entry.objects.resize(GetVarint(frame, at));
    entry.parents.resize(GetVarint(frame, at));
    for (uint64_t& object : entry.objects) object = GetVarint(frame, at);
    for (uint64_t& parent : entry.parents) parent = GetVarint(frame, at);
  }
  table.end = at;
  table.bodies.assign(frame.begin() + at, frame.end());
  return table;
}

std::vector<uint8_t> WriteTable(const Table& table) {
  std::vector<uint8_t> out = {'P', 'H', 'S', 1};
  PutVarint(out, table.entries.size());
  for (const Entry& entry : table.entries) {
    PutVarint(out, entry.size);
    out.push_back(entry.method);
    PutVarint(out, entry.base_plus_one);
    PutVarint(out, entry.body);
    PutVarint(out, entry.objects.size());
    PutVarint(out, entry.parents.size());
    for (uint64_t object : entry.objects) PutVarint(out, object);
    for (uint64_t parent : entry.parents) PutVarint(out, parent);
  }
  out.insert(out.end(), table.bodies.begin(), table.bodies.end());
  return out;
}

TEST(SectionedFrameTest, FrameLayoutIsTheDocumentedOne) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> raw = HostSnapshot(1, {.network = true, .tail = 8});
  std::vector<uint8_t> frame = Member(raw, key);
  std::vector<SnapshotSection> sections = SectionsOf(raw);
  Table table = ReadTable(frame);
  ASSERT_EQ(table.entries.size(), sections.size());
  uint64_t bodies = 0;
  for (size_t i = 0; i < sections.size(); ++i) {
    const Entry& entry = table.entries[i];
    EXPECT_EQ(entry.size, sections[i].size) << "section " << i;
    EXPECT_EQ(entry.objects,
              std::vector<uint64_t>(sections[i].objects.begin(), sections[i].objects.end()));
    EXPECT_EQ(entry.parents,
              std::vector<uint64_t>(sections[i].parents.begin(), sections[i].parents.end()));
    bodies += entry.body;
  }
  // 0 header, 1..3 as the keyframe's, 4 Network Interface + PhysicalDisk (new: alone),
  // 5 LogicalDisk (unchanged), 6 the tail (the keyframe has none: alone).
  std::vector<std::pair<uint8_t, uint64_t>> methods_and_bases;
  for (const Entry& entry : table.entries) {
    methods_and_bases.emplace_back(entry.method, entry.base_plus_one);
  }
  EXPECT_THAT(methods_and_bases,
              ElementsAre(std::pair<uint8_t, uint64_t>{1, 1}, std::pair<uint8_t, uint64_t>{1, 2},
                          std::pair<uint8_t, uint64_t>{1, 3}, std::pair<uint8_t, uint64_t>{1, 4},
                          std::pair<uint8_t, uint64_t>{0, 0}, std::pair<uint8_t, uint64_t>{3, 6},
                          std::pair<uint8_t, uint64_t>{0, 0}));
  EXPECT_EQ(table.entries[5].body, 0u);
  EXPECT_EQ(table.end + bodies, frame.size());
  EXPECT_EQ(WriteTable(table), frame);
}

// A group: one keyframe, then members made against it.
struct Group {
  std::vector<uint8_t> key_raw;
  std::vector<std::vector<uint8_t>> member_raws;
  std::vector<uint8_t> key_frame;
  std::vector<std::vector<uint8_t>> member_frames;
};

// Members: 0 same layout, 1 more processes, 2 no System and a new Network Interface, 3 a tail,
// 4 one section (system name outside the header), 5 the keyframe's bytes again.
Group MakeGroup() {
  Group group;
  group.key_raw = HostSnapshot(0);
  group.member_raws = {HostSnapshot(1),
                       HostSnapshot(2, {.processes = 65}),
                       HostSnapshot(3, {.system = false, .network = true}),
                       HostSnapshot(4, {.tail = 16}),
                       NameOutsideHeader(HostSnapshot(5)),
                       HostSnapshot(0)};
  group.key_frame = Keyframe(group.key_raw);
  for (const std::vector<uint8_t>& raw : group.member_raws) {
    group.member_frames.push_back(Member(raw, group.key_raw));
  }
  return group;
}

std::vector<uint8_t> Restored(FramedGroup& restorer, std::span<const uint8_t> frame,
                              bool is_keyframe, const ObjectWanted* wanted = nullptr) {
  Result<std::vector<uint8_t>> raw =
      restorer.Restore(testing::FramedMember(frame, is_keyframe), wanted);
  EXPECT_TRUE(raw.ok()) << raw.error();
  return raw.ok() ? std::move(*raw) : std::vector<uint8_t>{};
}

// The title indexes of `partial`'s objects, in order; each has the bytes of the object with its
// title index in `whole`, and the header's other fields are `whole`'s.
std::vector<uint32_t> SameObjects(std::span<const uint8_t> whole,
                                  std::span<const uint8_t> partial) {
  std::vector<uint32_t> indexes = ExpectSameObjects(whole, partial);
  Result<SnapshotReader> original = SnapshotReader::Open(whole);
  Result<SnapshotReader> reader = SnapshotReader::Open(partial);
  if (!original.ok() || !reader.ok()) return indexes;  // ExpectSameObjects has said so
  EXPECT_EQ(reader->total_byte_length(), partial.size());
  EXPECT_EQ(reader->system_time(), original->system_time());
  EXPECT_EQ(reader->system_name(), original->system_name());
  return indexes;
}

TEST(FramedGroupTest, KeyframeAndMembersRestoreExactly) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  EXPECT_EQ(restorer.keyframe_id(), 7);
  for (size_t i = 0; i < group.member_frames.size(); ++i) {
    EXPECT_EQ(Restored(restorer, group.member_frames[i], false), group.member_raws[i])
        << "member " << i;
  }
  // The keyframe after its members (its sections are decoded by now), and once more.
  EXPECT_EQ(Restored(restorer, group.key_frame, true), group.key_raw);
  EXPECT_EQ(Restored(restorer, group.key_frame, true), group.key_raw);
  // A fresh restorer, keyframe first.
  FramedGroup fresh(7, group.key_frame);
  EXPECT_EQ(Restored(fresh, group.key_frame, true), group.key_raw);
  EXPECT_EQ(Restored(fresh, group.member_frames[0], false), group.member_raws[0]);
}

TEST(FramedGroupTest, PartialRestoreGivesTheHeaderAndTheWantedObjectsSection) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  const ObjectWanted processor = Wants({ti::kProcessor});
  // Processor's section neighbours come along; Process, Thread and the disks do not.
  std::vector<uint8_t> partial = Restored(restorer, group.member_frames[0], false, &processor);
  EXPECT_THAT(SameObjects(group.member_raws[0], partial),
              ElementsAre(ti::kSystem, ti::kMemory, ti::kProcessor));
  EXPECT_LT(partial.size(), group.member_raws[0].size() / 4);

  const ObjectWanted physical = Wants({ti::kPhysicalDisk});
  partial = Restored(restorer, group.member_frames[1], false, &physical);
  EXPECT_THAT(SameObjects(group.member_raws[1], partial), ElementsAre(ti::kPhysicalDisk));
}

TEST(FramedGroupTest, PartialRestoreOfAChildBringsItsParent) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  const ObjectWanted thread = Wants({ti::kThread});
  std::vector<uint8_t> partial = Restored(restorer, group.member_frames[2], false, &thread);
  EXPECT_THAT(SameObjects(group.member_raws[2], partial), ElementsAre(ti::kProcess, ti::kThread));
  const ObjectWanted logical = Wants({ti::kLogicalDisk});
  partial = Restored(restorer, group.member_frames[2], false, &logical);
  EXPECT_THAT(SameObjects(group.member_raws[2], partial),
              ElementsAre(ti::kNetworkInterface, ti::kPhysicalDisk, ti::kLogicalDisk));
}

TEST(FramedGroupTest, PartialRestoreOfTheKeyframe) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  const ObjectWanted process = Wants({ti::kProcess});
  std::vector<uint8_t> partial = Restored(restorer, group.key_frame, true, &process);
  EXPECT_THAT(SameObjects(group.key_raw, partial), ElementsAre(ti::kProcess));
  // The sections decoded for it serve the whole keyframe too.
  EXPECT_EQ(Restored(restorer, group.key_frame, true), group.key_raw);
}

TEST(FramedGroupTest, PartialRestoreOfSectionsTheSameAsTheirBase) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  const ObjectWanted thread = Wants({ti::kThread});
  std::vector<uint8_t> partial = Restored(restorer, group.member_frames[5], false, &thread);
  EXPECT_THAT(SameObjects(group.key_raw, partial), ElementsAre(ti::kProcess, ti::kThread));
}

TEST(FramedGroupTest, WantingEveryObjectRestoresTheExactBytes) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  const ObjectWanted all = [](uint32_t) { return true; };
  EXPECT_EQ(Restored(restorer, group.member_frames[0], false, &all), group.member_raws[0]);
  EXPECT_EQ(Restored(restorer, group.key_frame, true, &all), group.key_raw);
  // With a tail, every object is not every section: the tail is left out.
  std::vector<uint8_t> partial = Restored(restorer, group.member_frames[3], false, &all);
  EXPECT_EQ(partial.size(), group.member_raws[3].size() - 16);
  EXPECT_THAT(SameObjects(group.member_raws[3], partial),
              ElementsAre(ti::kSystem, ti::kMemory, ti::kProcessor, ti::kProcess, ti::kThread,
                          ti::kPhysicalDisk, ti::kLogicalDisk));
}

TEST(FramedGroupTest, AOneSectionSnapshotRestoresWholeEvenWhenPartOfItIsWanted) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  const ObjectWanted processor = Wants({ti::kProcessor});
  EXPECT_EQ(Restored(restorer, group.member_frames[4], false, &processor), group.member_raws[4]);
}

TEST(FramedGroupTest, SectionedKeyframeGivesTheRawBytesAndTheSections) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  auto keyframe = restorer.SectionedKeyframe();
  ASSERT_TRUE(keyframe.ok()) << keyframe.error();
  ASSERT_TRUE(keyframe->has_value());
  EXPECT_EQ((*keyframe)->first, group.key_raw);
  EXPECT_EQ((*keyframe)->second, SectionsOf(group.key_raw));
}

TEST(FramedGroupTest, OldWholeSnapshotFramesRestoreExactly) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = HostSnapshot(1);
  std::vector<uint8_t> grown = HostSnapshot(2, {.processes = 64});
  std::vector<uint8_t> key_frame = EncodeDelta({}, key);
  FramedGroup restorer(3, key_frame);
  EXPECT_EQ(Restored(restorer, EncodeDelta(key, member), false), member);
  EXPECT_EQ(Restored(restorer, EncodeDelta(key, grown), false), grown);
  EXPECT_EQ(Restored(restorer, key_frame, true), key);
  // No sections: a wanted object still gets the whole snapshot.
  const ObjectWanted processor = Wants({ti::kProcessor});
  EXPECT_EQ(Restored(restorer, EncodeDelta(key, member), false, &processor), member);
  EXPECT_EQ(Restored(restorer, key_frame, true, &processor), key);
  // And the keyframe is no base for sectioned deltas.
  auto sectioned = restorer.SectionedKeyframe();
  ASSERT_TRUE(sectioned.ok()) << sectioned.error();
  EXPECT_FALSE(sectioned->has_value());
}

void ExpectDataLoss(const Status& status, const std::string& part) {
  EXPECT_EQ(status.code(), StatusCode::kDataLoss) << status.message();
  EXPECT_THAT(status.message(), HasSubstr(part));
}

TEST(FramedGroupTest, OldWholeMemberOfASectionedKeyframeIsDataLoss) {
  std::vector<uint8_t> key = HostSnapshot(0);
  FramedGroup restorer(3, Keyframe(key));
  Result<std::vector<uint8_t>> raw =
      restorer.Restore(testing::FramedMember(EncodeDelta(key, HostSnapshot(1)), false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "whole-snapshot delta against a sectioned keyframe");
}

TEST(FramedGroupTest, SectionedMemberOfAnOldWholeKeyframeIsDataLoss) {
  std::vector<uint8_t> key = HostSnapshot(0);
  FramedGroup restorer(3, EncodeDelta({}, key));
  Result<std::vector<uint8_t>> raw =
      restorer.Restore(testing::FramedMember(Member(HostSnapshot(1), key), false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(),
                 "keyframe: sectioned frame: its tag at byte 0 is not a sectioned frame's");
}

// Hostile frames.

// The tag, then `numbers` as varints: a hand-made sectioned frame (a method below 128 is the
// same byte either way).
std::vector<uint8_t> Frame(std::initializer_list<uint64_t> numbers) {
  std::vector<uint8_t> out = {'P', 'H', 'S', 1};
  for (uint64_t number : numbers) PutVarint(out, number);
  return out;
}

std::vector<uint8_t> Plus(std::vector<uint8_t> bytes, std::initializer_list<uint8_t> more) {
  bytes.insert(bytes.end(), more);
  return bytes;
}

Status ParseError(std::span<const uint8_t> frame) {
  Result<SectionedFrame> parsed = ParseSectionedFrame(frame);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? Status() : parsed.status();
}

// The errors a restorer gives for `frame`, as a member of a valid group and as a keyframe, each
// restored whole and for Processor only.
std::vector<Status> RestoreErrors(std::span<const uint8_t> frame) {
  std::vector<Status> errors;
  FramedGroup group(1, Keyframe(HostSnapshot(0)));
  FramedGroup alone(2, Vec(frame));
  const ObjectWanted processor = Wants({ti::kProcessor});
  for (auto [restorer, is_keyframe] : {std::pair{&group, false}, std::pair{&alone, true}}) {
    for (const ObjectWanted* wanted : {static_cast<const ObjectWanted*>(nullptr), &processor}) {
      Result<std::vector<uint8_t>> raw =
          restorer->Restore(testing::FramedMember(frame, is_keyframe), wanted);
      EXPECT_FALSE(raw.ok()) << (is_keyframe ? "as a keyframe" : "as a member");
      if (!raw.ok()) errors.push_back(raw.status());
    }
  }
  return errors;
}

// `frame` is refused by the parser and by restorers, as DATA_LOSS with `part` in the message.
void ExpectHostile(std::span<const uint8_t> frame, const std::string& part) {
  SCOPED_TRACE(part);
  ExpectDataLoss(ParseError(frame), part);
  for (const Status& error : RestoreErrors(frame)) ExpectDataLoss(error, part);
}

TEST(SectionedFrameHostileTest, EveryTruncationOfAFrameIsDataLoss) {
  std::vector<uint8_t> frame = Member(HostSnapshot(1), HostSnapshot(0));
  for (size_t size = 0; size < frame.size(); ++size) {
    Result<SectionedFrame> parsed = ParseSectionedFrame(std::span(frame).first(size));
    ASSERT_FALSE(parsed.ok()) << size << " bytes";
    EXPECT_EQ(parsed.status().code(), StatusCode::kDataLoss) << size << " bytes";
    EXPECT_FALSE(parsed.error().empty());
  }
}

TEST(SectionedFrameHostileTest, TableEndingInsideANumber) {
  // The six bytes an entry needs at least are there, but the body size's varint goes on.
  ExpectHostile(Plus(Frame({1}), {0x88, 0x01, 0x00, 0x00, 0x85, 0x80}),
                "section 0: sectioned frame: the table ends inside a body size");
  // Two one-byte indexes fit the count check; the first takes two bytes.
  ExpectHostile(Plus(Frame({1, 8, 0, 0, 1, 2, 0}), {0xE6, 0x01}),
                "the table ends inside an object index");
}

TEST(SectionedFrameHostileTest, NumbersWiderThan32Bits) {
  ExpectHostile(Plus(Frame({}), {0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0, 0, 0, 0, 0, 0}),
                "the section count at byte 9 is not a 32-bit number");
  ExpectHostile(Plus(Frame({}), {0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0, 0, 0, 0, 0}),
                "the section count at byte 9 is not a 32-bit number");
  ExpectHostile(Plus(Frame({1}), {0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0, 0, 0}),
                "a section size at byte 10 is not a 32-bit number");
}

TEST(SectionedFrameHostileTest, SectionCountTooLarge) {
  ExpectHostile(Frame({0xFFFFFFFF, 8, 0, 0, 1, 0, 0}),
                "section count 4294967295 does not fit in 15 bytes");
  // Each entry takes at least six bytes: the ten after the count hold one.
  ExpectHostile(Frame({2, 8, 0, 0, 1, 0, 0, 0, 0, 0, 0}), "section count 2 does not fit");
  ExpectHostile(Frame({0, 0, 0, 0, 0, 0, 0}), "section count 0 does not fit");
}

TEST(SectionedFrameHostileTest, EntriesThatDoNotHoldTogether) {
  const std::pair<std::vector<uint8_t>, std::string> cases[] = {
      {Frame({1, 0, 0, 0, 1, 0, 0, 0x2A}), "size 0, method 0, base 0, body 1 bytes"},
      {Frame({1, 8, 0, 1, 1, 0, 0, 0x2A}), "size 8, method 0, base 1, body 1 bytes"},
      {Frame({1, 8, 1, 0, 1, 0, 0, 0x2A}), "size 8, method 1, base 0, body 1 bytes"},
      {Frame({1, 8, 2, 1, 0, 0, 0}), "size 8, method 2, base 1, body 0 bytes"},
      {Frame({1, 8, 3, 1, 1, 0, 0, 0x2A}), "size 8, method 3, base 1, body 1 bytes"},
      {Frame({1, 8, 3, 0, 0, 0, 0}), "size 8, method 3, base 0, body 0 bytes"},
  };
  for (const auto& [frame, part] : cases) ExpectHostile(frame, part + " do not hold together");
  ExpectHostile(Frame({1, 8, 4, 1, 1, 0, 0, 0x2A}),
                "section 0 (table byte 5) has unknown method 4");
  ExpectHostile(Plus(Frame({1, 8}), {0xFF, 1, 1, 0, 0, 0xAA}),
                "section 0 (table byte 5) has unknown method 255");
}

TEST(SectionedFrameHostileTest, IndexListsLongerThanTheFrame) {
  ExpectHostile(Frame({1, 8, 0, 0, 1, 3, 0, 5, 6}),
                "section 0 (table byte 5) lists 3 title indexes, more than the frame holds");
  ExpectHostile(Frame({1, 8, 0, 0, 1, 0xFFFFFFFF, 0xFFFFFFFF}), "lists 8589934590 title indexes");
}

TEST(SectionedFrameHostileTest, IndexCountsThatWouldWrapA32BitSumAreRejected) {
  // 0xFFFFFFFF + 1 is 0 in 32 bits.
  ExpectHostile(Frame({1, 8, 0, 0, 1, 0xFFFFFFFF, 1}), "lists 4294967296 title indexes");
}

TEST(SectionedFrameHostileTest, BodyRunningPastTheEnd) {
  ExpectHostile(Plus(Frame({1, 8, 0, 0, 100, 0, 0}), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
                "section 0's 100-byte body at byte 11 runs past the end");
  ExpectHostile(Frame({1, 8, 0, 0, 0xFFFFFFFF, 0, 0}),
                "section 0's 4294967295-byte body at byte 15 runs past the end");
  // A real frame whose last body claims one byte more than is left.
  Table table = ReadTable(Keyframe(HostSnapshot(0)));
  table.entries.back().body += 1;
  ExpectHostile(WriteTable(table), "section 5's");
}

TEST(SectionedFrameHostileTest, BytesAfterTheLastSection) {
  std::vector<uint8_t> frame = Keyframe(HostSnapshot(0));
  frame.push_back(0);
  ExpectHostile(frame, "1 bytes after the last section");
  ExpectHostile(Frame({1, 8, 0, 0, 1, 0, 0, 0x2A, 0x3B, 0x4C}), "2 bytes after the last section");
}

TEST(SectionedFrameHostileTest, SectionsRestoringPastTheSizeLimit) {
  const uint64_t limit = kMaxSnapshotBytes;
  ExpectHostile(Frame({1, limit + 1, 0, 0, 1, 0, 0, 0x2A}),
                "sections restore to more than 268435456 bytes");
  // Each under the limit, together over it; and together over 32 bits.
  ExpectHostile(Frame({2, limit / 2 + 1, 0, 0, 1, 0, 0, limit / 2, 0, 0, 1, 0, 0, 0x2A, 0x3B}),
                "sections restore to more than");
  ExpectHostile(Frame({2, 0xFFFFFFFF, 0, 0, 1, 0, 0, 0xFFFFFFFF, 0, 0, 1, 0, 0, 0x2A, 0x3B}),
                "sections restore to more than");
  // Exactly the limit parses (the body fails when decoded, without allocating the limit).
  EXPECT_TRUE(ParseSectionedFrame(Frame({1, limit, 0, 0, 1, 0, 0, 0x2A})).ok());
  for (const Status& error : RestoreErrors(Frame({1, limit, 0, 0, 1, 0, 0, 0x2A}))) {
    EXPECT_EQ(error.code(), StatusCode::kDataLoss) << error.message();
  }
}

TEST(SectionedFrameHostileTest, DeltaAgainstASectionTheKeyframeLacks) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = Member(HostSnapshot(1), key);
  FramedGroup restorer(1, Keyframe(key));
  for (uint64_t base : {6u, 7u, 0xFFFFFFFEu}) {
    Table table = ReadTable(member);
    table.entries[2].base_plus_one = base + 1;
    Result<std::vector<uint8_t>> raw =
        restorer.Restore(testing::FramedMember(WriteTable(table), false), nullptr);
    ASSERT_FALSE(raw.ok());
    ExpectDataLoss(raw.status(),
                   "a delta against section " + std::to_string(base) + " of a keyframe that has 6");
  }
  // The restorer is still good for the frame as it was.
  EXPECT_EQ(Restored(restorer, member, false), HostSnapshot(1));
}

TEST(SectionedFrameHostileTest, KeyframeSectionNamingABase) {
  std::vector<uint8_t> key = HostSnapshot(0);
  Table table = ReadTable(Keyframe(key));
  table.entries[3].method = 1;  // a word difference from section 0
  table.entries[3].base_plus_one = 1;
  std::vector<uint8_t> key_frame = WriteTable(table);
  FramedGroup restorer(1, key_frame);
  Result<std::vector<uint8_t>> raw =
      restorer.Restore(testing::FramedMember(key_frame, true), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "keyframe section 3 names a base");
  // Members that need that section fail the same way; others still restore.
  std::vector<uint8_t> member = Member(HostSnapshot(1), key);
  raw = restorer.Restore(testing::FramedMember(member, false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "keyframe section 3 names a base");
  const ObjectWanted processor = Wants({ti::kProcessor});
  EXPECT_THAT(SameObjects(HostSnapshot(1), Restored(restorer, member, false, &processor)),
              ElementsAre(ti::kSystem, ti::kMemory, ti::kProcessor));
}

TEST(SectionedFrameHostileTest, SectionSizeDisagreeingWithItsBody) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = Member(HostSnapshot(1), key);
  FramedGroup restorer(1, Keyframe(key));
  // Longer in the table than the body holds.
  Table table = ReadTable(member);
  table.entries[1].size += 8;
  Result<std::vector<uint8_t>> raw =
      restorer.Restore(testing::FramedMember(WriteTable(table), false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "section 1: ");
  EXPECT_THAT(raw.error(), HasSubstr("bytes of content where " +
                                     std::to_string(table.entries[1].size) + " are expected"));
  // Shorter: the body declares more than the section may restore.
  table = ReadTable(member);
  table.entries[1].size -= 8;
  raw = restorer.Restore(testing::FramedMember(WriteTable(table), false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "section 1: zstd frame: declares");

  // The same in a keyframe.
  table = ReadTable(Keyframe(key));
  table.entries[2].size += 8;
  std::vector<uint8_t> key_frame = WriteTable(table);
  FramedGroup broken(1, key_frame);
  raw = broken.Restore(testing::FramedMember(key_frame, true), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "section 2: ");
}

TEST(SectionedFrameHostileTest, SameAsBaseSectionWhoseBaseHasAnotherSize) {
  std::vector<uint8_t> key = HostSnapshot(0);
  Table table = ReadTable(Member(key, key));  // every section the same as its base
  table.entries[1].base_plus_one = 3;         // section 1 "the same as" Process
  FramedGroup restorer(1, Keyframe(key));
  Result<std::vector<uint8_t>> raw =
      restorer.Restore(testing::FramedMember(WriteTable(table), false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "section 1: a section of");
  EXPECT_THAT(raw.error(), HasSubstr("bytes the same as a base of"));
}

TEST(SectionedFrameHostileTest, CorruptBodyIsDataLossAndOnlyForReadsThatNeedIt) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = Member(HostSnapshot(1), key);
  SectionedFrame parsed = Parse(member);
  ASSERT_EQ(parsed.bodies.size(), kHostSections);
  // Zero the body of section 2 (Process).
  const size_t at = static_cast<size_t>(parsed.bodies[2].data() - member.data());
  std::vector<uint8_t> frame = member;
  std::fill(frame.begin() + at, frame.begin() + at + parsed.bodies[2].size(), 0);
  FramedGroup restorer(1, Keyframe(key));
  Result<std::vector<uint8_t>> raw = restorer.Restore(testing::FramedMember(frame, false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "section 2: zstd frame");
  // One flipped bit in the middle: the zstd checksum catches what decodes.
  frame = member;
  frame[at + parsed.bodies[2].size() / 2] ^= 0x10;
  raw = restorer.Restore(testing::FramedMember(frame, false), nullptr);
  ASSERT_FALSE(raw.ok());
  ExpectDataLoss(raw.status(), "section 2: zstd frame");
  // A read of Processor does not decode section 2.
  const ObjectWanted processor = Wants({ti::kProcessor});
  EXPECT_THAT(SameObjects(HostSnapshot(1), Restored(restorer, frame, false, &processor)),
              ElementsAre(ti::kSystem, ti::kMemory, ti::kProcessor));
}

TEST(SectionedFrameHostileTest, EveryTableBitFlipGivesAResultOrAnErrorNeverACrash) {
  std::vector<uint8_t> key = HostSnapshot(0);
  std::vector<uint8_t> member = Member(HostSnapshot(1, {.tail = 8}), key);
  std::vector<uint8_t> key_frame = Keyframe(key);
  const ObjectWanted thread = Wants({ti::kThread});
  // The table, and the start of the first body.
  const size_t end = ReadTable(member).end + 24;
  int errors = 0;
  for (size_t at = 0; at < end; ++at) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> frame = member;
      frame[at] ^= static_cast<uint8_t>(1 << bit);
      FramedGroup group(1, key_frame);
      FramedGroup alone(2, frame);
      for (const ObjectWanted* wanted : {static_cast<const ObjectWanted*>(nullptr), &thread}) {
        for (Result<std::vector<uint8_t>> raw :
             {group.Restore(testing::FramedMember(frame, false), wanted),
              alone.Restore(testing::FramedMember(frame, true), wanted)}) {
          if (!raw.ok()) {
            ++errors;
            EXPECT_FALSE(raw.error().empty()) << "byte " << at << " bit " << bit;
          }
        }
      }
    }
  }
  EXPECT_GT(errors, 0);
}

TEST(SectionedFrameHostileTest, AFailedMemberLeavesTheGroupUsable) {
  Group group = MakeGroup();
  FramedGroup restorer(7, group.key_frame);
  std::vector<uint8_t> broken = group.member_frames[0];
  broken.resize(broken.size() - 1);
  ASSERT_FALSE(restorer.Restore(testing::FramedMember(broken, false), nullptr).ok());
  for (size_t i = 0; i < group.member_frames.size(); ++i) {
    EXPECT_EQ(Restored(restorer, group.member_frames[i], false), group.member_raws[i]);
  }
}

TEST(SectionedFrameHostileTest, NotASectionedFrameIsAnErrorWithAMessage) {
  // Bytes whose tag names no encoding are refused by the tag's one reader, whatever the group.
  for (const std::vector<uint8_t>& frame :
       {std::vector<uint8_t>{}, std::vector<uint8_t>{'P', 'H', 'S'},
        std::vector<uint8_t>(64, 0xEE)}) {
    FramedGroup alone(1, frame);
    Result<std::vector<uint8_t>> raw = alone.Restore(testing::FramedMember(frame, true), nullptr);
    ASSERT_FALSE(raw.ok());
    EXPECT_EQ(raw.status().code(), StatusCode::kDataLoss);
    EXPECT_THAT(raw.error(), HasSubstr("the tag of no encoding this version reads"));
    FramedGroup group(1, EncodeDelta({}, HostSnapshot(0)));
    raw = group.Restore(testing::FramedMember(frame, false), nullptr);
    ASSERT_FALSE(raw.ok());
    EXPECT_THAT(raw.error(), HasSubstr("the tag of no encoding this version reads"));
  }
}

}  // namespace
}  // namespace perfhive
