// ValueColumns: what one object contributes to each snapshot of a closed group (or the header,
// or the bytes after the objects), encoded across the group instead of snapshot by snapshot.
// Each piece is cut into its layout (every byte but the counter values: definitions, instance
// names, lengths) and its values; a layout equal to the previous piece's is stored as such, and
// each value is followed through the group as a column (the same counter of the same instance,
// matched by the instance's definition) stored as a first value and then nothing (constant), one
// step (constant rate), differences or differences of differences, whichever is smallest. A
// counter that did not move or moved at a steady rate then costs a few bytes per group, and the
// columns of a busy counter lie together, where zstd finds what they share. The encoding is
// described byte for byte in docs/store_format.md; the group's block (store/group_columns.h)
// compresses it.

#ifndef PERFHIVE_STORE_VALUE_COLUMNS_H_
#define PERFHIVE_STORE_VALUE_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace perfhive {

// How a piece is cut into layout and values.
enum class PieceKind : uint8_t {
  kHeader = 0,  // a PERF_DATA_BLOCK header: its clocks are values
  kObject = 1,  // one PERF_OBJECT_TYPE: its PerfTime and its counter blocks' values
  kOpaque = 2,  // anything else: all layout
};

// The pieces, in group order, as one byte string (not yet compressed).
std::vector<uint8_t> EncodeValueColumns(PieceKind kind,
                                        std::span<const std::span<const uint8_t>> pieces);

// The pieces an encoding holds; `max_sizes` bounds each (its count is the number expected), and
// anything malformed is DATA_LOSS.
Result<std::vector<std::vector<uint8_t>>> DecodeValueColumns(PieceKind kind,
                                                             std::span<const uint8_t> encoded,
                                                             std::span<const size_t> max_sizes);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_VALUE_COLUMNS_H_
