// GroupDecoder: the one codec interface through which the store restores what it keeps. Snapshots
// are kept in groups of one host and query (store/store.h); a group is opened from the bytes
// stored under its keyframe, and FrameEncodingOf (store/frame_encoding.h) says which codec reads
// them: a keyframe's frame, whose members have frames of their own (sectioned frames, or
// whole-snapshot delta frames in stores written before sections), or a closed group's columnar
// block, which holds every member. Reads, ReadSnapshot and compaction all restore through it.

#ifndef PERFHIVE_STORE_GROUP_DECODER_H_
#define PERFHIVE_STORE_GROUP_DECODER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"

namespace perfhive {

// Whether a read wants the object with this title index.
using ObjectWanted = std::function<bool(uint32_t title_index)>;

// One snapshot of a group, as its row in the store places it.
struct GroupMember {
  bool is_keyframe = false;
  // Its own frame; empty for the keyframe (the group's own bytes are its frame) and for a
  // compacted group's members.
  std::span<const uint8_t> frame = {};
  // Its place in the group's columnar block; -1: it has a frame.
  int64_t block_index = -1;
  // Members of one read with the same number here are asked for with the same `wanted` (the
  // same title databases): a block chooses the pieces they need once. kNoWantedRun: alone.
  uint32_t wanted_run = UINT32_MAX;
};
inline constexpr uint32_t kNoWantedRun = UINT32_MAX;

class GroupDecoder {
 public:
  virtual ~GroupDecoder() = default;

  int64_t keyframe_id() const { return keyframe_id_; }

  // The member's snapshot: its exact raw bytes, or with `wanted` a partial snapshot where the
  // encoding allows one: the header, counting only the objects restored, then the wanted
  // objects and their parents (store/snapshot_sections.h). Errors are DATA_LOSS.
  virtual Result<std::vector<uint8_t>> Restore(const GroupMember& member,
                                               const ObjectWanted* wanted) = 0;

 protected:
  explicit GroupDecoder(int64_t keyframe_id) : keyframe_id_(keyframe_id) {}

 private:
  int64_t keyframe_id_;
};

// The decoder of the group whose keyframe is `keyframe_id`, given the bytes stored under it.
// DATA_LOSS when they are not a frame or block this version reads.
Result<std::unique_ptr<GroupDecoder>> OpenGroup(int64_t keyframe_id, std::vector<uint8_t> stored);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_GROUP_DECODER_H_
