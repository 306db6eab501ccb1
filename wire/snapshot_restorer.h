// SnapshotRestorer: turns the Snapshot messages of one Ingest stream back into the exact raw
// bytes their agent read: a keyframe alone, a delta against the previous snapshot of the same
// query on the stream. It checks the restored size and SHA-256 against what the message claims,
// and never restores more than the limit, whatever a hostile message says.

#ifndef PERFHIVE_WIRE_SNAPSHOT_RESTORER_H_
#define PERFHIVE_WIRE_SNAPSHOT_RESTORER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "perfhive/v1/ingest.pb.h"

namespace perfhive {

class SnapshotRestorer {
 public:
  explicit SnapshotRestorer(size_t max_snapshot_bytes) : max_snapshot_bytes_(max_snapshot_bytes) {}

  // The raw bytes, which become the base for the next delta of the same query. Errors are
  // RESOURCE_EXHAUSTED (over the limit), FAILED_PRECONDITION (a delta whose base this stream
  // does not hold), DATA_LOSS (size or digest differ) or INVALID_ARGUMENT (a bad payload).
  // `previous`, when given, receives the raw bytes of the stream's snapshot of the same query
  // before this one (empty when there was none): the older sample of the pair this one ends.
  Result<std::vector<uint8_t>> Restore(const perfhive::v1::Snapshot& snapshot,
                                       std::vector<uint8_t>* previous = nullptr);

 private:
  struct Base {
    uint64_t sequence = 0;
    std::vector<uint8_t> raw;
  };
  size_t max_snapshot_bytes_;
  std::map<std::string, Base> bases_;  // by query
};

}  // namespace perfhive

#endif  // PERFHIVE_WIRE_SNAPSHOT_RESTORER_H_
