#include "store/group_columns.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "base/varint.h"
#include "codec/snapshot_delta.h"
#include "codec/zstd_codec.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/winperf.h"
#include "store/frame_encoding.h"

namespace perfhive {

namespace {

// Stream kinds, as the table spells them.
constexpr uint8_t kHeaderStream = 0;
constexpr uint8_t kObjectStream = 1;
constexpr uint8_t kTailStream = 2;
constexpr uint8_t kWholeStream = 3;  // a snapshot that does not cut into pieces

constexpr uint8_t kSameRecipe = 0;
constexpr uint8_t kNewRecipe = 1;

PieceKind KindOfStream(uint8_t stream_kind) {
  if (stream_kind == kHeaderStream) return PieceKind::kHeader;
  if (stream_kind == kObjectStream) return PieceKind::kObject;
  return PieceKind::kOpaque;
}

// The most bytes an encoding of pieces adding up to `raw` bytes can take (value_columns.cc:
// layouts once, a value's varints at most 10 bytes for 8, a mode byte per 4 bytes, a few bytes
// of table per piece).
uint64_t MaxEncodedSize(uint64_t raw, uint64_t pieces) { return 4 * raw + 16 * pieces + 64; }

struct EncodingStream {
  uint8_t kind = 0;
  uint32_t title = 0;
  std::vector<uint32_t> parents;
  std::vector<std::span<const uint8_t>> pieces;
};

}  // namespace

std::vector<uint8_t> EncodeGroupColumns(std::span<const std::span<const uint8_t>> snapshots,
                                        int level) {
  std::vector<EncodingStream> streams;
  std::map<std::tuple<uint8_t, uint32_t, uint32_t>, uint32_t> index;  // (kind, title, nth) → stream
  std::vector<std::vector<uint32_t>> recipes;
  for (std::span<const uint8_t> raw : snapshots) {
    std::vector<SnapshotSection> sections;
    if (Result<SnapshotReader> reader = SnapshotReader::Open(raw); reader.ok()) {
      // A target of 0 bytes puts every object in a section of its own.
      sections = SplitIntoSections(*reader, raw.size(), 0);
    }
    if (sections.size() < 2 || !sections[0].objects.empty()) {
      sections.assign(1, SnapshotSection{0, static_cast<uint32_t>(raw.size()), {}, {}});
    }
    std::vector<uint32_t>& recipe = recipes.emplace_back();
    std::map<uint32_t, uint32_t> seen;  // title → objects with it so far
    for (size_t i = 0; i < sections.size(); ++i) {
      const SnapshotSection& section = sections[i];
      uint8_t kind = kTailStream;
      uint32_t title = 0, nth = 0;
      if (sections.size() == 1) {
        kind = kWholeStream;
      } else if (i == 0) {
        kind = kHeaderStream;
      } else if (!section.objects.empty()) {
        kind = kObjectStream;
        title = section.objects[0];
        nth = seen[title]++;
      }
      auto [it, added] =
          index.try_emplace({kind, title, nth}, static_cast<uint32_t>(streams.size()));
      if (added) streams.push_back(EncodingStream{kind, title, {}, {}});
      EncodingStream& stream = streams[it->second];
      for (uint32_t parent : section.parents) {
        if (std::find(stream.parents.begin(), stream.parents.end(), parent) ==
            stream.parents.end()) {
          stream.parents.push_back(parent);
        }
      }
      stream.pieces.push_back(raw.subspan(section.offset, section.size));
      recipe.push_back(it->second);
    }
  }
  std::vector<uint8_t> table;
  AppendFrameTag(FrameEncoding::kColumns, table);
  PutVarint64(table, snapshots.size());
  PutVarint64(table, streams.size());
  std::vector<std::vector<uint8_t>> bodies;
  for (const EncodingStream& stream : streams) {
    std::vector<uint8_t> encoded = EncodeValueColumns(KindOfStream(stream.kind), stream.pieces);
    bodies.push_back(ZstdCompress(encoded, level));
    table.push_back(stream.kind);
    if (stream.kind == kObjectStream) PutVarint64(table, stream.title);
    PutVarint64(table, stream.parents.size());
    for (uint32_t parent : stream.parents) PutVarint64(table, parent);
    PutVarint64(table, encoded.size());
    PutVarint64(table, bodies.back().size());
  }
  for (size_t i = 0; i < snapshots.size(); ++i) {
    PutVarint64(table, snapshots[i].size());
    if (i > 0 && recipes[i] == recipes[i - 1]) {
      table.push_back(kSameRecipe);
      continue;
    }
    table.push_back(kNewRecipe);
    PutVarint64(table, recipes[i].size());
    for (uint32_t stream : recipes[i]) PutVarint64(table, stream);
  }
  for (const std::vector<uint8_t>& body : bodies)
    table.insert(table.end(), body.begin(), body.end());
  return table;
}

Result<GroupColumns> GroupColumns::Parse(std::span<const uint8_t> block) {
  if (Result<FrameEncoding> encoding = FrameEncodingOf(block);
      !encoding.ok() || *encoding != FrameEncoding::kColumns) {
    return Status::DataLoss("columnar block: its tag at byte 0 is not a block's");
  }
  ByteReader table(block.subspan(kFrameTagBytes), "columnar block");
  GroupColumns parsed;
  const uint64_t snapshots = table.Bounded(kMaxBlockSnapshots, "the snapshot count");
  // Every stream takes at least 4 bytes of table.
  const uint64_t stream_count = table.Bounded(table.left() / 4, "the stream count");
  if (table.ok() && (snapshots == 0 || stream_count == 0)) table.Fail("the block is empty");
  parsed.streams_.resize(table.ok() ? stream_count : 0);
  std::vector<uint64_t> body_sizes;
  for (Stream& stream : parsed.streams_) {
    if (!table.ok()) break;
    stream.kind = table.Byte("a stream's kind");
    if (stream.kind > kWholeStream) table.Fail("a stream's kind is unknown");
    if (stream.kind == kObjectStream) {
      stream.title = static_cast<uint32_t>(table.Bounded(UINT32_MAX, "a stream's object"));
    }
    const uint64_t parents = table.Bounded(table.left(), "a stream's parent count");
    for (uint64_t p = 0; p < parents && table.ok(); ++p) {
      stream.parents.push_back(static_cast<uint32_t>(table.Bounded(UINT32_MAX, "a parent")));
    }
    stream.encoded_size = table.Varint64("a stream's encoded size");
    body_sizes.push_back(table.Bounded(block.size(), "a stream's body size"));
  }
  uint64_t total_raw = 0;
  parsed.raw_sizes_.resize(table.ok() ? snapshots : 0);
  parsed.recipes_.resize(parsed.raw_sizes_.size());
  parsed.recipe_first_.resize(parsed.raw_sizes_.size());
  parsed.sections_.resize(parsed.raw_sizes_.size());
  std::vector<uint32_t> recipe;
  for (size_t i = 0; i < parsed.raw_sizes_.size() && table.ok(); ++i) {
    parsed.raw_sizes_[i] = table.Bounded(kMaxSnapshotBytes, "a snapshot's size");
    total_raw += parsed.raw_sizes_[i];
    if (total_raw > kMaxBlockRawBytes) table.Fail("the snapshots add up to too many bytes");
    const uint8_t how = table.Byte("a recipe");
    if (how == kNewRecipe) {
      const uint64_t count = table.Bounded(stream_count, "a recipe's length");
      recipe.clear();
      for (uint64_t k = 0; k < count && table.ok(); ++k) {
        const uint32_t stream = static_cast<uint32_t>(table.Bounded(stream_count - 1, "a stream"));
        if (std::find(recipe.begin(), recipe.end(), stream) != recipe.end()) {
          table.Fail("a snapshot names a stream twice");
        }
        recipe.push_back(stream);
      }
      if (count == 0) table.Fail("a snapshot of no stream");
      parsed.recipe_first_[i] = static_cast<uint32_t>(i);
    } else if (how != kSameRecipe || i == 0) {
      table.Fail("a recipe's kind is wrong");
    } else {
      parsed.recipe_first_[i] = parsed.recipe_first_[i - 1];
    }
    for (uint32_t stream : recipe) {
      if (!table.ok()) break;
      std::vector<size_t>& members = parsed.streams_[stream].members;
      parsed.recipes_[i].emplace_back(stream, static_cast<uint32_t>(members.size()));
      members.push_back(i);
    }
  }
  if (!table.ok()) return table.status();
  // The bodies fill the rest, in stream order.
  size_t at = kFrameTagBytes + table.at();
  for (size_t s = 0; s < parsed.streams_.size(); ++s) {
    Stream& stream = parsed.streams_[s];
    const uint64_t body_size = body_sizes[s];
    if (body_size > block.size() - at) {
      return Status::DataLoss("columnar block: a stream's body runs past the end");
    }
    stream.body = block.subspan(at, static_cast<size_t>(body_size));
    at += static_cast<size_t>(body_size);
    if (stream.members.empty()) return Status::DataLoss("columnar block: a stream of no snapshot");
    uint64_t raw = 0;
    for (size_t member : stream.members) raw += parsed.raw_sizes_[member];
    if (stream.encoded_size > MaxEncodedSize(raw, stream.members.size())) {
      return Status::DataLoss("columnar block: a stream's encoded size is too large");
    }
  }
  if (at != block.size()) return Status::DataLoss("columnar block: bytes after the last body");
  return parsed;
}

Status GroupColumns::Decode(Stream& stream) {
  if (stream.pieces.has_value()) return Status();
  Result<std::vector<uint8_t>> encoded =
      ZstdDecompress(stream.body, static_cast<size_t>(stream.encoded_size));
  if (!encoded.ok()) return Status::DataLoss("columnar block: " + encoded.error());
  if (encoded->size() != stream.encoded_size) {
    return Status::DataLoss("columnar block: a stream's body is not its encoded size");
  }
  std::vector<size_t> max_sizes;
  for (size_t member : stream.members) max_sizes.push_back(raw_sizes_[member]);
  Result<std::vector<std::vector<uint8_t>>> pieces =
      DecodeValueColumns(KindOfStream(stream.kind), *encoded, max_sizes);
  if (!pieces.ok()) return pieces.status();
  stream.pieces = std::move(pieces).value();
  return Status();
}

const std::vector<SnapshotSection>& GroupColumns::SectionsOf(size_t index) {
  std::optional<std::vector<SnapshotSection>>& sections = sections_[recipe_first_[index]];
  if (!sections) {
    sections.emplace();
    for (auto [stream, piece] : recipes_[index]) {
      SnapshotSection& section = sections->emplace_back();
      if (streams_[stream].kind == kObjectStream) {
        section.objects.push_back(streams_[stream].title);
        section.parents = streams_[stream].parents;
      }
    }
  }
  return *sections;
}

std::optional<std::vector<size_t>> GroupColumns::PiecesWanted(
    size_t index, const std::function<bool(uint32_t)>& wanted) {
  if (index >= size()) return std::nullopt;
  const std::vector<std::pair<uint32_t, uint32_t>>& recipe = recipes_[index];
  if (recipe.size() < 2 || streams_[recipe[0].first].kind != kHeaderStream) return std::nullopt;
  // As sections, one per piece: what a sectioned frame would restore of them.
  std::vector<size_t> chosen = SectionsToRestore(SectionsOf(index), wanted);
  if (chosen.size() == recipe.size()) return std::nullopt;
  return chosen;
}

Result<std::vector<uint8_t>> GroupColumns::Restore(size_t index,
                                                   const std::function<bool(uint32_t)>* wanted) {
  if (wanted == nullptr) return RestorePieces(index, nullptr);
  std::optional<std::vector<size_t>> pieces = PiecesWanted(index, *wanted);
  return RestorePieces(index, pieces ? &*pieces : nullptr);
}

Result<std::vector<uint8_t>> GroupColumns::RestorePieces(size_t index,
                                                         const std::vector<size_t>* pieces) {
  if (index >= size()) return Status::DataLoss("columnar block: no such snapshot");
  const std::vector<std::pair<uint32_t, uint32_t>>& recipe = recipes_[index];
  const bool partial = pieces != nullptr;
  std::vector<size_t> all;
  if (!partial) {
    all.resize(recipe.size());
    for (size_t k = 0; k < recipe.size(); ++k) all[k] = k;
  }
  const std::vector<size_t>& chosen = partial ? *pieces : all;
  // The pieces decoded and measured first, so the snapshot is made in one buffer of its size.
  uint64_t restored_size = 0;
  for (size_t k : chosen) {
    if (k >= recipe.size()) return Status::DataLoss("columnar block: no such piece");
    Stream& stream = streams_[recipe[k].first];
    if (Status decoded = Decode(stream); !decoded.ok()) return decoded;
    restored_size += (*stream.pieces)[recipe[k].second].size();
  }
  if (restored_size > raw_sizes_[index]) {
    return Status::DataLoss("columnar block: snapshot " + std::to_string(index) +
                            "'s pieces exceed its size");
  }
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(restored_size));
  uint32_t objects = 0;
  for (size_t k : chosen) {
    const Stream& stream = streams_[recipe[k].first];
    const std::vector<uint8_t>& piece = (*stream.pieces)[recipe[k].second];
    out.insert(out.end(), piece.begin(), piece.end());
    objects += stream.kind == kObjectStream;
  }
  if (partial) {
    if (out.size() < winperf::data_block::kSize)
      return Status::DataLoss("columnar block: a header too short");
    PatchPartialHeader(out, objects);
  } else if (out.size() != raw_sizes_[index]) {
    return Status::DataLoss("columnar block: snapshot " + std::to_string(index) +
                            "'s pieces fall short of its size");
  }
  return out;
}

}  // namespace perfhive
