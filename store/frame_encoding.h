// FrameEncoding: how the bytes the store keeps for a snapshot, or for a whole group, are
// encoded. Every stored frame says it in its first four bytes, its tag: 'P', 'H', a letter
// naming the encoding and the encoding's version. FrameEncodingOf is the one reader of the tag;
// the store's reads go from it to that encoding's codec (store/group_decoder.h), and an encoder
// writes it with AppendFrameTag. The tags are listed in docs/store_format.md, "Frames".

#ifndef PERFHIVE_STORE_FRAME_ENCODING_H_
#define PERFHIVE_STORE_FRAME_ENCODING_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace perfhive {

enum class FrameEncoding : uint8_t {
  // "PHD" 1: a delta frame of the whole snapshot (codec/snapshot_delta.h), as the agent sends
  // it; what stores written before sections hold.
  kWholeDelta,
  // "PHS" 1: a sectioned frame (store/sectioned_frame.h), what an append writes.
  kSectioned,
  // "PHC" 1: a closed group as one columnar block (store/group_columns.h), kept under the
  // group's keyframe; its members have no frame of their own.
  kColumns,
};

inline constexpr size_t kFrameTagBytes = 4;

// The encoding `frame` says it has; DATA_LOSS naming the tag when it is none of the above
// (another version, or bytes that are not a frame).
Result<FrameEncoding> FrameEncodingOf(std::span<const uint8_t> frame);

// Begins `out` with `encoding`'s tag.
void AppendFrameTag(FrameEncoding encoding, std::vector<uint8_t>& out);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_FRAME_ENCODING_H_
