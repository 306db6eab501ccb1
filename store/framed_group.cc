#include "store/framed_group.h"

#include <string>
#include <utility>

#include "codec/snapshot_delta.h"

namespace perfhive {

Result<const SectionedFrame*> FramedGroup::KeyframeTable() {
  if (!keyframe_table_) {
    Result<SectionedFrame> table = ParseSectionedFrame(keyframe_frame_);
    if (!table.ok()) return table.status().Prefixed("keyframe: ");
    keyframe_table_ = std::move(*table);
    keyframe_sections_.assign(keyframe_table_->sections.size(), std::nullopt);
  }
  return &*keyframe_table_;
}

Result<std::span<const uint8_t>> FramedGroup::KeyframeSection(uint32_t index) {
  Result<const SectionedFrame*> table = KeyframeTable();
  if (!table.ok()) return table.status();
  if (index >= (*table)->sections.size()) {
    return Status::DataLoss("a delta against section " + std::to_string(index) +
                            " of a keyframe that has " + std::to_string((*table)->sections.size()));
  }
  std::optional<std::vector<uint8_t>>& decoded = keyframe_sections_[index];
  if (!decoded) {
    if ((*table)->bases[index] != kNoBaseSection) {
      return Status::DataLoss("keyframe section " + std::to_string(index) + " names a base");
    }
    Result<std::vector<uint8_t>> bytes = DecodeSection(**table, index, {});
    if (!bytes.ok()) {
      return bytes.status().Prefixed("keyframe section " + std::to_string(index) + ": ");
    }
    decoded = std::move(*bytes);
  }
  return std::span<const uint8_t>(*decoded);
}

Result<std::span<const uint8_t>> FramedGroup::WholeKeyframe() {
  if (!whole_keyframe_) {
    Result<std::vector<uint8_t>> whole =
        RestoreFrame(keyframe_frame_, /*is_keyframe=*/true, nullptr);
    if (!whole.ok()) return whole.status();
    whole_keyframe_ = std::move(*whole);
  }
  return std::span<const uint8_t>(*whole_keyframe_);
}

Result<std::optional<std::pair<std::vector<uint8_t>, std::vector<SnapshotSection>>>>
FramedGroup::SectionedKeyframe() {
  using Keyframe = std::pair<std::vector<uint8_t>, std::vector<SnapshotSection>>;
  Result<FrameEncoding> encoding = KeyframeEncoding();
  if (!encoding.ok()) return encoding.status();
  if (*encoding != FrameEncoding::kSectioned) return std::optional<Keyframe>();
  Result<const SectionedFrame*> table = KeyframeTable();
  if (!table.ok()) return table.status();
  Result<std::span<const uint8_t>> whole = WholeKeyframe();
  if (!whole.ok()) return whole.status();
  return std::optional<Keyframe>(
      Keyframe(std::vector<uint8_t>(whole->begin(), whole->end()), (*table)->sections));
}

Result<std::vector<uint8_t>> FramedGroup::Restore(const GroupMember& member,
                                                  const ObjectWanted* wanted) {
  if (member.block_index >= 0) {
    return Status::DataLoss("snapshot " + std::to_string(member.block_index) +
                            " of a columnar block, in a group kept as frames");
  }
  if (member.is_keyframe && member.frame.empty()) {
    return RestoreFrame(keyframe_frame_, /*is_keyframe=*/true, wanted);
  }
  return RestoreFrame(member.frame, member.is_keyframe, wanted);
}

Result<FrameEncoding> FramedGroup::KeyframeEncoding() {
  Result<FrameEncoding> encoding = FrameEncodingOf(keyframe_frame_);
  if (!encoding.ok()) return encoding.status().Prefixed("keyframe: ");
  return encoding;
}

Result<std::vector<uint8_t>> FramedGroup::RestoreFrame(std::span<const uint8_t> frame,
                                                       bool is_keyframe,
                                                       const ObjectWanted* wanted) {
  Result<FrameEncoding> encoding = FrameEncodingOf(frame);
  if (!encoding.ok()) return encoding.status();
  if (*encoding == FrameEncoding::kColumns) {
    return Status::DataLoss("a columnar block as one member's frame");
  }
  if (*encoding == FrameEncoding::kWholeDelta) {
    // A whole-snapshot frame, from a store written before sections.
    std::span<const uint8_t> base;
    if (!is_keyframe) {
      Result<FrameEncoding> keyframe = KeyframeEncoding();
      if (!keyframe.ok()) return keyframe.status();
      if (*keyframe != FrameEncoding::kWholeDelta) {
        return Status::DataLoss("a whole-snapshot delta against a sectioned keyframe");
      }
      Result<std::span<const uint8_t>> whole = WholeKeyframe();
      if (!whole.ok()) return whole.status();
      base = *whole;
    }
    Result<std::vector<uint8_t>> raw = DecodeDelta(base, frame);
    if (!raw.ok()) return Status::DataLoss(raw.error());
    return raw;
  }
  SectionedFrame& table = frame_table_;
  if (Status s = ParseSectionedFrameInto(frame, table); !s.ok()) return s;
  const std::vector<SnapshotSection>& sections = table.sections;
  std::vector<size_t> chosen;
  if (wanted != nullptr && CanRestorePartially(sections)) {
    chosen = SectionsToRestore(sections, *wanted);
  } else {
    chosen.resize(sections.size());
    for (size_t i = 0; i < sections.size(); ++i) chosen[i] = i;
  }
  // One buffer of the restored size; each section decodes into its place.
  size_t size = 0;
  uint32_t num_objects = 0;
  for (size_t i : chosen) {
    size += sections[i].size;
    num_objects += static_cast<uint32_t>(sections[i].objects.size());
  }
  std::vector<uint8_t> raw(size);
  size_t at = 0;
  for (size_t i : chosen) {
    std::span<uint8_t> out = std::span(raw).subspan(at, sections[i].size);
    at += out.size();
    std::span<const uint8_t> base;
    if (table.bases[i] != kNoBaseSection) {
      // A keyframe's sections decode alone; a member's are made against the keyframe's.
      if (is_keyframe) {
        return Status::DataLoss("keyframe section " + std::to_string(i) + " names a base");
      }
      Result<std::span<const uint8_t>> bytes = KeyframeSection(table.bases[i]);
      if (!bytes.ok()) return bytes.status();
      base = *bytes;
    }
    if (Status s = DecodeSectionInto(table, i, base, out); !s.ok()) {
      return s.Prefixed("section " + std::to_string(i) + ": ");
    }
  }
  if (chosen.size() < sections.size()) PatchPartialHeader(raw, num_objects);
  return raw;
}

}  // namespace perfhive
