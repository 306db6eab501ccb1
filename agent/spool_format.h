// The bytes of the spool's files (docs/agent.md, "Spool files"). A snapshot file holds one
// SnapshotRecord, its owner included, and ends with the SHA-256 of everything before it, so a
// file torn by a crash or damaged on disk is recognised and skipped. A title file holds one
// title database; its name is the database's digest, which checks it.

#ifndef PERFHIVE_AGENT_SPOOL_FORMAT_H_
#define PERFHIVE_AGENT_SPOOL_FORMAT_H_

#include <cstdint>
#include <span>
#include <vector>

#include "agent/snapshot_record.h"
#include "base/status.h"
#include "perfdata/title_bytes.h"

namespace perfhive {

std::vector<uint8_t> EncodeSpoolRecord(const SnapshotRecord& record);
// DataLoss naming what is wrong when the bytes are not a whole, intact record. A record written
// before records had owners (PHSPOOL1) comes back with an empty owner.
Result<SnapshotRecord> DecodeSpoolRecord(std::span<const uint8_t> bytes);

std::vector<uint8_t> EncodeSpoolTitles(const TitleBytes& titles);
// The digest is checked by the caller, against the file's name.
Result<TitleBytes> DecodeSpoolTitles(std::span<const uint8_t> bytes);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SPOOL_FORMAT_H_
