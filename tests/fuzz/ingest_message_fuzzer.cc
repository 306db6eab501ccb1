// Fuzzes what the server decodes from an agent: the bytes of an AgentMessage, and, when it is a
// snapshot, its restoration (keyframe or delta against a base the stream holds) with the size
// and digest checks, the check of the pair it ends for counters without a valid value, and the
// following of its instances (the base's, then its own, as a stream's two snapshots).
// Nothing may crash, hang, read outside a buffer or restore past the limit.

#include <cstddef>
#include <cstdint>

#include "perfdata/instance_gaps.h"
#include "perfdata/invalid_counters.h"
#include "perfdata/snapshot_reader.h"
#include "perfhive/v1/ingest.pb.h"
#include "tests/fuzz/ingest_message_base.h"
#include "wire/snapshot_restorer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kLimit = 1 << 20;
  perfhive::v1::AgentMessage message;
  if (!message.ParseFromArray(data, static_cast<int>(size)) || !message.has_snapshot()) return 0;
  perfhive::SnapshotRestorer restorer(kLimit);
  // The stream already carried the base the seeds' deltas were made against.
  perfhive::v1::Snapshot base = perfhive::testing::FuzzBaseSnapshotMessage();
  if (!restorer.Restore(base).ok()) __builtin_trap();
  std::vector<uint8_t> previous;
  perfhive::Result<std::vector<uint8_t>> raw = restorer.Restore(message.snapshot(), &previous);
  if (raw.ok()) {
    if (raw->size() > kLimit) __builtin_trap();
    perfhive::Result<perfhive::SnapshotReader> newer = perfhive::SnapshotReader::Open(*raw);
    perfhive::Result<perfhive::SnapshotReader> older = perfhive::SnapshotReader::Open(previous);
    if (newer.ok() && older.ok()) {
      (void)perfhive::FindInvalidCounters(*older, *newer);
      perfhive::InstanceGapTracker instances;
      (void)instances.Note(*older, 1);
      (void)instances.Note(*newer, 2);
    }
  }
  return 0;
}
