// SnapshotRecord: one raw snapshot on its way to the server, with what names it there. The
// sampler makes it, the outbox and the spool keep it until the server answers, the shipper
// frames it.

#ifndef PERFHIVE_AGENT_SNAPSHOT_RECORD_H_
#define PERFHIVE_AGENT_SNAPSHOT_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "port/sha256.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// A title database by content address (wire/title_digest.h).
struct TitleRef {
  std::string language;  // "009"
  Sha256Digest sha256;

  bool operator==(const TitleRef&) const = default;
};

// Whose a snapshot is: the host it was taken as (the name the server files it under, and the OS
// that host reported) and whether it was read remotely. It travels with the snapshot from the
// sampler through the spool to the wire, so no file, folder or stream can relabel it: a spooled
// snapshot is only ever shipped under its own owner.
struct SnapshotOwner {
  HostIdentity host;
  bool agentless = false;  // read over the remote registry, not by an agent on the host

  bool operator==(const SnapshotOwner&) const = default;
  // The same host as the server knows hosts (its name ignoring case) read the same way; the OS
  // may have been upgraded in between.
  bool SameHostAs(const SnapshotOwner& other) const;
  // "web01 (agent)", for logs.
  std::string Label() const;
};

struct SnapshotRecord {
  SnapshotOwner owner;
  std::string instance_id;  // the run that took it
  uint64_t sequence = 0;    // from 1 within the instance
  std::string query;        // "Global", "Costly", "230 238"
  std::vector<TitleRef> titles;
  std::vector<uint8_t> raw;

  bool operator==(const SnapshotRecord&) const = default;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SNAPSHOT_RECORD_H_
