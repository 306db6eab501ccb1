// SnapshotRecord: one raw snapshot on its way to the server, with what names it there. The
// sampler makes it, the outbox and the spool keep it until the server answers, the shipper
// frames it.

#ifndef PERFHIVE_AGENT_SNAPSHOT_RECORD_H_
#define PERFHIVE_AGENT_SNAPSHOT_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "port/sha256.h"

namespace perfhive {

// A title database by content address (wire/title_digest.h).
struct TitleRef {
  std::string language;  // "009"
  Sha256Digest sha256;

  bool operator==(const TitleRef&) const = default;
};

struct SnapshotRecord {
  std::string instance_id;  // the run that took it
  uint64_t sequence = 0;    // from 1 within the instance
  std::string query;        // "Global", "Costly", "230 238"
  std::vector<TitleRef> titles;
  std::vector<uint8_t> raw;

  bool operator==(const SnapshotRecord&) const = default;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SNAPSHOT_RECORD_H_
