// Feeds hostile bytes to the store's frames: to FrameEncodingOf and OpenGroup, the seam every
// read goes through, to ParseSectionedFrame, and to FramedGroup::Restore as a keyframe (a group of
// its own) and as a member of a group whose keyframe is a fixed valid sectioned keyframe
// (store_frame_base.h) or one stored whole before sections, each restored whole and for a few
// objects. Any crash, read outside a buffer or allocation beyond the limit is a bug, and so is a
// result that breaks what the frame promised: a table whose sections do not tile, a whole restore
// of another length than its table's sections, a partial restore whose sections are not the whole
// restore's bytes, a restorer that kept decoded keyframe sections answering otherwise than a fresh
// one, or a restored snapshot that does not come back the same through the encoder, whole and (as a
// valid snapshot) partially. Bytes whose tag says columnar block (store/group_columns.h) go to its
// parser and restorer, directly and through OpenGroup, instead: refused with DATA_LOSS, or
// restoring snapshots of the sizes the table says that restore the same once encoded again. Every
// input is also read as an inventory row and as a block row's members.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "base/byte_order.h"
#include "codec/snapshot_delta.h"
#include "perfdata/snapshot_inventory.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "store/block_members.h"
#include "store/frame_encoding.h"
#include "store/framed_group.h"
#include "store/group_columns.h"
#include "store/group_decoder.h"
#include "store/sectioned_frame.h"
#include "store/snapshot_sections.h"
#include "tests/fuzz/store_frame_base.h"

namespace perfhive {
namespace {

namespace db = winperf::data_block;

// Frames that declare more than this are parsed but not restored: a few bytes of zstd may
// declare hundreds of megabytes, and the time is better spent on the checks below.
constexpr uint64_t kRestoreLimit = 4 * 1024 * 1024;

void Check(bool holds) {
  if (!holds) std::abort();
}

// The fixed group, made once.
struct Fixed {
  std::vector<uint8_t> raw = testing::StoreFrameKeyframeRaw();
  std::vector<SnapshotSection> sections = testing::SectionsOf(raw);
  std::vector<uint8_t> frame = testing::Keyframe(raw);
  std::vector<uint8_t> whole_frame = EncodeDelta({}, raw);  // as stored before sections
  // Kept across inputs, as ReadSnapshots keeps a group while its members come.
  FramedGroup kept{1, frame};
  FramedGroup kept_whole{2, whole_frame};
};

Fixed& TheGroup() {
  static Fixed* fixed = new Fixed;
  return *fixed;
}

const ObjectWanted kProcessor = [](uint32_t index) { return index == title_index::kProcessor; };
const ObjectWanted kThread = [](uint32_t index) { return index == title_index::kThread; };
const ObjectWanted kAll = [](uint32_t) { return true; };
const ObjectWanted* const kWanted[] = {nullptr, &kProcessor, &kThread, &kAll};

// What the table says of a frame that parsed.
void CheckTable(const SectionedFrame& table, std::span<const uint8_t> frame) {
  const size_t count = table.sections.size();
  Check(count > 0 && table.methods.size() == count && table.bases.size() == count &&
        table.bodies.size() == count);
  uint64_t at = 0;
  for (size_t i = 0; i < count; ++i) {
    Check(table.sections[i].offset == at && table.sections[i].size > 0);
    at += table.sections[i].size;
    Check(table.methods[i] <= SectionMethod::kSameAsBase);
    Check((table.methods[i] == SectionMethod::kFull) == (table.bases[i] == kNoBaseSection));
    Check((table.methods[i] == SectionMethod::kSameAsBase) == table.bodies[i].empty());
    Check(table.bodies[i].empty() ||
          (table.bodies[i].data() >= frame.data() &&
           table.bodies[i].data() + table.bodies[i].size() <= frame.data() + frame.size()));
  }
  Check(at <= kMaxSnapshotBytes);
}

uint64_t RestoredSize(const SectionedFrame& table) {
  return uint64_t{table.sections.back().offset} + table.sections.back().size;
}

// A partial restore against the whole one of the same frame.
void CheckPartial(const SectionedFrame& table, const ObjectWanted& wanted,
                  std::span<const uint8_t> whole, std::span<const uint8_t> partial) {
  if (!CanRestorePartially(table.sections)) {
    Check(std::ranges::equal(partial, whole));
    return;
  }
  std::vector<size_t> chosen = SectionsToRestore(table.sections, wanted);
  if (chosen.size() == table.sections.size()) {
    Check(std::ranges::equal(partial, whole));
    return;
  }
  Check(!chosen.empty() && chosen[0] == 0);
  const uint32_t header = table.sections[0].size;
  Check(partial.size() >= header);
  uint32_t objects = 0;
  size_t at = header;
  for (size_t i : chosen) {
    const SnapshotSection& section = table.sections[i];
    objects += static_cast<uint32_t>(section.objects.size());
    if (i == 0) continue;
    Check(partial.size() - at >= section.size);
    Check(std::ranges::equal(partial.subspan(at, section.size),
                             whole.subspan(section.offset, section.size)));
    at += section.size;
  }
  Check(at == partial.size());
  Check(LoadU32(partial.data() + db::kTotalByteLength) == partial.size());
  Check(LoadU32(partial.data() + db::kNumObjectTypes) == objects);
  for (size_t i = 0; i < header; ++i) {
    const bool patched = (i >= db::kTotalByteLength && i < db::kTotalByteLength + 4) ||
                         (i >= db::kNumObjectTypes && i < db::kNumObjectTypes + 4);
    if (!patched) Check(partial[i] == whole[i]);
  }
}

// Restores `frame` whole and for each wanted set with `restorer`, and again with `again` (a
// restorer of the same keyframe in another state), checking each result.
void RestoreEveryWay(FramedGroup& restorer, FramedGroup& again, std::span<const uint8_t> frame,
                     bool is_keyframe, const Result<SectionedFrame>* table) {
  Result<std::vector<uint8_t>> whole =
      restorer.Restore(testing::FramedMember(frame, is_keyframe), nullptr);
  for (const ObjectWanted* wanted : kWanted) {
    Result<std::vector<uint8_t>> first =
        restorer.Restore(testing::FramedMember(frame, is_keyframe), wanted);
    Result<std::vector<uint8_t>> second =
        again.Restore(testing::FramedMember(frame, is_keyframe), wanted);
    Check(first.ok() == second.ok());
    if (!first.ok()) {
      Check(!first.error().empty() && first.status().code() == second.status().code());
      continue;
    }
    Check(*first == *second);
    if (wanted == nullptr) {
      Check(whole.ok() && *whole == *first);
      if (table != nullptr && table->ok()) Check(first->size() == RestoredSize(**table));
    } else if (whole.ok() && table != nullptr && table->ok()) {
      CheckPartial(**table, *wanted, *whole, *first);
    } else if (whole.ok() && table == nullptr) {
      Check(*first == *whole);  // a whole-snapshot frame has no sections to leave out
    }
  }
}

// A snapshot restored from hostile bytes that the reader accepts goes through the encoder and
// back: whole, as a keyframe and as a member of the fixed group, and partially as a valid
// snapshot holding the same objects.
void CheckReencodes(std::span<const uint8_t> raw) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) return;
  std::vector<SnapshotSection> sections = SplitIntoSections(*reader, raw.size());
  uint64_t at = 0;
  for (const SnapshotSection& section : sections) {
    Check(section.offset == at && section.size > 0);
    at += section.size;
  }
  Check(at == raw.size());

  Fixed& group = TheGroup();
  SectionedBase base{group.raw, group.sections};
  std::vector<uint8_t> member = EncodeSectionedFrame(raw, sections, &base, 1);
  std::vector<uint8_t> keyframe = EncodeSectionedFrame(raw, sections, nullptr, 1);
  Result<std::vector<uint8_t>> back =
      group.kept.Restore(testing::FramedMember(member, false), nullptr);
  Check(back.ok() && std::ranges::equal(*back, raw));
  FramedGroup own(3, keyframe);
  back = own.Restore(testing::FramedMember(keyframe, true), nullptr);
  Check(back.ok() && std::ranges::equal(*back, raw));
  Result<std::vector<uint8_t>> partial =
      group.kept.Restore(testing::FramedMember(member, false), &kProcessor);
  Check(partial.ok());
  Result<SnapshotReader> partial_reader = SnapshotReader::Open(*partial);
  Check(partial_reader.ok());
  for (ObjectView object : partial_reader->objects()) {
    std::optional<ObjectView> same = reader->FindObject(object.name_index());
    Check(same.has_value());
    Check(std::ranges::equal(
        std::span(*partial).subspan(object.position(), object.total_byte_length()),
        raw.subspan(same->position(), same->total_byte_length())));
  }
}

// A columnar block: every snapshot whole and for each wanted set, from one parse (streams
// decoded once) and from a fresh one; what restores whole encodes again to the same bytes.
void FuzzColumns(std::span<const uint8_t> block, GroupDecoder& decoder) {
  Result<GroupColumns> parsed = GroupColumns::Parse(block);
  if (!parsed.ok()) {
    Check(parsed.status().code() == StatusCode::kDataLoss && !parsed.error().empty());
    return;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < parsed->size(); ++i) total += parsed->raw_size(i);
  if (total > kRestoreLimit) return;
  std::vector<std::vector<uint8_t>> restored;
  for (size_t i = 0; i < parsed->size(); ++i) {
    Result<std::vector<uint8_t>> whole = parsed->Restore(i);
    Result<GroupColumns> fresh = GroupColumns::Parse(block);
    Check(fresh.ok());
    Result<std::vector<uint8_t>> again = fresh->Restore(i);
    Check(whole.ok() == again.ok());
    if (!whole.ok()) {
      Check(whole.status().code() == StatusCode::kDataLoss);
      continue;
    }
    Check(*whole == *again && whole->size() == parsed->raw_size(i));
    Result<std::vector<uint8_t>> decoded =
        decoder.Restore({.block_index = static_cast<int64_t>(i)}, nullptr);
    Check(decoded.ok() && *decoded == *whole);
    for (uint32_t run = 0; run < std::size(kWanted); ++run) {
      const ObjectWanted* wanted = kWanted[run];
      if (wanted == nullptr) continue;
      Result<std::vector<uint8_t>> partial = parsed->Restore(i, wanted);
      Check(partial.ok() || partial.status().code() == StatusCode::kDataLoss);
      // Through the seam, with the pieces chosen once per recipe and wanted set: the same.
      const GroupMember member{.block_index = static_cast<int64_t>(i), .wanted_run = run};
      Result<std::vector<uint8_t>> piecewise = decoder.Restore(member, wanted);
      Check(piecewise.ok() == partial.ok() && (!partial.ok() || *piecewise == *partial));
    }
    restored.push_back(std::move(whole).value());
  }
  std::vector<std::span<const uint8_t>> spans(restored.begin(), restored.end());
  if (spans.empty()) return;
  std::vector<uint8_t> encoded = EncodeGroupColumns(spans, 1);
  Result<GroupColumns> back = GroupColumns::Parse(encoded);
  Check(back.ok() && back->size() == spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    Result<std::vector<uint8_t>> same = back->Restore(i);
    Check(same.ok() && std::ranges::equal(*same, spans[i]));
  }
}

// The same bytes as an inventory row (perfdata/snapshot_inventory.h): refused with DATA_LOSS, or
// an inventory of strictly increasing indexes that comes back the same through the encoder.
void FuzzInventory(std::span<const uint8_t> bytes) {
  Result<SnapshotInventory> inventory = DecodeInventory(bytes);
  if (!inventory.ok()) {
    Check(inventory.status().code() == StatusCode::kDataLoss && !inventory.error().empty());
    return;
  }
  for (size_t i = 0; i < inventory->objects.size(); ++i) {
    const std::vector<uint32_t>& counters = inventory->objects[i].counters;
    Check(i == 0 || inventory->objects[i - 1].index < inventory->objects[i].index);
    Check(std::adjacent_find(counters.begin(), counters.end(), std::greater_equal<uint32_t>()) ==
          counters.end());
  }
  Result<SnapshotInventory> again = DecodeInventory(EncodeInventory(*inventory));
  Check(again.ok() && *again == *inventory);
}

// The same bytes as a block row's members (store/block_members.h): refused with DATA_LOSS, or
// members that come back the same through the encoder.
void FuzzBlockMembers(std::span<const uint8_t> bytes) {
  Result<std::vector<BlockMember>> members = DecodeBlockMembers(bytes);
  if (!members.ok()) {
    Check(members.status().code() == StatusCode::kDataLoss && !members.error().empty());
    return;
  }
  Result<std::vector<BlockMember>> again = DecodeBlockMembers(EncodeBlockMembers(*members));
  Check(again.ok() && *again == *members);
}

void FuzzOne(std::span<const uint8_t> frame) {
  FuzzInventory(frame);
  FuzzBlockMembers(frame);
  Result<FrameEncoding> encoding = FrameEncodingOf(frame);
  Result<std::unique_ptr<GroupDecoder>> opened =
      OpenGroup(5, std::vector<uint8_t>(frame.begin(), frame.end()));
  Check(opened.ok() == encoding.ok());
  if (encoding.ok() && *encoding == FrameEncoding::kColumns) {
    FuzzColumns(frame, **opened);
    return;
  }
  Fixed& group = TheGroup();

  const bool sectioned = encoding.ok() && *encoding == FrameEncoding::kSectioned;
  Result<SectionedFrame> table = ParseSectionedFrame(frame);
  if (table.ok()) {
    CheckTable(*table, frame);
    if (RestoredSize(*table) > kRestoreLimit) return;
  } else {
    Check(table.status().code() == StatusCode::kDataLoss && !table.error().empty());
    // A whole-snapshot frame declares its size at byte 8.
    if (!sectioned && frame.size() >= 12 && LoadU32(frame.data() + 8) > kRestoreLimit) return;
  }
  const Result<SectionedFrame>* parsed = sectioned ? &table : nullptr;

  // A member of the sectioned group: the kept restorer and a fresh one agree.
  FramedGroup fresh(1, group.frame);
  RestoreEveryWay(group.kept, fresh, frame, false, parsed);
  // A member of a group stored before sections.
  FramedGroup fresh_whole(2, group.whole_frame);
  RestoreEveryWay(group.kept_whole, fresh_whole, frame, false, parsed);
  // A keyframe: its own group, restored twice (the second time from decoded sections).
  FramedGroup alone(4, std::vector<uint8_t>(frame.begin(), frame.end()));
  FramedGroup alone_again(4, std::vector<uint8_t>(frame.begin(), frame.end()));
  RestoreEveryWay(alone, alone_again, frame, true, parsed);
  auto keyframe = alone.SectionedKeyframe();
  if (keyframe.ok() && keyframe->has_value()) {
    Result<std::vector<uint8_t>> whole = alone.Restore(testing::FramedMember(frame, true), nullptr);
    Check(whole.ok() && *whole == (*keyframe)->first);
    Check(table.ok() && (*keyframe)->second == table->sections);
  }

  Result<std::vector<uint8_t>> member =
      group.kept.Restore(testing::FramedMember(frame, false), nullptr);
  if (member.ok()) CheckReencodes(*member);
  Result<std::vector<uint8_t>> own = alone.Restore(testing::FramedMember(frame, true), nullptr);
  if (own.ok()) CheckReencodes(*own);
}

}  // namespace
}  // namespace perfhive

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  perfhive::FuzzOne(std::span<const uint8_t>(data, size));
  return 0;
}
