// SectionedFrame: the frame the store keeps for one snapshot. The snapshot is cut into sections
// (store/snapshot_sections.h); each is compressed on its own as a delta body
// (codec/snapshot_delta.h), against the matching section of its group's keyframe or alone, and a
// table in front says what each section holds and where its body lies, so a read decodes only
// the sections it needs. The layout is described byte for byte in docs/store_format.md.

#ifndef PERFHIVE_STORE_SECTIONED_FRAME_H_
#define PERFHIVE_STORE_SECTIONED_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "store/snapshot_sections.h"

namespace perfhive {

// A section that is not a delta: it decodes alone.
inline constexpr uint32_t kNoBaseSection = 0xFFFFFFFF;

// How a section is stored: a delta body (codec/snapshot_delta.h) of one of its methods, or the
// same bytes as its base section (no body).
enum class SectionMethod : uint8_t { kFull = 0, kDifference = 1, kPrefix = 2, kSameAsBase = 3 };

// A parsed table: lists with one element per section.
struct SectionedFrame {
  std::vector<SnapshotSection> sections;
  std::vector<SectionMethod> methods;
  std::vector<uint32_t> bases;                   // the keyframe's section each is made against
  std::vector<std::span<const uint8_t>> bodies;  // each one's zstd frame, in the parsed bytes
};

// A keyframe as a base for the sections of its group's other snapshots.
struct SectionedBase {
  std::span<const uint8_t> raw;
  std::span<const SnapshotSection> sections;
};

// `raw`, cut as `sections` say, each section against its counterpart in `base` if one matches
// (same objects, or the one holding its first object; header to header, tail to tail), else
// alone. A null `base` makes a keyframe.
std::vector<uint8_t> EncodeSectionedFrame(std::span<const uint8_t> raw,
                                          std::span<const SnapshotSection> sections,
                                          const SectionedBase* base, int level);

// The table of a sectioned frame, checked against the frame's length and the restored size
// limit (DATA_LOSS otherwise); its bodies point into `frame`.
Result<SectionedFrame> ParseSectionedFrame(std::span<const uint8_t> frame);
// The same into `table`, whose lists keep their room from one frame to the next.
Status ParseSectionedFrameInto(std::span<const uint8_t> frame, SectionedFrame& table);

// The bytes of section `index`, given its base section's bytes (empty when it has none).
Result<std::vector<uint8_t>> DecodeSection(const SectionedFrame& frame, size_t index,
                                           std::span<const uint8_t> base);
// The same into `out`, the section's size: where it lies in the snapshot being restored.
Status DecodeSectionInto(const SectionedFrame& frame, size_t index, std::span<const uint8_t> base,
                         std::span<uint8_t> out);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_SECTIONED_FRAME_H_
