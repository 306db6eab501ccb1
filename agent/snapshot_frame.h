// FrameSnapshot: a SnapshotRecord as the Snapshot message of the Ingest stream: a keyframe of
// the raw bytes, or, given the previous snapshot of the same query sent on the stream, a delta
// frame against it (codec/snapshot_delta.h); with the SHA-256 the server checks the restored
// bytes against.

#ifndef PERFHIVE_AGENT_SNAPSHOT_FRAME_H_
#define PERFHIVE_AGENT_SNAPSHOT_FRAME_H_

#include "agent/snapshot_record.h"
#include "perfhive/v1/ingest.pb.h"

namespace perfhive {

// `base`: null for a self-contained frame (ENCODING_ZSTD).
void FrameSnapshot(const SnapshotRecord& record, const SnapshotRecord* base, v1::Snapshot& out);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SNAPSHOT_FRAME_H_
