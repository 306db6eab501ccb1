#include "wire/snapshot_restorer.h"

#include <span>
#include <string_view>

#include "codec/snapshot_delta.h"
#include "port/sha256.h"

namespace perfhive {
namespace {

namespace v1 = perfhive::v1;

std::span<const uint8_t> BytesOf(const std::string& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

}  // namespace

Result<std::vector<uint8_t>> SnapshotRestorer::Restore(const v1::Snapshot& snapshot,
                                                       std::vector<uint8_t>* previous) {
  size_t limit = max_snapshot_bytes_;
  if (snapshot.raw_size() > limit) {
    return Status::ResourceExhausted("snapshot of " + std::to_string(snapshot.raw_size()) +
                                     " bytes is over the server's limit of " +
                                     std::to_string(limit) + " bytes");
  }
  Result<std::vector<uint8_t>> raw = Status::InvalidArgument("unknown encoding");
  switch (snapshot.encoding()) {
    case v1::ENCODING_RAW:
      raw = std::vector<uint8_t>(snapshot.payload().begin(), snapshot.payload().end());
      break;
    case v1::ENCODING_ZSTD:
      raw = DecodeDelta({}, BytesOf(snapshot.payload()), limit);
      break;
    case v1::ENCODING_DELTA_ZSTD: {
      auto base = bases_.find(snapshot.query());
      if (base == bases_.end() || base->second.sequence != snapshot.base_sequence()) {
        return Status(StatusCode::kFailedPrecondition,
                      "delta against sequence " + std::to_string(snapshot.base_sequence()) +
                          ", which is not the last snapshot of \"" + snapshot.query() +
                          "\" on this stream; send a keyframe");
      }
      raw = DecodeDelta(base->second.raw, BytesOf(snapshot.payload()), limit);
      break;
    }
    default:
      break;
  }
  if (!raw.ok()) return raw.status().Prefixed("payload: ");
  if (raw->size() != snapshot.raw_size()) {
    return Status::DataLoss("restored " + std::to_string(raw->size()) + " bytes, raw_size says " +
                            std::to_string(snapshot.raw_size()));
  }
  Sha256Digest digest = Sha256(*raw);
  if (snapshot.sha256() !=
      std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size())) {
    return Status::DataLoss("the restored bytes do not match the snapshot's sha256");
  }
  Base& base = bases_[snapshot.query()];
  if (previous != nullptr) *previous = std::move(base.raw);
  base = Base{snapshot.sequence(), *raw};
  return raw;
}

}  // namespace perfhive
