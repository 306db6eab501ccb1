// The store's tables (docs/store_format.md), created on first open.

#ifndef PERFHIVE_STORE_SCHEMA_H_
#define PERFHIVE_STORE_SCHEMA_H_

#include <cstdint>

namespace perfhive {

// PRAGMA user_version of a database this code writes. A new database is made at version 1
// (kSchema) and brought up to date by the upgrades below, in order, as an older one is on open;
// a newer version is refused.
inline constexpr int64_t kSchemaVersion = 14;

inline constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS hosts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  os TEXT NOT NULL DEFAULT '',
  os_version TEXT NOT NULL DEFAULT '',
  source_kind TEXT NOT NULL DEFAULT '',
  agent_version TEXT NOT NULL DEFAULT '',
  instance_id TEXT NOT NULL DEFAULT '',
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  last_error TEXT NOT NULL DEFAULT '',
  last_error_time INTEGER NOT NULL DEFAULT 0,
  snapshots_received INTEGER NOT NULL DEFAULT 0,
  raw_bytes_received INTEGER NOT NULL DEFAULT 0,
  snapshots_stored INTEGER NOT NULL DEFAULT 0,
  raw_bytes_stored INTEGER NOT NULL DEFAULT 0,
  stored_bytes INTEGER NOT NULL DEFAULT 0,
  refusals INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS title_databases (
  id INTEGER PRIMARY KEY,
  digest BLOB NOT NULL UNIQUE,
  language TEXT NOT NULL,
  counters BLOB NOT NULL,
  helps BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS host_titles (
  host_id INTEGER NOT NULL,
  language TEXT NOT NULL,
  since INTEGER NOT NULL,
  digest BLOB NOT NULL,
  PRIMARY KEY (host_id, language, since)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
  id INTEGER PRIMARY KEY,
  host_id INTEGER NOT NULL,
  query TEXT NOT NULL,
  sample_time INTEGER NOT NULL,
  receive_time INTEGER NOT NULL,
  instance_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  sha256 BLOB NOT NULL,
  raw_size INTEGER NOT NULL,
  stored_size INTEGER NOT NULL,
  keyframe_id INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS snapshots_by_sequence
  ON snapshots (host_id, instance_id, sequence);
CREATE INDEX IF NOT EXISTS snapshots_by_time ON snapshots (host_id, sample_time);
CREATE INDEX IF NOT EXISTS snapshots_by_receive_time ON snapshots (receive_time);
CREATE INDEX IF NOT EXISTS snapshots_by_keyframe ON snapshots (keyframe_id)
  WHERE keyframe_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS keyframes_by_stream ON snapshots (host_id, query, id)
  WHERE keyframe_id IS NULL;
CREATE TABLE IF NOT EXISTS frames (
  id INTEGER PRIMARY KEY,
  frame BLOB NOT NULL
);
)sql";

// Version 2: how far each exporter has delivered each host (server/export/prometheus_exporter.h).
inline constexpr const char* kSchemaExportPositions = R"sql(
CREATE TABLE IF NOT EXISTS export_positions (
  receiver TEXT NOT NULL,
  host_id INTEGER NOT NULL,
  sample_time INTEGER NOT NULL,
  PRIMARY KEY (receiver, host_id)
) WITHOUT ROWID;
)sql";

// Version 3: a sample is known by what the host took (host, query, SystemTime and its two
// other clocks, PerfTime and PerfTime100nSec), not by the run that sent it, so the same sample
// sent by another run (a replay repeated, a spool restored from a backup) is stored once.
// (host, instance id, sequence) stops being unique: a run resumed from a VM image reuses its
// sequence numbers for new samples. Rows stored before version 3 have no clocks (NULL).
inline constexpr const char* kSchemaSampleIdentity = R"sql(
ALTER TABLE snapshots ADD COLUMN perf_time INTEGER;
ALTER TABLE snapshots ADD COLUMN perf_time_100ns INTEGER;
DROP INDEX IF EXISTS snapshots_by_sequence;
CREATE INDEX snapshots_by_sequence ON snapshots (host_id, instance_id, sequence);
)sql";

// Version 4: the collection plan each host's agent applied last (server/policies/policy_book.h),
// what it said about it and when (server clock). Hosts stored before have none ('', 0).
inline constexpr const char* kSchemaHostPlans = R"sql(
ALTER TABLE hosts ADD COLUMN plan_revision TEXT NOT NULL DEFAULT '';
ALTER TABLE hosts ADD COLUMN plan_report TEXT NOT NULL DEFAULT '';
ALTER TABLE hosts ADD COLUMN plan_reported_time INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 5: closed groups compacted into one columnar block (store/group_columns.h), kept in
// `frames` under the group's keyframe; `block_index` is a snapshot's place in it (NULL: the
// snapshot has a frame of its own, as every snapshot stored before).
inline constexpr const char* kSchemaColumnarBlocks = R"sql(
ALTER TABLE snapshots ADD COLUMN block_index INTEGER;
)sql";
// Version 6: the groups not yet compacted, found by the compaction pass without reading every
// keyframe of the store (Store::CompactClosedGroups). Only keyframes of groups still held as
// frames are in it: the open group of each stream, and those closed since the last pass (after
// an upgrade, every group stored before, which the pass then compacts).
inline constexpr const char* kSchemaUncompactedGroups = R"sql(
CREATE INDEX IF NOT EXISTS snapshots_uncompacted ON snapshots (id)
  WHERE keyframe_id IS NULL AND block_index IS NULL;
)sql";
// Version 7: title databases stored compressed. `encoding` 1: `counters` and `helps` are each
// one zstd frame of the bytes the digest was taken over; 0: the bytes themselves, as every row
// stored before (they still read).
inline constexpr const char* kSchemaCompressedTitles = R"sql(
ALTER TABLE title_databases ADD COLUMN encoding INTEGER NOT NULL DEFAULT 0;
)sql";
// Version 8: where each agent's run stands (Store::LastSequence, asked at every Hello), one row per
// host and instance id, instead of an index over every snapshot's (host, instance id, sequence):
// that index cost 54 bytes a snapshot, most of it the instance id's text. `last_sequence` is the
// highest sequence of the run stored; retention does not lower it.
inline constexpr const char* kSchemaRuns = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  host_id INTEGER NOT NULL,
  instance_id TEXT NOT NULL,
  last_sequence INTEGER NOT NULL,
  PRIMARY KEY (host_id, instance_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO runs (host_id, instance_id, last_sequence)
  SELECT host_id, instance_id, MAX(sequence) FROM snapshots GROUP BY host_id, instance_id;
DROP INDEX IF EXISTS snapshots_by_sequence;
)sql";
// Version 9: each host's labels as its agent's last Hello gave them (--label role=web), one row a
// label; the policies' labels are not stored (the server reads them from its policies file).
// Hosts stored before have none.
inline constexpr const char* kSchemaHostLabels = R"sql(
CREATE TABLE IF NOT EXISTS host_labels (
  host_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (host_id, key)
) WITHOUT ROWID;
)sql";
// Version 10: which objects and counters each host's snapshots of each query hold
// (perfdata/snapshot_inventory.h), one row each time that changes, from the sample time of the
// first snapshot with it, with the host's agent and OS versions and plan revision when it was
// recorded: the fleet's counter health is answered from these (query/counter_health.h). Snapshots
// stored before have none; each stream's first append after the upgrade records its inventory.
inline constexpr const char* kSchemaInventories = R"sql(
CREATE TABLE IF NOT EXISTS inventories (
  host_id INTEGER NOT NULL,
  query TEXT NOT NULL,
  since INTEGER NOT NULL,
  inventory BLOB NOT NULL,
  agent_version TEXT NOT NULL,
  os_version TEXT NOT NULL,
  plan_revision TEXT NOT NULL,
  PRIMARY KEY (host_id, query, since)
) WITHOUT ROWID;
)sql";
// Version 11: what each host's agent last reported it lost since it started
// (query::CollectionLosses), with the server's time when a count last grew, one row a host; and
// the performance counter providers each Windows host's agent last reported disabled
// (perfdata/disabled_provider.h), one row a service, replaced with each report; `since` is when
// the server first heard it disabled (server clock), kept while it stays so. `object_indexes`
// is the provider's "Object List" as the registry writes it: indexes separated by spaces.
inline constexpr const char* kSchemaCollectionReports = R"sql(
CREATE TABLE IF NOT EXISTS collection_losses (
  host_id INTEGER PRIMARY KEY,
  agent_started INTEGER NOT NULL,
  skipped_ticks INTEGER NOT NULL,
  failed_reads INTEGER NOT NULL,
  dropped INTEGER NOT NULL,
  refused INTEGER NOT NULL,
  unreadable INTEGER NOT NULL,
  unspoolable INTEGER NOT NULL,
  grew INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS disabled_providers (
  host_id INTEGER NOT NULL,
  service TEXT NOT NULL,
  disable_value INTEGER NOT NULL,
  library TEXT NOT NULL,
  object_indexes TEXT NOT NULL,
  since INTEGER NOT NULL,
  PRIMARY KEY (host_id, service)
) WITHOUT ROWID;
)sql";

// Version 12: each host's counters without a valid value (perfdata/invalid_counters.h), one row
// a counter while its run lasts: `since` is the sample time of the newer snapshot of the run's
// first pair, `status` the PDH status of its first value. Written at a run's second pair, deleted
// at its end (store_invalid_counters.cc). And how long each host's source took to return each
// object alone, as its agent last reported it (store_object_timings.cc): a row an object, and the
// sweep's time and the agent's interval in `object_sweeps`, a row a host.
inline constexpr const char* kSchemaCollectionChecks = R"sql(
CREATE TABLE IF NOT EXISTS invalid_counters (
  host_id INTEGER NOT NULL,
  query TEXT NOT NULL,
  object_index INTEGER NOT NULL,
  counter_index INTEGER NOT NULL,
  status INTEGER NOT NULL,
  since INTEGER NOT NULL,
  PRIMARY KEY (host_id, query, object_index, counter_index)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS object_sweeps (
  host_id INTEGER PRIMARY KEY,
  measured INTEGER NOT NULL,
  interval INTEGER NOT NULL,
  received INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS object_timings (
  host_id INTEGER NOT NULL,
  object_index INTEGER NOT NULL,
  nanos INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  error TEXT NOT NULL,
  PRIMARY KEY (host_id, object_index)
) WITHOUT ROWID;
)sql";

// Version 13: instances that went and came back (perfdata/instance_gaps.h), a row a gap:
// `gone` the sample time of the first snapshot without the instance, `back` of the first with it
// again, `instance` its name. Written by the snapshot that closes the gap; deleted once the host's
// stored history no longer reaches back to it (store_instance_gaps.cc).
inline constexpr const char* kSchemaInstanceGaps = R"sql(
CREATE TABLE IF NOT EXISTS instance_gaps (
  host_id INTEGER NOT NULL,
  query TEXT NOT NULL,
  object_index INTEGER NOT NULL,
  instance TEXT NOT NULL,
  gone INTEGER NOT NULL,
  back INTEGER NOT NULL,
  PRIMARY KEY (host_id, query, object_index, instance, gone)
) WITHOUT ROWID;
)sql";

// Version 14: one row per compacted group (store/block_rows.h) instead of one per snapshot: a
// snapshot's row and index entries took about 200 bytes, a quarter of what a day of a Windows
// host's samples takes in all. `id` is the group's first keyframe, whose frame holds the block;
// `members` what each snapshot's row said (store/block_members.h); `last_id` the greatest of their
// ids, which new snapshots' ids stay above (SQLite would reuse the ids of deleted rows). The groups
// compacted before are moved into it on upgrade (MoveOldCompactedGroups); `block_index` in
// `snapshots` stays, always NULL from then on.
inline constexpr const char* kSchemaBlockRows = R"sql(
CREATE TABLE IF NOT EXISTS blocks (
  id INTEGER PRIMARY KEY,
  host_id INTEGER NOT NULL,
  query TEXT NOT NULL,
  first_time INTEGER NOT NULL,
  last_time INTEGER NOT NULL,
  last_receive_time INTEGER NOT NULL,
  snapshots INTEGER NOT NULL,
  raw_size INTEGER NOT NULL,
  stored_size INTEGER NOT NULL,
  last_id INTEGER NOT NULL,
  members BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS blocks_by_time ON blocks (host_id, last_time, first_time);
CREATE INDEX IF NOT EXISTS blocks_by_last_id ON blocks (last_id);
CREATE INDEX IF NOT EXISTS blocks_by_stream ON blocks (host_id, query, id);
CREATE INDEX IF NOT EXISTS blocks_by_receive_time ON blocks (last_receive_time);
)sql";

}  // namespace perfhive

#endif  // PERFHIVE_STORE_SCHEMA_H_
