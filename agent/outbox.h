// Outbox: what the sampler has for the server, between the two: the snapshots the server has not
// answered, in the order they were taken; the title databases they were taken under; the latest
// of each report (agent/server_reports.h). It is the only writer of the spool, so the pipeline
// runs one way: source, sampler, outbox, shipper (the network only).
//
// Every snapshot is written to the spool before it is offered to the shipper (write-ahead), so a
// crash at any moment, kill -9 included, loses nothing that was taken: the next run finds it in
// the spool. While connected, and within a memory bound, a copy stays in memory so sending does
// not read it back. The shipper takes snapshots in order to send, at most `window` awaiting an
// answer; only an answer removes one: an Ack (a duplicate too), or a Refusal, which counts it as
// lost. A Resend puts it back in line. Reports go ahead of snapshots and are never held back by
// the window.

#ifndef PERFHIVE_AGENT_OUTBOX_H_
#define PERFHIVE_AGENT_OUTBOX_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/logger.h"
#include "agent/snapshot_record.h"
#include "agent/spool.h"
#include "perfdata/title_bytes.h"
#include "perfhive/v1/ingest.pb.h"

namespace perfhive {

// Snapshots an outbox gave up on, by why. Each is data the agent took and the server will never
// have.
struct LostSnapshots {
  uint64_t refused = 0;      // the server will never store them (malformed, a conflict)
  uint64_t dropped = 0;      // the spool's limit: the oldest go first
  uint64_t unreadable = 0;   // a spooled file was torn or damaged
  uint64_t unspoolable = 0;  // larger than the whole spool

  uint64_t total() const { return refused + dropped + unreadable + unspoolable; }
};

class Outbox {
 public:
  // Starts with `recovered`, what the spool kept from earlier runs for this outbox's owner,
  // oldest first.
  Outbox(Spool& spool, std::vector<Spool::Entry> recovered, uint64_t memory_limit_bytes,
         Logger& log);
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  // Writes the snapshot to the spool, then queues it. When the spool cannot take it (a full
  // disk), it waits in memory and the spool is tried again on the next disconnect or stop.
  void Push(SnapshotRecord record);

  // true: copies of new snapshots stay in memory. false: the memory copies are let go, and
  // none counts as sent.
  void SetConnected(bool connected);

  // The title databases in force: each is written to the spool (spooled snapshots refer to it,
  // and a later run may send those) and kept for the shipper. Returns their references, for the
  // snapshots taken under them and for Hello.
  std::vector<TitleRef> AdoptTitles(const std::vector<TitleBytes>& titles);
  std::vector<TitleRef> titles_in_force() const;
  // A database by digest: one adopted by this run, else one the spool holds from an earlier run
  // (a spooled snapshot taken under a database this run never read).
  Result<TitleBytes> FindTitles(const Sha256Digest& digest);

  // Keeps `report` as the latest of its kind, to go on the stream up now (or the next one), and
  // on every stream after for the kinds that are (SentOnEveryStream).
  void Report(v1::AgentMessage report);

  // What the shipper writes next: the reports not yet taken since SetConnected(true), else the
  // oldest snapshot not yet sent, once fewer than `window` sent ones await an answer. Waits for
  // either until `interrupted` is set (then neither; call Wake after setting it).
  struct Outgoing {
    std::vector<v1::AgentMessage> reports;
    std::shared_ptr<const SnapshotRecord> snapshot;
    bool empty() const { return reports.empty() && snapshot == nullptr; }
  };
  Outgoing NextToSend(size_t window, const std::atomic<bool>& interrupted);
  void Wake();

  // The server stored the snapshot (or had it): it leaves the outbox and the spool. An answer
  // to a resend, or to one the spool dropped meanwhile, finds nothing.
  void Remove(const std::string& instance_id, uint64_t sequence);
  // The server refused the snapshot for good: it leaves, counted as lost.
  void Lose(const std::string& instance_id, uint64_t sequence);
  // The server asked for the snapshot again: it is sent again, before anything newer.
  void Unsend(const std::string& instance_id, uint64_t sequence);

  // Writes every snapshot the spool does not hold yet, for a clean stop.
  void SpillAll();

  size_t size() const;
  LostSnapshots lost() const;

 private:
  struct Entry {
    std::string instance_id;
    uint64_t sequence = 0;
    std::shared_ptr<const SnapshotRecord> record;  // null while only in the spool
    std::optional<uint64_t> spool_id;              // unset until the spool holds it
    bool sent = false;
    bool dropped = false;  // by the spool's limit; removed by PurgeDroppedLocked
  };

  // Writes the entry to the spool if it is not there; false when it stays in memory only.
  bool SpoolLocked(std::list<Entry>::iterator it);
  // Lets go of the memory copy of a spooled entry.
  void ForgetCopyLocked(Entry& entry);
  void ForgetDroppedLocked(const std::vector<uint64_t>& spool_ids);
  void PurgeDroppedLocked();
  void RemoveEntryLocked(std::list<Entry>::iterator it);
  std::list<Entry>::iterator FindLocked(const std::string& instance_id, uint64_t sequence);

  // The latest report of one kind, and whether the stream still has to take it.
  struct KeptReport {
    v1::AgentMessage message;
    bool pending = true;
  };

  Spool& spool_;
  const uint64_t memory_limit_bytes_;
  Logger& log_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::list<Entry> entries_;
  bool connected_ = false;
  uint64_t memory_bytes_ = 0;
  size_t in_flight_ = 0;
  LostSnapshots lost_;
  std::map<v1::AgentMessage::BodyCase, KeptReport> reports_;
  std::map<Sha256Digest, TitleBytes> titles_;  // adopted by this run
  std::vector<TitleRef> titles_in_force_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_OUTBOX_H_
