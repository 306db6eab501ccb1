#include "agent/snapshot_frame.h"

#include "codec/snapshot_delta.h"

namespace perfhive {

void FrameSnapshot(const SnapshotRecord& record, const SnapshotRecord* base, v1::Snapshot& out) {
  out.set_host_name(record.owner.host.name);
  out.set_instance_id(record.instance_id);
  out.set_sequence(record.sequence);
  out.set_query(record.query);
  out.set_raw_size(static_cast<uint32_t>(record.raw.size()));
  Sha256Digest digest = Sha256(record.raw);
  out.set_sha256(digest.data(), digest.size());
  for (const TitleRef& title : record.titles) {
    v1::TitleDigest* added = out.add_titles();
    added->set_language(title.language);
    added->set_sha256(title.sha256.data(), title.sha256.size());
  }
  // Without a base the frame is a keyframe (codec/snapshot_delta.h), which is how the server
  // reads ENCODING_ZSTD: one frame format, with its sizes in the header, for both encodings.
  std::vector<uint8_t> payload;
  if (base != nullptr) {
    out.set_encoding(v1::ENCODING_DELTA_ZSTD);
    out.set_base_sequence(base->sequence);
    payload = EncodeDelta(base->raw, record.raw);
  } else {
    out.set_encoding(v1::ENCODING_ZSTD);
    payload = EncodeDelta({}, record.raw);
  }
  out.set_payload(payload.data(), payload.size());
}

}  // namespace perfhive
