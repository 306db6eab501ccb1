// Delta frames: a raw snapshot encoded against a previous snapshot of the same query (its
// "base"), then compressed with zstd. Consecutive snapshots of one host share nearly all their
// bytes (layout, names, counters that did not move), so a frame is a small fraction of the raw
// size; the receiver, holding the same base, restores the exact bytes.
//
// An empty base gives a self-contained frame (a keyframe). Decoding checks every length against
// the frame, the base and a caller's limit, so hostile frames yield an error, never a crash or an
// unbounded allocation. The frame layout is described byte for byte in docs/wire_protocol.md.

#ifndef PERFHIVE_CODEC_SNAPSHOT_DELTA_H_
#define PERFHIVE_CODEC_SNAPSHOT_DELTA_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace perfhive {

// The largest snapshot DecodeDelta restores unless told otherwise: the agent's HKPD ceiling.
inline constexpr size_t kMaxSnapshotBytes = 256 * 1024 * 1024;
// zstd's level for frames made on an agent: fast, and the delta does most of the work.
inline constexpr int kDefaultDeltaLevel = 3;

// How a frame's content relates to its base (docs/wire_protocol.md).
enum class DeltaMethod : uint8_t {
  kFull = 0,        // zstd of the snapshot itself
  kDifference = 1,  // zstd of the snapshot minus the base, word by word
  kPrefix = 2,      // zstd of the snapshot, with the base as a prefix it may copy from
};

// A frame without its header: the method and the zstd frame. The store keeps these inside
// frames of its own (store/sectioned_frame.h), whose table says the rest.
struct DeltaBody {
  DeltaMethod method = DeltaMethod::kFull;
  std::vector<uint8_t> compressed;
};

// `current` against `base` (empty: alone), as EncodeDelta makes it, without the header.
DeltaBody EncodeDeltaBody(std::span<const uint8_t> base, std::span<const uint8_t> current,
                          int level = kDefaultDeltaLevel);
// The `restored_size` bytes a body holds, given the base it was made against (empty for
// kFull, which takes none).
Result<std::vector<uint8_t>> DecodeDeltaBody(DeltaMethod method, std::span<const uint8_t> base,
                                             std::span<const uint8_t> compressed,
                                             size_t restored_size);
// The same into `out`, whose size is the restored size.
Status DecodeDeltaBodyInto(DeltaMethod method, std::span<const uint8_t> base,
                           std::span<const uint8_t> compressed, std::span<uint8_t> out);

// `current` as a frame against `base` (empty: a keyframe).
std::vector<uint8_t> EncodeDelta(std::span<const uint8_t> base, std::span<const uint8_t> current,
                                 int level = kDefaultDeltaLevel);

// The snapshot a frame holds, given the base it was made against (the frame records the base's
// size and refuses another). At most `max_size` bytes are restored.
Result<std::vector<uint8_t>> DecodeDelta(std::span<const uint8_t> base,
                                         std::span<const uint8_t> delta,
                                         size_t max_size = kMaxSnapshotBytes);

// True when `frame` is a keyframe (decodes without a base); false for deltas and non-frames.
bool IsKeyframe(std::span<const uint8_t> frame);

}  // namespace perfhive

#endif  // PERFHIVE_CODEC_SNAPSHOT_DELTA_H_
