// GroupColumns: a closed group's snapshots as one columnar block, what the store keeps once a
// group will get no more members. Each snapshot is cut into pieces (its header, each object,
// the bytes after the objects); the pieces of one kind across the group (every snapshot's
// Processor object, every header) form a stream, encoded as layouts and value columns
// (store/value_columns.h) and compressed with zstd on its own, so that a read decodes only the
// streams of the objects it wants. A table in front says which streams each snapshot is made
// of. The layout is described byte for byte in docs/store_format.md.

#ifndef PERFHIVE_STORE_GROUP_COLUMNS_H_
#define PERFHIVE_STORE_GROUP_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "store/snapshot_sections.h"
#include "store/value_columns.h"

namespace perfhive {

// The most snapshots in a block, and the most raw bytes they may add up to: a larger group is
// left as frames (so a hostile block cannot make the reader allocate without bound).
inline constexpr size_t kMaxBlockSnapshots = 4096;
inline constexpr uint64_t kMaxBlockRawBytes = 256 * 1024 * 1024;

// The block of `snapshots` (at least one; at most kMaxBlockSnapshots adding up to at most
// kMaxBlockRawBytes), each stream compressed at zstd `level`.
std::vector<uint8_t> EncodeGroupColumns(std::span<const std::span<const uint8_t>> snapshots,
                                        int level);

// A parsed block: restores its snapshots, decoding each stream at most once. It points into the
// block's bytes, which must outlive it.
class GroupColumns {
 public:
  // Checks the table against the block's length and the limits above; DATA_LOSS otherwise.
  static Result<GroupColumns> Parse(std::span<const uint8_t> block);

  size_t size() const { return raw_sizes_.size(); }
  uint64_t raw_size(size_t index) const { return raw_sizes_[index]; }

  // Snapshot `index`: its exact raw bytes, or with `wanted` (by an object's title index) a
  // partial snapshot as a sectioned frame gives one (store/snapshot_sections.h): the header,
  // counting only the objects restored, then every wanted object and its parents.
  Result<std::vector<uint8_t>> Restore(size_t index,
                                       const std::function<bool(uint32_t)>* wanted = nullptr);

  // Restore in two steps, for a reader that restores many snapshots of one recipe with the same
  // `wanted`: the pieces of snapshot `index` that `wanted` takes (nullopt: all of them), the same
  // for every snapshot of its recipe (RecipeOf); and the snapshot made of `pieces` (null: whole).
  std::optional<std::vector<size_t>> PiecesWanted(size_t index,
                                                  const std::function<bool(uint32_t)>& wanted);
  uint32_t RecipeOf(size_t index) const {
    return index < size() ? recipe_first_[index] : UINT32_MAX;
  }
  Result<std::vector<uint8_t>> RestorePieces(size_t index, const std::vector<size_t>* pieces);

 private:
  struct Stream {
    uint8_t kind = 0;
    uint32_t title = 0;
    std::vector<uint32_t> parents;
    uint64_t encoded_size = 0;
    std::span<const uint8_t> body;
    std::vector<size_t> members;                              // the snapshots made of it, in order
    std::optional<std::vector<std::vector<uint8_t>>> pieces;  // decoded on first use
  };

  Status Decode(Stream& stream);
  // Snapshot `index`'s streams as sections, one per piece, for SectionsToRestore; made once for
  // the snapshots that share a recipe (most of a group's).
  const std::vector<SnapshotSection>& SectionsOf(size_t index);

  std::vector<Stream> streams_;
  std::vector<uint64_t> raw_sizes_;
  // Per snapshot, its streams in order and its piece's place in each.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> recipes_;
  // Per snapshot, the first snapshot of its run of the same recipe, and the sections of each
  // such first snapshot once made.
  std::vector<uint32_t> recipe_first_;
  std::vector<std::optional<std::vector<SnapshotSection>>> sections_;
};

}  // namespace perfhive

#endif  // PERFHIVE_STORE_GROUP_COLUMNS_H_
