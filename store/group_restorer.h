// GroupRestorer: restores the snapshots of one group (a keyframe and the deltas made against it)
// from their stored frames, whole or only the objects a read wants, decoding each of the
// keyframe's sections at most once however many members need it. It reads both kinds of frame:
// sectioned frames (store/sectioned_frame.h) and the whole-snapshot delta frames that stores
// written before sections hold.

#ifndef PERFHIVE_STORE_GROUP_RESTORER_H_
#define PERFHIVE_STORE_GROUP_RESTORER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "store/sectioned_frame.h"

namespace perfhive {

// Whether a read wants the object with this title index.
using ObjectWanted = std::function<bool(uint32_t title_index)>;

class GroupRestorer {
 public:
  GroupRestorer(int64_t keyframe_id, std::vector<uint8_t> keyframe_frame)
      : keyframe_id_(keyframe_id), keyframe_frame_(std::move(keyframe_frame)) {}
  // The parsed table points into the keyframe's bytes: a copy would point into the original's.
  // A move keeps the bytes where they are.
  GroupRestorer(const GroupRestorer&) = delete;
  GroupRestorer& operator=(const GroupRestorer&) = delete;
  GroupRestorer(GroupRestorer&&) = default;
  GroupRestorer& operator=(GroupRestorer&&) = default;

  int64_t keyframe_id() const { return keyframe_id_; }

  // The keyframe's raw bytes and sections, as a base for new deltas; a keyframe stored whole
  // (before sections) has none, and is not one.
  Result<std::optional<std::pair<std::vector<uint8_t>, std::vector<SnapshotSection>>>>
  SectionedKeyframe();

  // The group's snapshot stored as `frame`: a keyframe (`is_keyframe`: every section decodes
  // alone) or a member, whose sections are made against the keyframe's. With `wanted`, a
  // partial snapshot when the frame allows one: the header, counting only the objects
  // restored, then the sections holding wanted objects and their parents. Otherwise, or when
  // every section is wanted, the exact raw bytes. Errors are DATA_LOSS.
  Result<std::vector<uint8_t>> Restore(std::span<const uint8_t> frame, bool is_keyframe,
                                       const ObjectWanted* wanted);

 private:
  Result<const SectionedFrame*> KeyframeTable();
  Result<std::span<const uint8_t>> KeyframeSection(uint32_t index);
  Result<std::span<const uint8_t>> WholeKeyframe();

  int64_t keyframe_id_;
  std::vector<uint8_t> keyframe_frame_;
  std::optional<SectionedFrame> keyframe_table_;  // parsed on first use; spans keyframe_frame_
  std::vector<std::optional<std::vector<uint8_t>>> keyframe_sections_;  // decoded on first use
  std::optional<std::vector<uint8_t>> whole_keyframe_;
  SectionedFrame frame_table_;  // the last restored frame's, kept for its lists' room
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_GROUP_RESTORER_H_
