#include "store/group_decoder.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "store/frame_encoding.h"
#include "store/framed_group.h"
#include "store/group_columns.h"

namespace perfhive {

namespace {

// The decoder of a compacted group: its columnar block, parsed on first use, restores every
// member by its place in the block.
class ColumnsGroup : public GroupDecoder {
 public:
  ColumnsGroup(int64_t keyframe_id, std::vector<uint8_t> block)
      : GroupDecoder(keyframe_id), block_(std::move(block)) {}
  // The parsed block points into block_.
  ColumnsGroup(const ColumnsGroup&) = delete;
  ColumnsGroup& operator=(const ColumnsGroup&) = delete;

  Result<std::vector<uint8_t>> Restore(const GroupMember& member,
                                       const ObjectWanted* wanted) override {
    if (member.block_index < 0) {
      return Status::DataLoss("a member with a frame of its own, in a group kept as a block");
    }
    if (!parsed_) {
      Result<GroupColumns> parsed = GroupColumns::Parse(block_);
      if (!parsed.ok()) return parsed.status();
      parsed_.emplace(std::move(parsed).value());
    }
    const size_t index = static_cast<size_t>(member.block_index);
    if (index >= parsed_->size()) {
      return Status::DataLoss("snapshot " + std::to_string(index) + " of a block of " +
                              std::to_string(parsed_->size()));
    }
    if (wanted == nullptr || member.wanted_run == kNoWantedRun) {
      return parsed_->Restore(index, wanted);
    }
    // The pieces are chosen once for the members of one recipe that a read wants alike.
    auto [chosen, first] = pieces_.try_emplace({parsed_->RecipeOf(index), member.wanted_run});
    if (first) chosen->second = parsed_->PiecesWanted(index, *wanted);
    return parsed_->RestorePieces(index, chosen->second ? &*chosen->second : nullptr);
  }

 private:
  std::vector<uint8_t> block_;
  std::optional<GroupColumns> parsed_;
  // The pieces wanted of its snapshots, by recipe and wanted run (nullopt: all of them).
  std::map<std::pair<uint32_t, uint32_t>, std::optional<std::vector<size_t>>> pieces_;
};

}  // namespace

Result<std::unique_ptr<GroupDecoder>> OpenGroup(int64_t keyframe_id, std::vector<uint8_t> stored) {
  Result<FrameEncoding> encoding = FrameEncodingOf(stored);
  if (!encoding.ok()) return encoding.status();
  switch (*encoding) {
    case FrameEncoding::kColumns:
      return std::unique_ptr<GroupDecoder>(
          std::make_unique<ColumnsGroup>(keyframe_id, std::move(stored)));
    case FrameEncoding::kSectioned:
    case FrameEncoding::kWholeDelta:
      break;
  }
  return std::unique_ptr<GroupDecoder>(
      std::make_unique<FramedGroup>(keyframe_id, std::move(stored)));
}

}  // namespace perfhive
