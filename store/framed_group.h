// FramedGroup: the decoder of a group whose snapshots each have a frame (a keyframe and the
// deltas made against it), whole or only the objects a read wants, decoding each of the
// keyframe's sections at most once however many members need it. It reads both frame
// encodings: sectioned frames (store/sectioned_frame.h) and the whole-snapshot delta frames that
// stores written before sections hold. The append path also takes a group's keyframe from it,
// as the base of the next member's sections.

#ifndef PERFHIVE_STORE_FRAMED_GROUP_H_
#define PERFHIVE_STORE_FRAMED_GROUP_H_

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "store/frame_encoding.h"
#include "store/group_decoder.h"
#include "store/sectioned_frame.h"

namespace perfhive {

class FramedGroup : public GroupDecoder {
 public:
  FramedGroup(int64_t keyframe_id, std::vector<uint8_t> keyframe_frame)
      : GroupDecoder(keyframe_id), keyframe_frame_(std::move(keyframe_frame)) {}
  // The parsed table points into the keyframe's bytes: a copy would point into the original's.
  FramedGroup(const FramedGroup&) = delete;
  FramedGroup& operator=(const FramedGroup&) = delete;

  // The keyframe's raw bytes and sections, as a base for new deltas; a keyframe stored whole
  // (before sections) has none, and is not one.
  Result<std::optional<std::pair<std::vector<uint8_t>, std::vector<SnapshotSection>>>>
  SectionedKeyframe();

  // A member's frame (the keyframe's own when it is the keyframe and gives none): a keyframe's
  // sections each decode alone, a member's are made against the keyframe's. With `wanted`, a
  // partial snapshot when the frame allows one; otherwise, or when every section is wanted, the
  // exact raw bytes.
  Result<std::vector<uint8_t>> Restore(const GroupMember& member,
                                       const ObjectWanted* wanted) override;

 private:
  Result<std::vector<uint8_t>> RestoreFrame(std::span<const uint8_t> frame, bool is_keyframe,
                                            const ObjectWanted* wanted);
  Result<const SectionedFrame*> KeyframeTable();
  Result<std::span<const uint8_t>> KeyframeSection(uint32_t index);
  Result<std::span<const uint8_t>> WholeKeyframe();
  Result<FrameEncoding> KeyframeEncoding();

  std::vector<uint8_t> keyframe_frame_;
  std::optional<SectionedFrame> keyframe_table_;  // parsed on first use; spans keyframe_frame_
  std::vector<std::optional<std::vector<uint8_t>>> keyframe_sections_;  // decoded on first use
  std::optional<std::vector<uint8_t>> whole_keyframe_;
  SectionedFrame frame_table_;  // the last restored frame's, kept for its lists' room
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_FRAMED_GROUP_H_
