// Outbox: the snapshots the server has not answered, in the order they were taken, each held in
// memory or in the spool. The sampler pushes; the shipper takes them in order to send, and
// removes one only when the server answers it (an Ack, a duplicate Ack too, or a Refusal).
// While the agent is disconnected, or when the memory bound is reached, new snapshots go
// straight to the spool; on a disconnect the ones in memory follow them, so that a crash loses
// nothing the server did not acknowledge.

#ifndef PERFHIVE_AGENT_OUTBOX_H_
#define PERFHIVE_AGENT_OUTBOX_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agent/logger.h"
#include "agent/snapshot_record.h"
#include "agent/spool.h"

namespace perfhive {

class Outbox {
 public:
  // Starts with what the spool recovered from earlier runs, oldest first.
  Outbox(Spool& spool, uint64_t memory_limit_bytes, Logger& log);
  Outbox(const Outbox&) = delete;
  Outbox& operator=(const Outbox&) = delete;

  void Push(SnapshotRecord record);

  // true: new snapshots stay in memory. false: all in memory are spooled, none counts as sent.
  void SetConnected(bool connected);

  // The oldest snapshot not yet sent since SetConnected(true), once fewer than `window` sent
  // ones await an answer; waits for one until `interrupted` is set (then nullopt; call Wake
  // after setting it).
  std::shared_ptr<const SnapshotRecord> NextToSend(size_t window,
                                                   const std::atomic<bool>& interrupted);
  void Wake();

  // Removes the snapshot the server answered, if it is still here (an answer to a resend, or
  // to one the spool dropped meanwhile, finds nothing).
  void Remove(const std::string& instance_id, uint64_t sequence);
  // Removes every snapshot of `instance_id` up to `sequence`: the server says they are durable.
  void RemoveThrough(const std::string& instance_id, uint64_t sequence);

  // Moves every snapshot still in memory to the spool, for a clean stop.
  void SpillAll();

  size_t size() const;
  // Snapshots lost: dropped by the spool's limit, unreadable in the spool, or not spoolable.
  uint64_t lost() const;

 private:
  struct Entry {
    std::string instance_id;
    uint64_t sequence = 0;
    std::shared_ptr<const SnapshotRecord> record;  // null while only in the spool
    std::optional<uint64_t> spool_id;
    bool sent = false;
    bool dropped = false;  // by the spool's limit; removed by PurgeDroppedLocked
  };

  enum class Spilled { kYes, kNo, kLost };
  // Writes the entry to the spool and frees its memory. kNo: the spool failed (it stays in
  // memory); kLost: it is larger than the whole spool and was removed.
  Spilled SpillLocked(std::list<Entry>::iterator it);
  void ForgetDroppedLocked(const std::vector<uint64_t>& spool_ids);
  void PurgeDroppedLocked();
  void RemoveEntryLocked(std::list<Entry>::iterator it);

  Spool& spool_;
  const uint64_t memory_limit_bytes_;
  Logger& log_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::list<Entry> entries_;
  bool connected_ = false;
  uint64_t memory_bytes_ = 0;
  size_t in_flight_ = 0;
  uint64_t lost_ = 0;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_OUTBOX_H_
